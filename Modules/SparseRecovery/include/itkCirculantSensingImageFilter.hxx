// SPDX-License-Identifier: Apache-2.0
#ifndef itkCirculantSensingImageFilter_hxx
#define itkCirculantSensingImageFilter_hxx

#include "itkCirculantSensingImageFilter.h"

#include "itkGPURestorationCommon.h"

#include <algorithm>
#include <vector>

namespace itk
{

template<typename TInputImage, typename TOutputImage>
CirculantSensingImageFilter<TInputImage, TOutputImage>::CirculantSensingImageFilter()
{
  this->AddOptionalInputName("PSF");
  this->SetNumberOfRequiredOutputs(3);
  this->SetNthOutput(1, this->MakeOutput(1));
  this->SetNthOutput(2, this->MakeOutput(2));
}

template<typename TInputImage, typename TOutputImage>
DataObject::Pointer
CirculantSensingImageFilter<TInputImage, TOutputImage>::MakeOutput(ProcessObject::DataObjectPointerArraySizeType index)
{
  if (index == 1)
  {
    return MaskImageType::New().GetPointer();
  }
  return Superclass::MakeOutput(index);
}

template<typename TInputImage, typename TOutputImage>
auto
CirculantSensingImageFilter<TInputImage, TOutputImage>::GetMaskOutput() -> MaskImageType *
{
  return itkDynamicCastInDebugMode<MaskImageType *>(this->ProcessObject::GetOutput(1));
}

template<typename TInputImage, typename TOutputImage>
auto
CirculantSensingImageFilter<TInputImage, TOutputImage>::GetMaskOutput() const -> const MaskImageType *
{
  return itkDynamicCastInDebugMode<const MaskImageType *>(this->ProcessObject::GetOutput(1));
}

template<typename TInputImage, typename TOutputImage>
auto
CirculantSensingImageFilter<TInputImage, TOutputImage>::GetGeneratorOutput() -> ImageType *
{
  return itkDynamicCastInDebugMode<ImageType *>(this->ProcessObject::GetOutput(2));
}

template<typename TInputImage, typename TOutputImage>
auto
CirculantSensingImageFilter<TInputImage, TOutputImage>::GetGeneratorOutput() const -> const ImageType *
{
  return itkDynamicCastInDebugMode<const ImageType *>(this->ProcessObject::GetOutput(2));
}

template<typename TInputImage, typename TOutputImage>
void
CirculantSensingImageFilter<TInputImage, TOutputImage>::EngineGenerateData()
{
  const ImageType * input = this->GetInput();
  const gpur::CirculantSensing sensing = this->MakeSensing(this->GetPSF(), m_NormalizePSF);
  std::vector<RealType> converted;
  const RealType * x = GPURestoration::PixelsAs<RealType>(input, converted);

  // Every output keeps the input's geometry (the superclass' GenerateOutputInformation) and meta-data.
  ImageType * output = this->GetOutput();
  output->SetBufferedRegion(output->GetRequestedRegion());
  output->Allocate();
  output->SetMetaDataDictionary(input->GetMetaDataDictionary());
  MaskImageType * mask = this->GetMaskOutput();
  mask->SetBufferedRegion(mask->GetRequestedRegion());
  mask->Allocate();
  std::copy(sensing.mask.begin(), sensing.mask.end(), mask->GetBufferPointer());
  ImageType * generator = this->GetGeneratorOutput();
  generator->SetBufferedRegion(generator->GetRequestedRegion());
  generator->Allocate();
  std::transform(sensing.generator.begin(),
                 sensing.generator.end(),
                 generator->GetBufferPointer(),
                 [](double v) { return static_cast<RealType>(v); });

  const gpur::CirculantOperator<RealType> op(sensing, this->MakeExecutionOptions());
  this->CheckAbort(); // planning can take a while (the OpenCL program's first build)
  op.Apply(x, output->GetBufferPointer());
  this->SetBackendUsed(op.Backend());
}

template<typename TInputImage, typename TOutputImage>
void
CirculantSensingImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "PSF: " << (this->GetPSF() ? "given" : "none") << std::endl;
  os << indent << "NormalizePSF: " << (m_NormalizePSF ? "On" : "Off") << std::endl;
}

} // namespace itk

#endif
