#ifndef itkTotalVariationDenoisingImageFilter_hxx
#define itkTotalVariationDenoisingImageFilter_hxx

#include "itkTotalVariationDenoisingImageFilter.h"

#include "itkGPURestorationCommon.h"

namespace itk
{

template<typename TInputImage, typename TOutputImage>
void
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  if (auto * input = const_cast<TInputImage *>(this->GetInput()))
  {
    input->SetRequestedRegionToLargestPossibleRegion();
  }
}

template<typename TInputImage, typename TOutputImage>
void
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::EnlargeOutputRequestedRegion(DataObject * output)
{
  Superclass::EnlargeOutputRequestedRegion(output);
  output->SetRequestedRegionToLargestPossibleRegion();
}

template<typename TInputImage, typename TOutputImage>
gpur::TVParameters
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::MakeParameters() const
{
  gpur::TVParameters p;
  p.lambda = m_Lambda;
  p.algorithm = m_Algorithm;
  p.maxIterations = m_MaximumNumberOfIterations;
  p.gapTolerance = m_GapTolerance;
  p.gapCheckInterval = m_GapCheckInterval;
  p.pduOffset = m_PDUOffset;
  p.exchangeInterval = m_ExchangeInterval;
  return p;
}

template<typename TInputImage, typename TOutputImage>
gpur::TVReport
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::Solve(const RealType * f,
                                                                     RealType * u,
                                                                     const gpur::Grid & grid,
                                                                     const gpur::ExecutionOptions & execution,
                                                                     const gpur::IterationCallback & progress)
{
  return gpur::DenoiseTV(f, u, grid, this->MakeParameters(), execution, progress);
}

template<typename TInputImage, typename TOutputImage>
void
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::GenerateData()
{
  const TInputImage * input = this->GetInput();
  TOutputImage * output = this->GetOutput();
  m_BackendUsed.clear();

  gpur::ExecutionOptions execution;
  execution.backend = m_Backend;
  execution.device = m_Device;
  execution.parallelFor = GPURestoration::MakeParallelFor(this->GetNumberOfWorkUnits());

  const gpur::Grid grid = GPURestoration::MakeGrid(input);
  const gpur::TVParameters parameters = this->MakeParameters();
  std::vector<RealType> converted;
  const RealType * f = nullptr;
  itkGPURestorationCallEngine(grid.Validate(); parameters.Validate());
  f = GPURestoration::PixelsAs<RealType>(input, converted);

  // The output keeps the input's geometry (done by the superclass' GenerateOutputInformation).
  output->SetBufferedRegion(output->GetRequestedRegion());
  output->Allocate();
  this->UpdateProgress(0.0f);
  const auto progress = [this](unsigned done, unsigned maximum)
  {
    this->UpdateProgress(static_cast<float>(done) / static_cast<float>(maximum));
    return !this->GetAbortGenerateData();
  };
  try
  {
    itkGPURestorationCallEngine(m_Report = this->Solve(f, output->GetBufferPointer(), grid, execution, progress));
  }
  catch (...)
  {
    output->Initialize(); // no partial result is left behind
    throw;
  }
  m_NumberOfIterations = m_Report.iterations;
  m_RelativeGap = m_Report.relativeGap;
  m_PrimalEnergy = m_Report.primal;
  m_DualEnergy = m_Report.dual;
  m_Converged = m_Report.converged;
  m_ElapsedSeconds = m_Report.seconds;
  m_BackendUsed = m_Report.backend.Describe();
  this->UpdateProgress(1.0f);
}

template<typename TInputImage, typename TOutputImage>
void
TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Lambda: " << m_Lambda << std::endl;
  os << indent << "Algorithm: " << gpur::ToString(m_Algorithm) << std::endl;
  os << indent << "MaximumNumberOfIterations: " << m_MaximumNumberOfIterations << std::endl;
  os << indent << "GapTolerance: " << m_GapTolerance << std::endl;
  os << indent << "GapCheckInterval: " << m_GapCheckInterval << std::endl;
  os << indent << "PDUOffset: " << m_PDUOffset << std::endl;
  os << indent << "ExchangeInterval: " << m_ExchangeInterval << std::endl;
  os << indent << "Backend: " << gpur::ToString(m_Backend) << std::endl;
  os << indent << "Device: " << (m_Device.empty() ? "(default)" : m_Device) << std::endl;
  os << indent << "BackendUsed: " << (m_BackendUsed.empty() ? "(not run)" : m_BackendUsed) << std::endl;
  os << indent << "NumberOfIterations: " << m_NumberOfIterations << std::endl;
  os << indent << "RelativeGap: " << m_RelativeGap << std::endl;
  os << indent << "Converged: " << (m_Converged ? "yes" : "no") << std::endl;
  os << indent << "ElapsedSeconds: " << m_ElapsedSeconds << std::endl;
}

} // namespace itk

#endif
