// SPDX-License-Identifier: Apache-2.0
#ifndef itkStatisticalTVImageFilter_hxx
#define itkStatisticalTVImageFilter_hxx

#include "itkStatisticalTVImageFilter.h"

#include "itkGPURestorationCommon.h"

#include <cmath>
#include <sstream>

namespace itk
{

template<typename TInputImage, typename TOutputImage>
StatisticalTVImageFilter<TInputImage, TOutputImage>::StatisticalTVImageFilter()
{
  this->AddOptionalInputName("NoiseVariance");
}

template<typename TInputImage, typename TOutputImage>
void
StatisticalTVImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  if (auto * variance = const_cast<VarianceImageType *>(this->GetNoiseVariance()))
  {
    variance->SetRequestedRegionToLargestPossibleRegion();
  }
}

template<typename TInputImage, typename TOutputImage>
void
StatisticalTVImageFilter<TInputImage, TOutputImage>::EnlargeOutputRequestedRegion(DataObject * output)
{
  Superclass::EnlargeOutputRequestedRegion(output);
  output->SetRequestedRegionToLargestPossibleRegion();
}

template<typename TInputImage, typename TOutputImage>
void
StatisticalTVImageFilter<TInputImage, TOutputImage>::VerifyInputInformation() ITKv5_CONST
{
  Superclass::VerifyInputInformation(); // origin, spacing and direction
  const VarianceImageType * variance = this->GetNoiseVariance();
  if (variance != nullptr && variance->GetLargestPossibleRegion() != this->GetInput()->GetLargestPossibleRegion())
  {
    itkExceptionMacro(<< "the noise-variance image covers " << variance->GetLargestPossibleRegion()
                      << " but the input covers " << this->GetInput()->GetLargestPossibleRegion()
                      << "; the variance must be given on the input's grid");
  }
}

template<typename TInputImage, typename TOutputImage>
gpur::TVReport
StatisticalTVImageFilter<TInputImage, TOutputImage>::Solve(const RealType * f,
                                                           RealType * u,
                                                           const gpur::Grid & grid,
                                                           const gpur::ExecutionOptions & execution,
                                                           const gpur::ProgressCallback & progress)
{
  std::vector<RealType> converted;
  const VarianceImageType * varianceImage = this->GetNoiseVariance();
  const RealType * variance = varianceImage ? GPURestoration::PixelsAs<RealType>(varianceImage, converted) : nullptr;
  if (m_Method != MethodEnum::PrimalDual)
  {
    if (m_AutomaticLambda)
    {
      std::ostringstream message;
      message << "AutomaticLambda chooses the lambda of the PrimalDual method; the " << m_Method
              << " method has none: use StopAtDiscrepancy (or TargetResidual) instead";
      throw gpur::InvalidArgument(message.str());
    }
    gpur::StatisticalTVGDParameters parameters;
    parameters.gd.lambda = m_StepLength;
    parameters.gd.stepUnit = GPURestoration::ToEngine(m_StepUnit);
    parameters.gd.iterations = this->GetMaximumNumberOfIterations();
    parameters.gd.targetResidual = m_TargetResidual;
    parameters.gd.variant =
      m_Method == MethodEnum::GradientDescent ? gpur::TVGDVariant::TV : gpur::TVGDVariant::AdaptiveWeightedTV;
    parameters.gd.delta = m_Delta;
    parameters.stopAtDiscrepancy = m_StopAtDiscrepancy;
    parameters.discrepancyFactor = m_DiscrepancyFactor == 0.0 ? 1.0 : m_DiscrepancyFactor; // 0: the plain principle
    const gpur::StatisticalTVGDReport report =
      gpur::DenoiseStatisticalTVGD(f, variance, u, grid, parameters, execution, progress);
    m_LambdaUsed = 0.0;
    m_NumberOfLambdaSolves = 0;
    m_Discrepancy = report.discrepancy;
    m_VarianceEstimated = report.varianceEstimated;
    m_MeanVariance = report.meanVariance;
    m_VarianceRange = report.varianceRange;
    m_DiscrepancyTarget = 0.0;
    m_MaximumDiscrepancy = 0.0;
    m_LambdaHistory.clear();
    m_ResidualGain = report.noise.residualGain;
    m_ResidualGainMeasured = report.noise.gainMeasured;
    m_Residual = report.gd.residual;
    m_TargetResidualUsed = report.targetResidual;
    m_TargetReached = report.gd.targetReached;
    // The superclass reports iterations, time and backend from a TVReport; "converged" is "the target was reached".
    gpur::TVReport tv;
    tv.backend = report.gd.backend;
    tv.iterations = report.gd.iterations;
    tv.converged = report.gd.targetReached;
    tv.seconds = report.gd.seconds;
    return tv;
  }
  gpur::StatisticalTVParameters parameters;
  parameters.tv = this->MakeParameters();
  parameters.weightExponent = m_WeightExponent;
  parameters.automaticLambda = m_AutomaticLambda;
  parameters.discrepancyFactor = m_DiscrepancyFactor;
  const gpur::StatisticalTVReport report =
    gpur::DenoiseStatisticalTV(f, variance, u, grid, parameters, execution, progress);
  m_LambdaUsed = report.lambda;
  m_Discrepancy = report.discrepancy;
  m_VarianceEstimated = report.varianceEstimated;
  m_MeanVariance = report.meanVariance;
  m_VarianceRange = report.varianceRange;
  m_NumberOfLambdaSolves = report.solves;
  m_DiscrepancyTarget = report.discrepancyTarget;
  m_MaximumDiscrepancy = report.maximumDiscrepancy;
  m_LambdaHistory = report.lambdaHistory;
  m_ResidualGain = report.varianceEstimated ? report.noise.residualGain : report.residualGain;
  m_ResidualGainMeasured = report.varianceEstimated ? report.noise.gainMeasured : report.residualGainMeasured;
  double residual = 0.0;
  for (std::size_t i = 0; i < grid.Count(); ++i)
  {
    const double d = static_cast<double>(u[i]) - static_cast<double>(f[i]);
    residual += d * d;
  }
  m_Residual = std::sqrt(residual);
  m_TargetResidualUsed = 0.0;
  m_TargetReached = false;
  return report.tv;
}

