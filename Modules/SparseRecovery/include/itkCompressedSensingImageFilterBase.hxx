// SPDX-License-Identifier: Apache-2.0
#ifndef itkCompressedSensingImageFilterBase_hxx
#define itkCompressedSensingImageFilterBase_hxx

#include "itkCompressedSensingImageFilterBase.h"

#include "itkGPURestorationCommon.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <utility>
#include <vector>

namespace itk
{

namespace GPURestoration
{
/**
 * Throws unless `other` (the named input `name`) lies on the grid of `reference`: the same size, and origin,
 * spacing and direction within the filter's tolerances (those ImageToImageFilter checks). `geometry` false:
 * only the spacing and direction (a point-spread function has its own size and origin).
 */
template<unsigned int VDimension>
void
CheckSensingInputGrid(const ImageBase<VDimension> * reference,
                      const ImageBase<VDimension> * other,
                      const char * name,
                      double coordinateTolerance,
                      double directionTolerance,
                      bool geometry)
{
  const double tolerance = std::abs(coordinateTolerance * reference->GetSpacing()[0]);
  std::ostringstream problem;
  if (geometry && other->GetLargestPossibleRegion().GetSize() != reference->GetLargestPossibleRegion().GetSize())
  {
    problem << "has size " << other->GetLargestPossibleRegion().GetSize() << " but the input "
            << reference->GetLargestPossibleRegion().GetSize();
  }
  else if (geometry && !other->GetOrigin().GetVnlVector().is_equal(reference->GetOrigin().GetVnlVector(), tolerance))
  {
    problem << "has origin " << other->GetOrigin() << " but the input " << reference->GetOrigin();
  }
  else if (!other->GetSpacing().GetVnlVector().is_equal(reference->GetSpacing().GetVnlVector(), tolerance))
  {
    problem << "has spacing " << other->GetSpacing() << " but the input " << reference->GetSpacing();
  }
  else if (!other->GetDirection().GetVnlMatrix().as_ref().is_equal(reference->GetDirection().GetVnlMatrix().as_ref(),
                                                                   directionTolerance))
  {
    problem << "has another direction than the input";
  }
  if (!problem.str().empty())
  {
    std::ostringstream message;
    message << "the " << name << " image " << problem.str()
            << (geometry ? "; it must lie on the input's grid" : "; it must be sampled on the input's pixel lattice");
    throw gpur::InvalidArgument(message.str());
  }
}
} // namespace GPURestoration

template<typename TInputImage, typename TOutputImage>
CompressedSensingImageFilterBase<TInputImage, TOutputImage>::CompressedSensingImageFilterBase()
{
  this->AddOptionalInputName("Mask");
  this->AddOptionalInputName("Generator");
}

template<typename TInputImage, typename TOutputImage>
void
CompressedSensingImageFilterBase<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  // Not the superclass': ImageToImageFilter would ask every input for the output's region, which a PSF of its own
  // size does not have.
  for (const auto & input : this->GetInputs())
  {
    if (input)
    {
      input->SetRequestedRegionToLargestPossibleRegion();
    }
  }
}

template<typename TInputImage, typename TOutputImage>
void
CompressedSensingImageFilterBase<TInputImage, TOutputImage>::VerifyInputInformation() ITKv5_CONST
{
  const ImageType * input = this->GetInput();
  if (input == nullptr)
  {
    return; // ProcessObject names the missing primary input
  }
  const double coordinates = this->GetCoordinateTolerance();
  const double directions = this->GetDirectionTolerance();
  try
  {
    if (const MaskImageType * mask = this->GetMask())
    {
      GPURestoration::CheckSensingInputGrid<ImageDimension>(input, mask, "Mask", coordinates, directions, true);
    }
    if (const ImageType * generator = this->GetGenerator())
    {
      GPURestoration::CheckSensingInputGrid<ImageDimension>(
        input, generator, "Generator", coordinates, directions, true);
    }
    if (const auto * psf = dynamic_cast<const ImageBase<ImageDimension> *>(this->ProcessObject::GetInput("PSF")))
    {
      GPURestoration::CheckSensingInputGrid<ImageDimension>(input, psf, "PSF", coordinates, directions, false);
    }
  }
  catch (const gpur::InvalidArgument & error)
  {
    itkExceptionMacro(<< error.what());
  }
}

