// SPDX-License-Identifier: Apache-2.0
#ifndef itkCompressedSensingRecoveryImageFilter_hxx
#define itkCompressedSensingRecoveryImageFilter_hxx

#include "itkCompressedSensingRecoveryImageFilter.h"

#include "itkGPURestorationCommon.h"

#include <vector>

namespace itk
{

template<typename TInputImage, typename TOutputImage>
gpur::SparseRecoveryParameters
CompressedSensingRecoveryImageFilter<TInputImage, TOutputImage>::MakeParameters() const
{
  gpur::SparseRecoveryParameters p;
  p.solver = GPURestoration::ToEngine(m_Solver);
  p.alpha = m_Alpha;
  p.relativeAlpha = m_RelativeAlpha;
  p.step = m_Step;
  p.threshold = GPURestoration::ToEngine(m_Threshold);
  p.rho = m_Rho;
  p.relativeSigma = m_RelativeSigma;
  p.dualStep = m_DualStep;
  p.nonnegative = m_Nonnegative;
  p.tolerance = m_Tolerance;
  p.gapTolerance = m_GapTolerance;
  p.maximumIterations = m_MaximumNumberOfIterations;
  p.checkInterval = m_CheckInterval;
  return p;
}

template<typename TInputImage, typename TOutputImage>
bool
CompressedSensingRecoveryImageFilter<TInputImage, TOutputImage>::RecordIteration(const gpur::SparseIterationInfo & info)
{
  m_IterationInfo = info;
  m_NumberOfIterations = info.iteration;
  this->InvokeEvent(IterationEvent());
  return !this->GetAbortGenerateData();
}

template<typename TInputImage, typename TOutputImage>
void
CompressedSensingRecoveryImageFilter<TInputImage, TOutputImage>::EngineGenerateData()
{
  const ImageType * input = this->GetInput();
  const gpur::SparseRecoveryParameters parameters = this->MakeParameters();
  parameters.Validate(); // before any allocation: a bad setting names itself
  const gpur::CirculantSensing sensing = this->MakeSensing(this->GetBlur(), this->GetNormalizeBlur());
  m_IterationInfo = gpur::SparseIterationInfo();
  m_NumberOfIterations = 0;
  m_Converged = false;

  std::vector<RealType> converted;
  const RealType * y = GPURestoration::PixelsAs<RealType>(input, converted);
  // The output keeps the measurement image's geometry (the superclass' GenerateOutputInformation) and meta-data.
  ImageType * output = this->GetOutput();
  output->SetBufferedRegion(output->GetRequestedRegion());
  output->Allocate();
  output->SetMetaDataDictionary(input->GetMetaDataDictionary());
  m_Report = gpur::RecoverSparse<RealType>(sensing,
                                           y,
                                           output->GetBufferPointer(),
                                           parameters,
                                           this->MakeExecutionOptions(),
                                           this->MakeProgressCallback(),
                                           [this](const gpur::SparseIterationInfo & info)
                                           { return this->RecordIteration(info); });
  if (!m_Report.history.empty())
  {
    m_IterationInfo = m_Report.history.back();
  }
  m_NumberOfIterations = m_Report.iterations;
  m_Converged = m_Report.converged;
  m_AlphaUsed = m_Report.alpha;
  m_RelativeGap = m_Report.relativeGap;
  m_RelativeResidual = m_Report.relativeResidual;
  m_NumberOfNonzeros = m_Report.nonzeros;
  m_ElapsedSeconds = m_Report.seconds;
  this->SetBackendUsed(m_Report.backend);
  for (const std::string & warning : m_Report.warnings)
  {
    itkWarningMacro(<< warning); // e.g. not converged within MaximumNumberOfIterations
  }
}

template<typename TInputImage, typename TOutputImage>
void
CompressedSensingRecoveryImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Solver: " << m_Solver << std::endl;
  os << indent << "Alpha: " << m_Alpha << (m_Alpha > 0.0 ? "" : " (RelativeAlpha * ||A^T y||_inf)") << std::endl;
  os << indent << "RelativeAlpha: " << m_RelativeAlpha << std::endl;
  os << indent << "Step: " << m_Step << (m_Step > 0.0 ? "" : " (1 / ||C B||^2)") << std::endl;
  os << indent << "Threshold: " << m_Threshold << std::endl;
  os << indent << "Rho: " << m_Rho << std::endl;
  os << indent << "RelativeSigma: " << m_RelativeSigma << std::endl;
  os << indent << "DualStep: " << m_DualStep << std::endl;
  os << indent << "Nonnegative: " << (m_Nonnegative ? "On" : "Off") << std::endl;
  os << indent << "Tolerance: " << m_Tolerance << std::endl;
  os << indent << "GapTolerance: " << m_GapTolerance << std::endl;
  os << indent << "MaximumNumberOfIterations: " << m_MaximumNumberOfIterations << std::endl;
  os << indent << "CheckInterval: " << m_CheckInterval << std::endl;
  os << indent << "NumberOfIterations: " << m_NumberOfIterations << std::endl;
  os << indent << "Converged: " << (m_Converged ? "yes" : "no") << std::endl;
  os << indent << "AlphaUsed: " << m_AlphaUsed << std::endl;
  os << indent << "RelativeGap: " << m_RelativeGap << std::endl;
  os << indent << "RelativeResidual: " << m_RelativeResidual << std::endl;
  os << indent << "NumberOfNonzeros: " << m_NumberOfNonzeros << std::endl;
  for (const std::string & warning : m_Report.warnings)
  {
    os << indent << "Warning: " << warning << std::endl;
  }
  os << indent << "ElapsedSeconds: " << m_ElapsedSeconds << std::endl;
}

} // namespace itk

#endif
