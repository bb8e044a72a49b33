// SPDX-License-Identifier: Apache-2.0
#ifndef itkTotalVariationDenoisingImageFilter_hxx
#define itkTotalVariationDenoisingImageFilter_hxx

#include "itkTotalVariationDenoisingImageFilter.h"

#include "itkGPURestorationCommon.h"
#include "itkImageAlgorithm.h"

#include <vector>

namespace itk
{

template<typename TInputImage, typename TOutputImage>
typename TInputImage::RegionType
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::PaddedRegion(
  const typename TOutputImage::RegionType & request) const
{
  typename TInputImage::RegionType padded = request;
  padded.PadByRadius(static_cast<OffsetValueType>(this->GetStreamingHalo()));
  padded.Crop(this->GetOutput()->GetLargestPossibleRegion()); // the output's largest region is the input's
  return padded;
}

template<typename TInputImage, typename TOutputImage>
void
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  if (auto * input = const_cast<TInputImage *>(this->GetInput()))
  {
    input->SetRequestedRegion(this->PaddedRegion(this->GetOutput()->GetRequestedRegion()));
  }
}

template<typename TInputImage, typename TOutputImage>
void
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::EnlargeOutputRequestedRegion(DataObject * output)
{
  Superclass::EnlargeOutputRequestedRegion(output);
  // When the halo spans the image, every chunk would solve all of it: solve it once
  // (the later chunks of a streamed writer find their region computed), with the gap
  // stop, as without streaming. Only this case is widened: widening just the chunks
  // whose padding happens to cover the image would mix gap-stopped and fixed-count
  // chunks in one output.
  auto * image = dynamic_cast<TOutputImage *>(output);
  if (image == nullptr)
  {
    return;
  }
  if (this->IsLambdaAutomatic())
  {
    image->SetRequestedRegionToLargestPossibleRegion(); // the automatic lambda is the whole image's
    return;
  }
  const auto size = image->GetLargestPossibleRegion().GetSize();
  for (unsigned d = 0; d < ImageDimension; ++d)
  {
    if (size[d] > this->GetStreamingHalo() + 1)
    {
      return;
    }
  }
  image->SetRequestedRegionToLargestPossibleRegion();
}

template<typename TInputImage, typename TOutputImage>
gpur::TVParameters
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::MakeParameters() const
{
  gpur::TVParameters p;
  if (!this->IsLambdaAutomatic())
  {
    p.lambda = m_Lambda; // else not used
  }
  p.algorithm = GPURestoration::ToEngine(m_Algorithm);
  p.maxIterations = m_MaximumNumberOfIterations;
  // A streamed chunk's gap belongs to the chunk's problem, and stopping on it would
  // make each chunk stop at its own iteration: chunks run the fixed count instead.
  p.gapTolerance = m_StreamedChunk ? 0.0 : m_GapTolerance;
  p.gapCheckInterval = m_GapCheckInterval;
  p.pduOffset = m_PDUOffset;
  p.exchangeInterval = m_ExchangeInterval;
  p.halfPrecisionDual = m_HalfPrecisionDual;
  return p;
}

template<typename TInputImage, typename TOutputImage>
gpur::TVReport
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::Solve(const RealType * f,
                                                                     RealType * u,
                                                                     const gpur::Grid & grid,
                                                                     const gpur::ExecutionOptions & execution,
                                                                     const gpur::ProgressCallback & progress)
{
  gpur::TVNoiseLevelParameters parameters;
  parameters.tv = this->MakeParameters();
  parameters.automaticLambda = this->IsLambdaAutomatic();
  parameters.sigma = m_NoiseSigma;
  parameters.discrepancyFactor = m_DiscrepancyFactor;
  const gpur::TVNoiseLevelReport report = gpur::DenoiseTVAtNoiseLevel(f, u, grid, parameters, execution, progress);
  this->RecordLambdaChoice(report, report.sigma, report.sigmaEstimated);
  return report.tv;
}

