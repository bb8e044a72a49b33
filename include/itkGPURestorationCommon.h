// ITK glue of the core module: turns ITK images into engine grids, engine
// errors into itk::ExceptionObject, and ITK's thread pool into the engines'
// parallel loop. Every filter of the project uses these.
#ifndef itkGPURestorationCommon_h
#define itkGPURestorationCommon_h

#include "gpurError.h"
#include "gpurExecution.h"
#include "gpurGrid.h"

#include "itkImage.h"
#include "itkMacro.h"
#include "itkMultiThreaderBase.h"
#include "itkProcessObject.h"

#include <vector>

namespace itk
{
namespace GPURestoration
{

/** Engine grid of an image's largest possible region, with its spacing. */
template<typename TImage>
gpur::Grid
MakeGrid(const TImage * image)
{
  static_assert(TImage::ImageDimension == 2 || TImage::ImageDimension == 3, "only 2D and 3D images are supported");
  gpur::Grid g;
  g.dimension = TImage::ImageDimension;
  const auto size = image->GetLargestPossibleRegion().GetSize();
  for (unsigned d = 0; d < TImage::ImageDimension; ++d)
  {
    g.size[d] = size[d];
    g.spacing[d] = image->GetSpacing()[d];
  }
  return g;
}

/**
 * The image's pixels as a contiguous Real array: the buffer itself when the
 * pixel type is Real (no copy), else a converted copy kept in `storage`.
 */
template<typename Real, typename TImage>
const Real *
PixelsAs(const TImage * image, std::vector<Real> & storage)
{
  using PixelType = typename TImage::PixelType;
  const std::size_t n = image->GetBufferedRegion().GetNumberOfPixels();
  if (std::is_same<PixelType, Real>::value)
  {
    return reinterpret_cast<const Real *>(image->GetBufferPointer());
  }
  storage.resize(n);
  const PixelType * p = image->GetBufferPointer();
  for (std::size_t i = 0; i < n; ++i)
  {
    storage[i] = static_cast<Real>(p[i]);
  }
  return storage.data();
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

/**
 * Runs a statement that calls an engine and rethrows engine errors as ITK
 * exceptions from this filter: gpur::Aborted becomes itk::ProcessAborted,
 * every other error an itk::ExceptionObject with the engine's message
 * (for OpenCL build failures it contains the full build log).
 */
#define itkGPURestorationCallEngine(statement)                                                                         \
  try                                                                                                                  \
  {                                                                                                                    \
    statement;                                                                                                         \
  }                                                                                                                    \
  catch (const gpur::Aborted &)                                                                                        \
  {                                                                                                                    \
    ::itk::ProcessAborted e(__FILE__, __LINE__);                                                                       \
    e.SetDescription("Filter execution was aborted by the user.");                                                     \
    throw e;                                                                                                           \
  }                                                                                                                    \
  catch (const std::exception & err)                                                                                   \
  {                                                                                                                    \
    itkExceptionMacro(<< err.what());                                                                                  \
  }                                                                                                                    \
  ITK_MACROEND_NOOP_STATEMENT

#endif
