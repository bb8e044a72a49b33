#ifndef itkStatisticalTVImageFilter_hxx
#define itkStatisticalTVImageFilter_hxx

#include "itkStatisticalTVImageFilter.h"

#include "itkGPURestorationCommon.h"

namespace itk
{

template<typename TInputImage, typename TOutputImage>
StatisticalTVImageFilter<TInputImage, TOutputImage>::StatisticalTVImageFilter()
{
  this->AddOptionalInputName("NoiseVariance");
  this->SetAlgorithm(gpur::TVAlgorithm::PDU); // the thesis' S-PDU
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
                                                           const gpur::IterationCallback & progress)
{
  gpur::StatisticalTVParameters parameters;
  parameters.tv = this->MakeParameters();
  parameters.weightExponent = m_WeightExponent;
  parameters.automaticLambda = m_AutomaticLambda;
  parameters.discrepancyFactor = m_DiscrepancyFactor;
  std::vector<RealType> converted;
  const VarianceImageType * varianceImage = this->GetNoiseVariance();
  const RealType * variance = varianceImage ? GPURestoration::PixelsAs<RealType>(varianceImage, converted) : nullptr;
  const gpur::StatisticalTVReport report =
    gpur::DenoiseStatisticalTV(f, variance, u, grid, parameters, execution, progress);
  m_LambdaUsed = report.lambda;
  m_Discrepancy = report.discrepancy;
  m_VarianceEstimated = report.varianceEstimated;
  m_MeanVariance = report.meanVariance;
  m_NumberOfLambdaSolves = report.solves;
  return report.tv;
}

template<typename TInputImage, typename TOutputImage>
void
StatisticalTVImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "WeightExponent: " << m_WeightExponent << std::endl;
  os << indent << "AutomaticLambda: " << (m_AutomaticLambda ? "on" : "off") << std::endl;
  os << indent << "DiscrepancyFactor: " << m_DiscrepancyFactor << std::endl;
  os << indent << "LambdaUsed: " << m_LambdaUsed << std::endl;
  os << indent << "Discrepancy: " << m_Discrepancy << std::endl;
  os << indent << "VarianceEstimated: " << (m_VarianceEstimated ? "yes" : "no") << std::endl;
  os << indent << "MeanVariance: " << m_MeanVariance << std::endl;
  os << indent << "NumberOfLambdaSolves: " << m_NumberOfLambdaSolves << std::endl;
}

} // namespace itk

#endif
