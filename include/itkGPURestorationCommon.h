// SPDX-License-Identifier: Apache-2.0
// ITK glue of the core module: turns ITK images into engine grids and pixel
// arrays, and ITK's thread pool into the engines' parallel loop. Every filter
// of the project uses these (through itk::GPURestorationImageFilter, which
// also maps the engines' errors).
#ifndef itkGPURestorationCommon_h
#define itkGPURestorationCommon_h

#include "gpurExecution.h"
#include "gpurGrid.h"

#include "itkImage.h"
#include "itkImageRegionConstIterator.h"
#include "itkMultiThreaderBase.h"

#include <algorithm>
#include <type_traits>
#include <vector>

namespace itk
{
namespace GPURestoration
{

/**
 * Engine grid of a region of an image (a streamed chunk, or the largest
 * possible region), with the image's spacing. The engines need no origin.
 */
template<typename TImage>
gpur::Grid
MakeGrid(const TImage * image, const typename TImage::RegionType & region)
{
  static_assert(TImage::ImageDimension == 2 || TImage::ImageDimension == 3, "only 2D and 3D images are supported");
  gpur::Grid g;
  g.dimension = TImage::ImageDimension;
  const auto size = region.GetSize();
  for (unsigned d = 0; d < TImage::ImageDimension; ++d)
  {
    g.size[d] = size[d];
    g.spacing[d] = image->GetSpacing()[d];
  }
  return g;
}

/** Engine grid of an image's largest possible region, with its spacing. */
template<typename TImage>
gpur::Grid
MakeGrid(const TImage * image)
{
  return MakeGrid(image, image->GetLargestPossibleRegion());
}

/**
 * The pixels of `region` (inside the buffered region) as a contiguous Real
 * array, x fastest: the buffer itself when the region is the buffered region
 * and the pixel type is Real (no copy), else a converted copy kept in `storage`.
 */
template<typename Real, typename TImage>
const Real *
PixelsAs(const TImage * image, const typename TImage::RegionType & region, std::vector<Real> & storage)
{
  if (std::is_same<typename TImage::PixelType, Real>::value && region == image->GetBufferedRegion())
  {
    return reinterpret_cast<const Real *>(image->GetBufferPointer());
  }
  storage.resize(region.GetNumberOfPixels());
  std::size_t i = 0;
  for (ImageRegionConstIterator<TImage> it(image, region); !it.IsAtEnd(); ++it)
  {
    storage[i++] = static_cast<Real>(it.Get());
  }
  return storage.data();
}

/** PixelsAs of the whole buffered region. */
template<typename Real, typename TImage>
const Real *
PixelsAs(const TImage * image, std::vector<Real> & storage)
{
  return PixelsAs<Real>(image, image->GetBufferedRegion(), storage);
}

/** The engines' parallel loop on ITK's thread pool (honours ITK's global thread settings). */
inline gpur::ParallelForFunction
MakeParallelFor(ThreadIdType numberOfWorkUnits)
{
  return [numberOfWorkUnits](std::size_t n, const gpur::RangeBody & body)
  {
    if (n == 0)
      return;
    const std::size_t units = std::max<std::size_t>(1, std::min<std::size_t>(numberOfWorkUnits, n));
    MultiThreaderBase::Pointer threader = MultiThreaderBase::New();
    threader->SetNumberOfWorkUnits(static_cast<ThreadIdType>(units));
    threader->ParallelizeArray(
      0, units, [&](SizeValueType w) { body(n * w / units, n * (w + 1) / units); }, nullptr);
  };
}

} // namespace GPURestoration
} // namespace itk

#endif
