// SPDX-License-Identifier: Apache-2.0
#ifndef itkL1MeanCurvatureDenoiseImageFilter_hxx
#define itkL1MeanCurvatureDenoiseImageFilter_hxx

#include "itkL1MeanCurvatureDenoiseImageFilter.h"

#include "itkGPURestorationCommon.h"

#include <vector>

namespace itk
{

template<typename TInputImage, typename TOutputImage>
gpur::L1MCParameters
L1MeanCurvatureDenoiseImageFilter<TInputImage, TOutputImage>::MakeParameters() const
{
  gpur::L1MCParameters p;
  p.r0 = m_R0;
  p.noiseSigma = m_NoiseSigma;
  p.meshSize = m_MeshSize;
  p.dataRange = m_DataRange;
  p.epsilon = m_Epsilon;
  p.r1 = m_R1;
  p.r2 = m_R2;
  p.r3 = m_R3;
  p.maxIterations = m_MaximumNumberOfIterations;
  p.tolerance = m_Tolerance;
  p.initialization = GPURestoration::ToEngine(m_Initialization);
  p.cornerMass = GPURestoration::ToEngine(m_CornerMass);
  p.sub2Solver = GPURestoration::ToEngine(m_Sub2Solver);
  return p;
}

template<typename TInputImage, typename TOutputImage>
bool
L1MeanCurvatureDenoiseImageFilter<TInputImage, TOutputImage>::RecordIteration(const gpur::L1MCIterationInfo & info)
{
  m_IterationInfo = info;
  m_NumberOfIterations = info.iteration;
  m_Objective = info.objective;
  m_Lagrangian = info.lagrangian;
  m_RelativeChange = info.relativeChange;
  m_R1Residual = info.r1Residual;
  m_R2Residual = info.r2Residual;
  m_R3Residual = info.r3Residual;
  this->InvokeEvent(IterationEvent());
  return !this->GetAbortGenerateData();
}

template<typename TInputImage, typename TOutputImage>
void
L1MeanCurvatureDenoiseImageFilter<TInputImage, TOutputImage>::EngineGenerateData()
{
  const TInputImage * input = this->GetInput();
  TOutputImage * output = this->GetOutput();
  const typename TInputImage::RegionType region = this->WholeInputRegion();
  const gpur::Grid grid = GPURestoration::MakeGrid(input, region);
  const gpur::L1MCParameters parameters = this->MakeParameters();
  parameters.Validate(); // before any allocation: a bad setting names itself
  m_IterationInfo = gpur::L1MCIterationInfo();
  m_NumberOfIterations = 0;
  m_Converged = false;

  std::vector<RealType> converted;
  const RealType * f = GPURestoration::PixelsAs<RealType>(input, region, converted);
  // The output keeps the input's geometry (done by the superclass' GenerateOutputInformation).
  output->SetBufferedRegion(output->GetRequestedRegion());
  output->Allocate();
  m_Report = gpur::DenoiseL1MeanCurvature<RealType>(f,
                                                    output->GetBufferPointer(),
                                                    grid,
                                                    parameters,
                                                    this->MakeExecutionOptions(),
                                                    this->MakeProgressCallback(),
                                                    [this](const gpur::L1MCIterationInfo & info)
                                                    { return this->RecordIteration(info); });
  m_IterationInfo = m_Report.last;
  m_NumberOfIterations = m_Report.iterations;
  m_Objective = m_Report.last.objective;
  m_Lagrangian = m_Report.last.lagrangian;
  m_RelativeChange = m_Report.last.relativeChange;
  m_R1Residual = m_Report.last.r1Residual;
  m_R2Residual = m_Report.last.r2Residual;
  m_R3Residual = m_Report.last.r3Residual;
  m_Converged = m_Report.converged;
  m_ElapsedSeconds = m_Report.seconds;
  m_R0Used = m_Report.r0;
  m_MeshSizeUsed = m_Report.meshSize;
  m_DataRangeUsed = m_Report.dataRange;
  m_NoiseSigmaUsed = m_Report.noiseSigma;
  m_NoiseSigmaEstimated = m_Report.sigmaEstimated;
  this->SetBackendUsed(m_Report.backend);
  for (const std::string & warning : m_Report.warnings)
  {
    itkWarningMacro(<< warning); // e.g. not converged within MaximumNumberOfIterations
  }
}

template<typename TInputImage, typename TOutputImage>
void
L1MeanCurvatureDenoiseImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "R0: " << m_R0 << (m_R0 > 0.0 ? "" : " (from the noise level)") << std::endl;
  os << indent << "NoiseSigma: " << m_NoiseSigma << (m_NoiseSigma > 0.0 ? "" : " (estimated)") << std::endl;
  os << indent << "MeshSize: " << m_MeshSize << (m_MeshSize > 0.0 ? "" : " (1 / (max(width, height) - 1))")
     << std::endl;
  os << indent << "DataRange: " << m_DataRange << (m_DataRange > 0.0 ? "" : " (max - min of the input)") << std::endl;
  os << indent << "Epsilon: " << m_Epsilon << (m_Epsilon > 0.0 ? "" : " (R0 h)") << std::endl;
  os << indent << "R1: " << m_R1 << (m_R1 > 0.0 ? "" : " (10 R0 h)") << std::endl;
  os << indent << "R2: " << m_R2 << (m_R2 > 0.0 ? "" : " (5 R0)") << std::endl;
  os << indent << "R3: " << m_R3 << (m_R3 > 0.0 ? "" : " (5 R0 h^2)") << std::endl;
  os << indent << "MaximumNumberOfIterations: " << m_MaximumNumberOfIterations << std::endl;
  os << indent << "Tolerance: " << m_Tolerance << std::endl;
  os << indent << "Initialization: " << m_Initialization << std::endl;
  os << indent << "CornerMass: " << m_CornerMass << std::endl;
  os << indent << "Sub2Solver: " << m_Sub2Solver << std::endl;
  os << indent << "R0Used: " << m_R0Used << std::endl;
  os << indent << "MeshSizeUsed: " << m_MeshSizeUsed << std::endl;
  os << indent << "DataRangeUsed: " << m_DataRangeUsed << std::endl;
  os << indent << "NoiseSigmaUsed: " << m_NoiseSigmaUsed << (m_NoiseSigmaEstimated ? " (estimated)" : "") << std::endl;
  os << indent << "NumberOfIterations: " << m_NumberOfIterations << std::endl;
  os << indent << "Converged: " << (m_Converged ? "yes" : "no") << std::endl;
  os << indent << "Objective: " << m_Objective << std::endl;
  os << indent << "Lagrangian: " << m_Lagrangian << std::endl;
  os << indent << "RelativeChange: " << m_RelativeChange << std::endl;
  os << indent << "R1Residual: " << m_R1Residual << std::endl;
  os << indent << "R2Residual: " << m_R2Residual << std::endl;
  os << indent << "R3Residual: " << m_R3Residual << std::endl;
  for (const std::string & warning : m_Report.warnings)
  {
    os << indent << "Warning: " << warning << std::endl;
  }
  os << indent << "ElapsedSeconds: " << m_ElapsedSeconds << std::endl;
}

} // namespace itk

#endif