template<typename TInputImage, typename TOutputImage>
void
StatisticalTVImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "WeightExponent: " << m_WeightExponent << std::endl;
  os << indent << "AutomaticLambda: " << (m_AutomaticLambda ? "on" : "off") << std::endl;
  os << indent << "DiscrepancyFactor: " << m_DiscrepancyFactor << (m_DiscrepancyFactor > 0.0 ? "" : " (calibrated)")
     << std::endl;
  os << indent << "Method: " << m_Method << std::endl;
  os << indent << "StepLength: " << m_StepLength << " (" << m_StepUnit << ")" << std::endl;
  os << indent << "Delta: " << m_Delta << std::endl;
  os << indent << "TargetResidual: " << m_TargetResidual << std::endl;
  os << indent << "StopAtDiscrepancy: " << (m_StopAtDiscrepancy ? "on" : "off") << std::endl;
  os << indent << "LambdaUsed: " << m_LambdaUsed << std::endl;
  os << indent << "Discrepancy: " << m_Discrepancy << std::endl;
  os << indent << "VarianceEstimated: " << (m_VarianceEstimated ? "yes" : "no") << std::endl;
  os << indent << "MeanVariance: " << m_MeanVariance << std::endl;
  os << indent << "NumberOfLambdaSolves: " << m_NumberOfLambdaSolves << std::endl;
  os << indent << "DiscrepancyTarget: " << m_DiscrepancyTarget << std::endl;
  os << indent << "MaximumDiscrepancy: " << m_MaximumDiscrepancy << std::endl;
  os << indent << "VarianceRange: " << m_VarianceRange << std::endl;
  os << indent << "ResidualGain: " << m_ResidualGain << (m_ResidualGainMeasured ? "" : " (not measured: white noise)")
     << std::endl;
  for (const auto & s : m_LambdaHistory)
  {
    os << indent << "  solve: lambda " << s.lambda << ", discrepancy " << s.discrepancy << ", " << s.iterations
       << " iterations, relative gap " << s.relativeGap << (s.converged ? "" : " (NOT converged)") << std::endl;
  }
  os << indent << "Residual: " << m_Residual << std::endl;
  os << indent << "TargetResidualUsed: " << m_TargetResidualUsed << std::endl;
  os << indent << "TargetReached: " << (m_TargetReached ? "yes" : "no") << std::endl;
}

} // namespace itk

#endif
