#ifndef itkStatisticalTVImageFilter_h
#define itkStatisticalTVImageFilter_h

#include "gpurStatisticalTV.h"
#include "itkTotalVariationDenoisingImageFilter.h"

namespace itk
{

/**
 * \class StatisticalTVImageFilter
 * \brief Statistical (noise-weighted) TV denoising for CT volumes, on OpenCL or the CPU.
 *
 * Solves  min_u (lambda/2) sum_i (u_i - f_i)^2 / w_i + TV(u)  (the thesis'
 * S-PDU model, seed 001), where w = var^gamma / mean(var^gamma) comes from a
 * per-voxel noise-variance image: the optional second input (SetNoiseVariance,
 * same grid as the image), or, when none is given, a map estimated from the
 * image itself (gpur::EstimateNoiseVariance). Noisier voxels are smoothed more.
 *
 * SetAutomaticLambda(true) chooses lambda by the discrepancy principle:
 * sum (u - f)^2 / var = DiscrepancyFactor * N, so a user with a known or
 * estimated noise level sets no lambda at all (Lambda is the first guess).
 *
 * Everything else is the TotalVariationDenoisingImageFilter's: the method
 * (default PDU here, the thesis' algorithm; the Chambolle-Pock methods accept
 * the weights too), the gap stop, backends, devices and multi-device slabs
 * (SetDevice("all")), progress, abort, and the kept geometry.
 *
 * \ingroup ITKGPURestorationTotalVariation
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class StatisticalTVImageFilter : public TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(StatisticalTVImageFilter);

  using Self = StatisticalTVImageFilter;
  using Superclass = TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::RealType;
  /** The noise-variance image: the output's real pixel type on the same grid. */
  using VarianceImageType = TOutputImage;

  itkNewMacro(Self);
  itkTypeMacro(StatisticalTVImageFilter, TotalVariationDenoisingImageFilter);

  /** Optional per-voxel noise variance (finite, > 0), same size, spacing, origin and direction as the input. */
  itkSetInputMacro(NoiseVariance, VarianceImageType);
  itkGetInputMacro(NoiseVariance, VarianceImageType);

  /** gamma of w = var^gamma (normalised by its mean); 0 is plain TV. Default 1. */
  itkSetMacro(WeightExponent, double);
  itkGetConstMacro(WeightExponent, double);
  /** Choose lambda by the discrepancy principle. Default off. */
  itkSetMacro(AutomaticLambda, bool);
  itkGetConstMacro(AutomaticLambda, bool);
  itkBooleanMacro(AutomaticLambda);
  /** Target of sum (u - f)^2 / var / N for the automatic lambda. Default 1. */
  itkSetMacro(DiscrepancyFactor, double);
  itkGetConstMacro(DiscrepancyFactor, double);

  /** Results of the last update. */
  itkGetConstMacro(LambdaUsed, double);
  itkGetConstMacro(Discrepancy, double);
  itkGetConstMacro(VarianceEstimated, bool);
  itkGetConstMacro(MeanVariance, double);
  itkGetConstMacro(NumberOfLambdaSolves, unsigned int);

protected:
  StatisticalTVImageFilter();
  ~StatisticalTVImageFilter() override = default;

  /** Both inputs are needed whole. */
  void
  GenerateInputRequestedRegion() override;
  /** Adds to ITK's physical-space check: the variance image must have the input's size. */
  void
  VerifyInputInformation() ITKv5_CONST override;
  gpur::TVReport
  Solve(const RealType * f,
        RealType * u,
        const gpur::Grid & grid,
        const gpur::ExecutionOptions & execution,
        const gpur::IterationCallback & progress) override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  double m_WeightExponent{ 1.0 };
  bool m_AutomaticLambda{ false };
  double m_DiscrepancyFactor{ 1.0 };

  double m_LambdaUsed{ 0.0 };
  double m_Discrepancy{ 0.0 };
  bool m_VarianceEstimated{ false };
  double m_MeanVariance{ 0.0 };
  unsigned int m_NumberOfLambdaSolves{ 0 };
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkStatisticalTVImageFilter.hxx"
#endif

#ifndef itkStatisticalTVImageFilter_cxx
// The common image types are compiled into the library (src/itkStatisticalTVImageFilter.cxx).
namespace itk
{
extern template class StatisticalTVImageFilter<Image<float, 2>>;
extern template class StatisticalTVImageFilter<Image<float, 3>>;
extern template class StatisticalTVImageFilter<Image<double, 2>>;
extern template class StatisticalTVImageFilter<Image<double, 3>>;
} // namespace itk
#endif

#endif