template<typename TInputImage, typename TOutputImage>
void
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::EngineGenerateData()
{
  const TInputImage * input = this->GetInput();
  TOutputImage * output = this->GetOutput();
  gpur::ExecutionOptions execution = this->MakeExecutionOptions();
  execution.deviceMemoryLimit = m_DeviceMemoryLimit;

  // The requested output region padded by the halo (the whole image when not streaming).
  const typename TOutputImage::RegionType & requested = output->GetRequestedRegion();
  m_SolvedRegion = this->PaddedRegion(requested);
  m_StreamedChunk = requested != output->GetLargestPossibleRegion();
  if (!input->GetBufferedRegion().IsInside(m_SolvedRegion))
  {
    itkExceptionMacro(<< "the input holds " << input->GetBufferedRegion() << " but the requested output needs "
                      << m_SolvedRegion << " (the request padded by " << this->GetStreamingHalo()
                      << " voxels); the upstream filter did not provide its requested region");
  }
  const gpur::Grid grid = GPURestoration::MakeGrid(input, m_SolvedRegion);
  const gpur::TVParameters parameters = this->MakeParameters();
  grid.Validate();
  parameters.Validate();
  std::vector<RealType> converted;
  const RealType * f = GPURestoration::PixelsAs<RealType>(input, m_SolvedRegion, converted);

  // The output keeps the input's geometry (done by the superclass' GenerateOutputInformation).
  output->SetBufferedRegion(requested);
  output->Allocate();
  // A padded chunk is solved into a scratch image and its requested part copied out.
  typename TOutputImage::Pointer chunk;
  RealType * u = output->GetBufferPointer();
  if (m_SolvedRegion != requested)
  {
    chunk = TOutputImage::New();
    chunk->SetRegions(m_SolvedRegion);
    chunk->Allocate();
    u = chunk->GetBufferPointer();
  }
  m_Report = this->Solve(f, u, grid, execution, this->MakeProgressCallback());
  if (chunk)
  {
    ImageAlgorithm::Copy(chunk.GetPointer(), output, requested, requested);
  }
  m_NumberOfIterations = m_Report.iterations;
  m_RelativeGap = m_Report.relativeGap;
  m_PrimalEnergy = m_Report.primal;
  m_DualEnergy = m_Report.dual;
  m_Converged = m_Report.converged;
  m_ElapsedSeconds = m_Report.seconds;
  this->SetBackendUsed(m_Report.backend);
  for (const std::string & warning : m_Report.warnings)
  {
    itkWarningMacro(<< warning); // e.g. not converged within MaximumNumberOfIterations
  }
}

template<typename TInputImage, typename TOutputImage>
void
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Lambda: " << m_Lambda << (this->IsLambdaAutomatic() ? " (automatic: discrepancy principle)" : "")
     << std::endl;
  os << indent << "NoiseSigma: " << m_NoiseSigma << (m_NoiseSigma > 0.0 ? "" : " (estimated)") << std::endl;
  os << indent << "DiscrepancyFactor: " << m_DiscrepancyFactor << (m_DiscrepancyFactor > 0.0 ? "" : " (calibrated)")
     << std::endl;
  os << indent << "Algorithm: " << m_Algorithm << std::endl;
  os << indent << "MaximumNumberOfIterations: " << m_MaximumNumberOfIterations << std::endl;
  os << indent << "GapTolerance: " << m_GapTolerance << std::endl;
  os << indent << "GapCheckInterval: " << m_GapCheckInterval << std::endl;
  os << indent << "PDUOffset: " << m_PDUOffset << std::endl;
  os << indent << "ExchangeInterval: " << m_ExchangeInterval << std::endl;
  os << indent << "DeviceMemoryLimit: " << m_DeviceMemoryLimit
     << (m_DeviceMemoryLimit ? " bytes" : " (90 % of the device)") << std::endl;
  os << indent << "HalfPrecisionDual: " << (m_HalfPrecisionDual ? "On" : "Off") << std::endl;
  os << indent << "DualStorage: " << m_Report.dualStorage << std::endl;
  os << indent << "StreamRegions: " << m_Report.streamRegions << std::endl;
  os << indent << "SolvedRegion: " << m_SolvedRegion.GetIndex() << " " << m_SolvedRegion.GetSize()
     << (m_StreamedChunk ? " (a streamed chunk: fixed iterations, gap stop off)" : "") << std::endl;
  os << indent << "NumberOfIterations: " << m_NumberOfIterations << std::endl;
  os << indent << "RelativeGap: " << m_RelativeGap << std::endl;
  os << indent << "Converged: " << (m_Converged ? "yes" : "no") << std::endl;
  os << indent << "LambdaUsed: " << m_LambdaUsed << std::endl;
  os << indent << "NoiseSigmaUsed: " << m_NoiseSigmaUsed << (m_NoiseSigmaEstimated ? " (estimated)" : "") << std::endl;
  os << indent << "Discrepancy: " << m_Discrepancy << std::endl;
  os << indent << "DiscrepancyTarget: " << m_DiscrepancyTarget << std::endl;
  os << indent << "MaximumDiscrepancy: " << m_MaximumDiscrepancy << std::endl;
  os << indent << "NumberOfLambdaSolves: " << m_NumberOfLambdaSolves << std::endl;
  os << indent << "ResidualGain: " << m_ResidualGain << (m_ResidualGainMeasured ? "" : " (not measured: white noise)")
     << std::endl;
  for (const auto & s : m_LambdaHistory)
  {
    os << indent << "  solve: lambda " << s.lambda << ", discrepancy " << s.discrepancy << ", " << s.iterations
       << " iterations, relative gap " << s.relativeGap << (s.converged ? "" : " (NOT converged)") << std::endl;
  }
  for (const std::string & warning : m_Report.warnings)
  {
    os << indent << "Warning: " << warning << std::endl;
  }
  os << indent << "ElapsedSeconds: " << m_ElapsedSeconds << std::endl;
}

} // namespace itk

#endif
