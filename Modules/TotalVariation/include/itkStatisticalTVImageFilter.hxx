// SPDX-License-Identifier: Apache-2.0
#ifndef itkStatisticalTVImageFilter_hxx
#define itkStatisticalTVImageFilter_hxx

#include "itkStatisticalTVImageFilter.h"

#include "itkGPURestorationCommon.h"

#include <cmath>
#include <sstream>
#include <string>

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
  if (this->GetNoiseSigma() != 0.0)
  {
    throw gpur::InvalidArgument("NoiseSigma is " + std::to_string(this->GetNoiseSigma()) +
                                "; the statistical filter takes the noise level as a variance image "
                                "(SetNoiseVariance, or estimated when none is given): leave NoiseSigma at 0");
  }
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
    const double factor = this->GetDiscrepancyFactor();
    parameters.discrepancyFactor = factor == 0.0 ? 1.0 : factor; // 0: the plain principle
    const gpur::StatisticalTVGDReport report =
      gpur::DenoiseStatisticalTVGD(f, variance, u, grid, parameters, execution, progress);
    gpur::TVNoiseLevelReport noLambda; // gradient descent has no lambda; its discrepancy, noise and gain
    noLambda.discrepancy = report.discrepancy;
    noLambda.noise = report.noise;
    this->RecordLambdaChoice(noLambda, std::sqrt(report.meanVariance), report.varianceEstimated);
    m_VarianceEstimated = report.varianceEstimated;
    m_MeanVariance = report.meanVariance;
    m_VarianceRange = report.varianceRange;
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
  parameters.automaticLambda = this->IsLambdaAutomatic();
  parameters.discrepancyFactor = this->GetDiscrepancyFactor();
  const gpur::StatisticalTVReport report =
    gpur::DenoiseStatisticalTV(f, variance, u, grid, parameters, execution, progress);
  this->RecordLambdaChoice(report, std::sqrt(report.meanVariance), report.varianceEstimated);
  m_VarianceEstimated = report.varianceEstimated;
  m_MeanVariance = report.meanVariance;
  m_VarianceRange = report.varianceRange;
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
  os << indent << "Method: " << m_Method << std::endl;
  os << indent << "StepLength: " << m_StepLength << " (" << m_StepUnit << ")" << std::endl;
  os << indent << "Delta: " << m_Delta << std::endl;
  os << indent << "TargetResidual: " << m_TargetResidual << std::endl;
  os << indent << "StopAtDiscrepancy: " << (m_StopAtDiscrepancy ? "on" : "off") << std::endl;
  os << indent << "VarianceEstimated: " << (m_VarianceEstimated ? "yes" : "no") << std::endl;
  os << indent << "MeanVariance: " << m_MeanVariance << std::endl;
  os << indent << "VarianceRange: " << m_VarianceRange << std::endl;
  os << indent << "Residual: " << m_Residual << std::endl;
  os << indent << "TargetResidualUsed: " << m_TargetResidualUsed << std::endl;
  os << indent << "TargetReached: " << (m_TargetReached ? "yes" : "no") << std::endl;
}

} // namespace itk

#endif