template<typename TInputImage, typename TOutputImage>
gpur::CirculantSensing
CompressedSensingImageFilterBase<TInputImage, TOutputImage>::MakeSensing(const ImageType * psf, bool normalizePSF)
{
  const ImageType * input = this->GetInput();
  const auto inputSize = input->GetLargestPossibleRegion().GetSize();
  const std::vector<std::size_t> size{ inputSize[0], inputSize[1] };
  const std::size_t n = size[0] * size[1];
  const MaskImageType * maskImage = this->GetMask();
  const ImageType * generatorImage = this->GetGenerator();

  std::vector<uint8_t> mask;
  if (maskImage != nullptr)
  {
    if (m_SamplingRatio != 0.0)
    {
      itkExceptionMacro(<< "both a Mask input and SamplingRatio " << m_SamplingRatio
                        << " are given; give one: the Mask, or SamplingRatio (with Seed) to draw the mask");
    }
    mask.assign(maskImage->GetBufferPointer(), maskImage->GetBufferPointer() + n);
    const auto bad = std::find_if(mask.begin(), mask.end(), [](uint8_t v) { return v > 1; });
    if (bad != mask.end())
    {
      itkExceptionMacro(<< "the Mask holds the value " << static_cast<unsigned>(*bad) << " at pixel "
                        << (bad - mask.begin())
                        << "; a mask holds 0 (not measured) and 1 (measured) only (e.g. BinaryThresholdImageFilter "
                           "with inside value 1)");
    }
    if (std::find(mask.begin(), mask.end(), uint8_t{ 1 }) == mask.end())
    {
      itkExceptionMacro(<< "the Mask is empty (every pixel 0): at least one pixel must be measured");
    }
  }
  else if (m_SamplingRatio == 0.0)
  {
    itkExceptionMacro(<< "no sampling set: give the named input \"Mask\", or draw one with SetSamplingRatio(m / n) in "
                         "(0, 1] and SetSeed");
  }

  // What is not given is drawn: with the mask's ratio when a mask is given, so that the generator's scale is
  // the one gpur::MakeGaussianCirculantSensing gives for that many measurements.
  const std::size_t measured =
    maskImage != nullptr ? static_cast<std::size_t>(std::count(mask.begin(), mask.end(), uint8_t{ 1 })) : 0;
  const double ratio = maskImage != nullptr ? static_cast<double>(measured) / static_cast<double>(n) : m_SamplingRatio;
  gpur::CirculantSensing sensing;
  if (maskImage == nullptr || generatorImage == nullptr)
  {
    sensing = gpur::MakeGaussianCirculantSensing(size, ratio, m_Seed); // validates the ratio
  }
  sensing.size = size;
  if (maskImage != nullptr)
  {
    sensing.mask = std::move(mask);
  }
  if (generatorImage != nullptr)
  {
    std::vector<RealType> converted;
    const RealType * v = GPURestoration::PixelsAs<RealType>(generatorImage, converted);
    sensing.generator.assign(v, v + n);
  }
  if (psf != nullptr)
  {
    const auto psfSize = psf->GetLargestPossibleRegion().GetSize();
    std::vector<RealType> converted;
    const RealType * p = GPURestoration::PixelsAs<RealType>(psf, converted);
    sensing.psf.assign(p, p + psfSize[0] * psfSize[1]);
    sensing.psfSize = { psfSize[0], psfSize[1] };
    sensing.normalizePSF = normalizePSF;
  }
  sensing.Validate(); // non-finite generator or PSF values, a zero PSF sum, a PSF larger than the image
  m_NumberOfMeasurements = sensing.Measurements();
  return sensing;
}

template<typename TInputImage, typename TOutputImage>
void
CompressedSensingImageFilterBase<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Mask: " << (this->GetMask() ? "given" : "drawn from Seed") << std::endl;
  os << indent << "Generator: " << (this->GetGenerator() ? "given" : "drawn from Seed") << std::endl;
  os << indent << "SamplingRatio: " << m_SamplingRatio << (m_SamplingRatio > 0.0 ? "" : " (the Mask input)")
     << std::endl;
  os << indent << "Seed: " << m_Seed << std::endl;
  os << indent << "NumberOfMeasurements: " << m_NumberOfMeasurements << std::endl;
}

} // namespace itk

#endif
