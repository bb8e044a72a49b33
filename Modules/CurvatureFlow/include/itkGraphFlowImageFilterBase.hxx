// SPDX-License-Identifier: Apache-2.0
#ifndef itkGraphFlowImageFilterBase_hxx
#define itkGraphFlowImageFilterBase_hxx

#include "itkGraphFlowImageFilterBase.h"

#include "itkGPURestorationCommon.h"

#include <vector>

namespace itk
{

template<typename TInputImage, typename TOutputImage>
GraphFlowImageFilterBase<TInputImage, TOutputImage>::GraphFlowImageFilterBase(gpur::GraphFlowType flow)
  : m_Flow(flow)
{
}

template<typename TInputImage, typename TOutputImage>
gpur::GraphFlowParameters
GraphFlowImageFilterBase<TInputImage, TOutputImage>::MakeParameters() const
{
  gpur::GraphFlowParameters p;
  p.flow = m_Flow;
  p.finalTime = m_FinalTime;
  p.tolerance = m_Tolerance;
  p.regularization = m_Regularization;
  p.boundary = GPURestoration::ToEngine(m_BoundaryCondition);
  p.initialStep = m_InitialTimeStep;
  p.maximumSteps = m_MaximumNumberOfSteps;
  return p;
}

template<typename TInputImage, typename TOutputImage>
void
GraphFlowImageFilterBase<TInputImage, TOutputImage>::EngineGenerateData()
{
  m_Report = gpur::MersonReport();
  m_NumberOfAcceptedSteps = m_NumberOfRejectedSteps = 0;
  m_TimeReached = 0.0;
  const TInputImage * input = this->GetInput();
  const typename TInputImage::RegionType region = this->WholeInputRegion();
  const gpur::Grid grid = GPURestoration::MakeGrid(input, region);
  const gpur::GraphFlowParameters parameters = this->MakeParameters();
  parameters.Validate(grid); // before any allocation: a bad setting or a too small image names itself

  std::vector<OutputPixelType> converted; // other pixel types are cast to the output's here
  const OutputPixelType * f = GPURestoration::PixelsAs<OutputPixelType>(input, region, converted);
  // The engine keeps its own state: the output is written once, at the end, by Read.
  gpur::GraphFlow<OutputPixelType> flow(f, grid, parameters, this->MakeExecutionOptions());
  m_Report = flow.AdvanceTo(parameters.finalTime, this->MakeProgressCallback());
  // The output keeps the input's geometry (the superclass' GenerateOutputInformation) and meta-data.
  TOutputImage * output = this->GetOutput();
  output->SetBufferedRegion(output->GetRequestedRegion());
  output->Allocate();
  output->SetMetaDataDictionary(input->GetMetaDataDictionary());
  flow.Read(output->GetBufferPointer());
  m_NumberOfAcceptedSteps = m_Report.accepted;
  m_NumberOfRejectedSteps = m_Report.rejected;
  m_TimeReached = m_Report.time;
  this->SetBackendUsed(flow.Backend());
}

template<typename TInputImage, typename TOutputImage>
void
GraphFlowImageFilterBase<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Flow: " << gpur::ToString(m_Flow) << std::endl;
  os << indent << "FinalTime: " << m_FinalTime << std::endl;
  os << indent << "Tolerance: " << m_Tolerance << std::endl;
  os << indent << "Regularization: " << m_Regularization << std::endl;
  os << indent << "BoundaryCondition: " << m_BoundaryCondition << std::endl;
  os << indent << "InitialTimeStep: " << m_InitialTimeStep << (m_InitialTimeStep > 0.0 ? "" : " (automatic)")
     << std::endl;
  os << indent << "MaximumNumberOfSteps: " << m_MaximumNumberOfSteps << std::endl;
  os << indent << "NumberOfAcceptedSteps: " << m_NumberOfAcceptedSteps << std::endl;
  os << indent << "NumberOfRejectedSteps: " << m_NumberOfRejectedSteps << std::endl;
  os << indent << "TimeReached: " << m_TimeReached << std::endl;
  os << indent << "NextTimeStep: " << m_Report.step << std::endl;
  os << indent << "LastErrorEstimate: " << m_Report.error << std::endl;
}

} // namespace itk

#endif
