// SPDX-License-Identifier: Apache-2.0
#ifndef itkLevelLinesDenoiseImageFilter_hxx
#define itkLevelLinesDenoiseImageFilter_hxx

#include "itkLevelLinesDenoiseImageFilter.h"

#include "itkGPURestorationCommon.h"

#include <vector>

namespace itk
{

template<typename TInputImage, typename TOutputImage>
LevelLinesDenoiseImageFilter<TInputImage, TOutputImage>::LevelLinesDenoiseImageFilter()
{
  this->SetNumberOfRequiredOutputs(2);
  this->SetNthOutput(1, this->MakeOutput(1));
}

template<typename TInputImage, typename TOutputImage>
DataObject::Pointer
LevelLinesDenoiseImageFilter<TInputImage, TOutputImage>::MakeOutput(ProcessObject::DataObjectPointerArraySizeType index)
{
  if (index == 1)
  {
    return ClassImageType::New().GetPointer();
  }
  return Superclass::MakeOutput(index);
}

template<typename TInputImage, typename TOutputImage>
auto
LevelLinesDenoiseImageFilter<TInputImage, TOutputImage>::GetClassOutput() -> ClassImageType *
{
  return itkDynamicCastInDebugMode<ClassImageType *>(this->ProcessObject::GetOutput(1));
}

template<typename TInputImage, typename TOutputImage>
auto
LevelLinesDenoiseImageFilter<TInputImage, TOutputImage>::GetClassOutput() const -> const ClassImageType *
{
  return itkDynamicCastInDebugMode<const ClassImageType *>(this->ProcessObject::GetOutput(1));
}

template<typename TInputImage, typename TOutputImage>
gpur::LevelLinesParameters
LevelLinesDenoiseImageFilter<TInputImage, TOutputImage>::MakeParameters() const
{
  gpur::LevelLinesParameters p;
  p.segmentLength = m_SegmentLength;
  p.maximumLength = m_MaximumLength;
  p.lengtheningThreshold = m_LengtheningThreshold;
  p.edgeThreshold = m_EdgeThreshold;
  p.mode = GPURestoration::ToEngine(m_Mode);
  p.test = GPURestoration::ToEngine(m_LengtheningTest);
  p.turnBack = GPURestoration::ToEngine(m_TurnBack);
  p.thick = m_Thick;
  p.includeCenter = m_IncludeCenter;
  p.bidirectional = m_Bidirectional;
  p.varianceFloor = m_VarianceFloor;
  p.noiseSigma = m_NoiseSigma;
  return p;
}

template<typename TInputImage, typename TOutputImage>
void
LevelLinesDenoiseImageFilter<TInputImage, TOutputImage>::EngineGenerateData()
{
  const TInputImage * input = this->GetInput();
  const typename TInputImage::RegionType region = this->WholeInputRegion();
  const gpur::Grid grid = GPURestoration::MakeGrid(input, region);
  const gpur::LevelLinesParameters parameters = this->MakeParameters();
  parameters.Validate(); // before any allocation: a bad setting names itself
  gpur::ExecutionOptions execution = this->MakeExecutionOptions();
  execution.deviceMemoryLimit = m_DeviceMemoryLimit;

  std::vector<float> converted; // 8- and 16-bit pixels are cast to float here
  const float * f = GPURestoration::PixelsAs<float>(input, region, converted);
  // Both outputs keep the input's geometry (the superclass' GenerateOutputInformation) and meta-data.
  TOutputImage * output = this->GetOutput();
  output->SetBufferedRegion(output->GetRequestedRegion());
  output->Allocate();
  output->SetMetaDataDictionary(input->GetMetaDataDictionary());
  ClassImageType * classes = this->GetClassOutput();
  classes->SetBufferedRegion(classes->GetRequestedRegion());
  classes->Allocate();

  gpur::LevelLinesMaps maps;
  if (m_Mode == ModeEnum::Hybrid)
  {
    maps.pixelClass = classes->GetBufferPointer();
  }
  m_Report = gpur::DenoiseLevelLines(
    f, output->GetBufferPointer(), grid, parameters, execution, this->MakeProgressCallback(), maps);
  if (m_Mode != ModeEnum::Hybrid)
  {
    // Every pixel has the PI-PD value, which is what the class Complex stands for.
    classes->FillBuffer(static_cast<uint8_t>(gpur::LevelLinesClass::Complex));
  }

  m_NoiseSigmaUsed = m_Report.noiseSigma;
  m_NoiseSigmaEstimated = m_Report.sigmaEstimated;
  m_MeanLength = m_Report.meanLength;
  m_StoppedByTest = m_Report.stoppedByTest;
  m_StoppedByTurnBack = m_Report.stoppedByTurnBack;
  m_StoppedByBorder = m_Report.stoppedByBorder;
  m_StoppedByLength = m_Report.stoppedByLength;
  m_LowSlopeShare = m_Report.classShares[0];
  m_SingleEdgeShare = m_Report.classShares[1];
  m_ComplexShare = m_Report.classShares[2];
  m_NumberOfFrames = m_Report.frames;
  m_ElapsedSeconds = m_Report.seconds;
  m_KernelSeconds = m_Report.kernelSeconds;
  this->SetBackendUsed(m_Report.backend);
  for (const std::string & warning : m_Report.warnings)
  {
    itkWarningMacro(<< warning); // e.g. a noise-free image (sigma estimated as 0)
  }
}

template<typename TInputImage, typename TOutputImage>
void
LevelLinesDenoiseImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "SegmentLength: " << m_SegmentLength << std::endl;
  os << indent << "MaximumLength: " << m_MaximumLength << std::endl;
  os << indent << "LengtheningThreshold: " << m_LengtheningThreshold << std::endl;
  os << indent << "EdgeThreshold: " << m_EdgeThreshold << std::endl;
  os << indent << "Mode: " << m_Mode << std::endl;
  os << indent << "LengtheningTest: " << m_LengtheningTest << std::endl;
  os << indent << "TurnBack: " << m_TurnBack << std::endl;
  os << indent << "Thick: " << (m_Thick ? "On" : "Off") << std::endl;
  os << indent << "IncludeCenter: " << (m_IncludeCenter ? "On" : "Off") << std::endl;
  os << indent << "Bidirectional: " << (m_Bidirectional ? "On" : "Off") << std::endl;
  os << indent << "VarianceFloor: " << m_VarianceFloor << std::endl;
  os << indent << "NoiseSigma: " << m_NoiseSigma << (m_NoiseSigma > 0.0 ? "" : " (estimated)") << std::endl;
  os << indent << "DeviceMemoryLimit: " << m_DeviceMemoryLimit
     << (m_DeviceMemoryLimit ? " bytes" : " (90 % of the device)") << std::endl;
  os << indent << "NoiseSigmaUsed: " << m_NoiseSigmaUsed << (m_NoiseSigmaEstimated ? " (estimated)" : "") << std::endl;
  os << indent << "NumberOfFrames: " << m_NumberOfFrames << std::endl;
  os << indent << "MeanLength: " << m_MeanLength << std::endl;
  os << indent << "StoppedByTest: " << m_StoppedByTest << std::endl;
  os << indent << "StoppedByTurnBack: " << m_StoppedByTurnBack << std::endl;
  os << indent << "StoppedByBorder: " << m_StoppedByBorder << std::endl;
  os << indent << "StoppedByLength: " << m_StoppedByLength << std::endl;
  os << indent << "LowSlopeShare: " << m_LowSlopeShare << std::endl;
  os << indent << "SingleEdgeShare: " << m_SingleEdgeShare << std::endl;
  os << indent << "ComplexShare: " << m_ComplexShare << std::endl;
  for (const std::string & warning : m_Report.warnings)
  {
    os << indent << "Warning: " << warning << std::endl;
  }
  os << indent << "ElapsedSeconds: " << m_ElapsedSeconds << std::endl;
  os << indent << "KernelSeconds: " << m_KernelSeconds << std::endl;
}

} // namespace itk

#endif
