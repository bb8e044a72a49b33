// SPDX-License-Identifier: Apache-2.0
#ifndef itkStatisticalTVImageFilter_h
#define itkStatisticalTVImageFilter_h

#include "gpurStatisticalTV.h"
#include "itkTotalVariationDenoisingImageFilter.h"

namespace itk
{

/**
 * \class StatisticalTVImageFilterEnums
 * \brief The methods of StatisticalTVImageFilter and the unit of its gradient-descent steps.
 * \ingroup ITKGPURestorationTotalVariation
 */
class StatisticalTVImageFilterEnums
{
public:
  /** The method that computes the result (SetMethod). */
  enum class Method : uint8_t
  {
    /** The noise-weighted ROF model, solved by the primal-dual Algorithm (S-PDU by default). */
    PrimalDual,
    /** TV gradient descent (TV-GD, [Huang2023, Algorithm 2]): normalised steps of StepLength, no weights. */
    GradientDescent,
    /** Adaptive-weighted TV gradient descent (AW-TV): edges steeper than Delta are smoothed less. */
    AdaptiveWeightedGradientDescent
  };
  /** The unit of StepLength (twins of gpur::TVGDStepUnit). */
  enum class StepUnit : uint8_t
  {
    /** The step in the global L2 norm, ||u^{k+1} - u^k||_2. */
    L2Norm = static_cast<uint8_t>(gpur::TVGDStepUnit::L2Norm),
    /** The root-mean-square change per voxel (L2 step / sqrt(N)): one value suits every volume size. */
    RMS = static_cast<uint8_t>(gpur::TVGDStepUnit::RMS)
  };
};
/** "PrimalDual", "GradientDescent", "AdaptiveWeightedGradientDescent". */
extern std::ostream &
operator<<(std::ostream & out, StatisticalTVImageFilterEnums::Method value);

namespace GPURestoration
{
template<>
struct EngineEnum<StatisticalTVImageFilterEnums::StepUnit>
{
  using Type = gpur::TVGDStepUnit;
};
} // namespace GPURestoration

/**
 * \class StatisticalTVImageFilter
 * \brief Statistical (noise-weighted) TV denoising for CT volumes, on OpenCL or the CPU.
 *
 * Solves  min_u (lambda/2) sum_i (u_i - f_i)^2 / w_i + TV(u)  (the statistical
 * ROF model of [Huang2023, eq. (2.5)]), where w = var^gamma / mean(var^gamma) comes from a
 * per-voxel noise-variance image: the optional second input (SetNoiseVariance,
 * same grid as the image), or, when none is given, a map estimated from the
 * image itself (gpur::EstimateNoiseVariance, right for the correlated noise of
 * CT reconstructions too). Noisier voxels are smoothed more.
 *
 * The automatic lambda (Lambda 0, the default since plain TV's default became
 * automatic too, or SetAutomaticLambda(true) with any Lambda) chooses lambda by
 * the discrepancy principle: sum (u - f)^2 / var = DiscrepancyFactor * N on
 * converged solves (the search gpur::SearchDiscrepancyLambda that plain TV
 * shares), so a user with a known or estimated noise level sets no lambda at
 * all. A Lambda > 0 without AutomaticLambda is used as given. The noise level
 * is the variance image (NoiseSigma is plain TV's and refused here). DiscrepancyFactor 0 (the default) calibrates the
 * factor from the noise's spectrum (gpur::CalibratedDiscrepancyFactor: 0.9 for white noise, about 0.7 for a Ram-Lak
 * FBP), which puts the result within a few hundredths of a dB of the PSNR-best lambda on the tested CT scans. A factor
 * that no lambda reaches (at or above GetMaximumDiscrepancy()) throws, naming the reachable range. The result scales
 * with the data (image x c, variance x c^2: output x c, lambda / c).
 *
 * Everything else is the TotalVariationDenoisingImageFilter's: the algorithm
 * (default: accelerated Chambolle-Pock, which meets the default gap tolerance
 * within the default iterations on CT volumes where PDU [Huang2023, Algorithm 1] does not;
 * PDU, i.e. S-PDU [Huang2023, Algorithm 3], on request), the gap stop, backends, devices and
 * multi-device slabs (SetDevice("all")), progress, abort, and the kept geometry.
 *
 * It does not stream: the weights are normalised by the mean of var^gamma over
 * the whole volume, and the estimated variance and the automatic lambda are
 * global too, so a chunk cannot reproduce the whole-volume result. The whole
 * output is produced at once from the whole inputs, also under a streaming
 * writer (which then writes that one result in pieces).
 *
 * SetMethod(GradientDescent | AdaptiveWeightedGradientDescent) runs the
 * second method of [Huang2023] instead (TV-GD, its Algorithm 2; gpur::DenoiseTVGD): u^0 = f, then
 * MaximumNumberOfIterations steps of length StepLength along the normalised
 * negative TV gradient. It has no data term, so the iterations set the
 * smoothing; it stops early at a target ||u - f||: TargetResidual, or with
 * StopAtDiscrepancy ||u - f||^2 = DiscrepancyFactor * sum(var) (factor 0: 1; the
 * variance input, or estimated). The variance is used for nothing else (no weights).
 *
 * \ingroup ITKGPURestorationTotalVariation
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class StatisticalTVImageFilter : public TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(StatisticalTVImageFilter);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = StatisticalTVImageFilter;
  using Superclass = TotalVariationDenoisingImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */
  using typename Superclass::RealType;
  /** The noise-variance image: the output's real pixel type on the same grid. */
  using VarianceImageType = TOutputImage;
  /** The methods of SetMethod and the units of SetStepUnit. */
  /** @ITKStartGrouping */
  using MethodEnum = StatisticalTVImageFilterEnums::Method;
  using StepUnitEnum = StatisticalTVImageFilterEnums::StepUnit;
  /** @ITKEndGrouping */
  /** The name of earlier versions (then gpur::TVGDStepUnit), kept for source compatibility. */
  using StepUnitType = StepUnitEnum;

  itkNewMacro(Self);
  itkTypeMacro(StatisticalTVImageFilter, TotalVariationDenoisingImageFilter);

  /** Optional per-voxel noise variance (finite, > 0), same size, spacing, origin and direction as the input. */
  /** @ITKStartGrouping */
  itkSetInputMacro(NoiseVariance, VarianceImageType);
  itkGetInputMacro(NoiseVariance, VarianceImageType);
  /** @ITKEndGrouping */

  /** gamma of w = var^gamma (normalised by its mean), 0 to 2; 0 is plain TV, 0.5 weights by sigma. Default 1. */
  /** @ITKStartGrouping */
  itkSetMacro(WeightExponent, double);
  itkGetConstMacro(WeightExponent, double);
  /** @ITKEndGrouping */
  /**
   * Choose lambda by the discrepancy principle whatever Lambda is. Default off;
   * Lambda 0 (the default) chooses it too. DiscrepancyFactor (the superclass')
   * is the target of sum (u - f)^2 / var / N for the automatic lambda, and of
   * ||u - f||^2 / sum(var) for StopAtDiscrepancy; 0: calibrated from the noise
   * for the automatic lambda (see the class description), 1 for StopAtDiscrepancy.
   */
  /** @ITKStartGrouping */
  itkSetMacro(AutomaticLambda, bool);
  itkGetConstMacro(AutomaticLambda, bool);
  itkBooleanMacro(AutomaticLambda);
  /** @ITKEndGrouping */

  /** PrimalDual (default), GradientDescent or AdaptiveWeightedGradientDescent. */
  /** @ITKStartGrouping */
  itkSetEnumMacro(Method, MethodEnum);
  itkGetEnumMacro(Method, MethodEnum);
  /** @ITKEndGrouping */
  /**
   * Gradient descent: the length of every step, in StepUnit. Default 0.004 RMS,
   * i.e. lambda = 2 in the L2 unit of [Huang2023, Algorithm 2] on a 64^3 volume
   * (the best step there for noise sigma 0.1, measured); about sigma / 25
   * reaches the discrepancy target in 25-40 iterations.
   */
  /** @ITKStartGrouping */
  itkSetMacro(StepLength, double);
  itkGetConstMacro(StepLength, double);
  /** @ITKEndGrouping */
  /**
   * RMS (default: root-mean-square change per voxel, independent of the size) or
   * L2Norm (the lambda of [Huang2023, Algorithm 2]).
   */
  /** @ITKStartGrouping */
  itkSetEnumMacro(StepUnit, StepUnitEnum);
  itkGetEnumMacro(StepUnit, StepUnitEnum);
  /** @ITKEndGrouping */
  /** AW-TV weight scale delta > 0 (intensity / length): differences much larger are kept as edges. Default 0.1. */
  /** @ITKStartGrouping */
  itkSetMacro(Delta, double);
  itkGetConstMacro(Delta, double);
  /** @ITKEndGrouping */
  /** Gradient descent: stop once ||u - f||_2 >= TargetResidual; 0 (default): no explicit target. */
  /** @ITKStartGrouping */
  itkSetMacro(TargetResidual, double);
  itkGetConstMacro(TargetResidual, double);
  /** @ITKEndGrouping */
  /** Gradient descent: stop once ||u - f||^2 >= DiscrepancyFactor * sum(var). Default off. */
  /** @ITKStartGrouping */
  itkSetMacro(StopAtDiscrepancy, bool);
  itkGetConstMacro(StopAtDiscrepancy, bool);
  itkBooleanMacro(StopAtDiscrepancy);
  /** @ITKEndGrouping */

  /**
   * Results of the last update, besides the superclass' (LambdaUsed,
   * NumberOfLambdaSolves, LambdaHistory, Discrepancy, DiscrepancyTarget,
   * MaximumDiscrepancy, ResidualGain, NoiseSigmaUsed = sqrt(MeanVariance),
   * NumberOfIterations, BackendUsed, Converged). Primal-dual: Discrepancy =
   * sum (u - f)^2 / var / N. Gradient descent: LambdaUsed and
   * NumberOfLambdaSolves are 0, Discrepancy = ||u - f||^2 / sum(var) (0 without
   * a variance), Converged means the target was reached. VarianceEstimated: the
   * variance was estimated from the image (none was given and the method needed
   * one); MeanVariance: the mean of the variance used.
   */
  /** @ITKStartGrouping */
  itkGetConstMacro(VarianceEstimated, bool);
  itkGetConstMacro(MeanVariance, double);
  /** @ITKEndGrouping */
  /** max(var) / min(var) of the variance used: the weights help where it is large (see docs/statistical-tv.md). */
  itkGetConstMacro(VarianceRange, double);
  /** ||u - f||_2 of the result. */
  itkGetConstMacro(Residual, double);
  /** Gradient descent: the ||u - f|| target used (0: none), and whether it was reached. */
  /** @ITKStartGrouping */
  itkGetConstMacro(TargetResidualUsed, double);
  itkGetConstMacro(TargetReached, bool);
  /** @ITKEndGrouping */

protected:
  StatisticalTVImageFilter();
  ~StatisticalTVImageFilter() override = default;

  /** Both inputs are needed whole. */
  void
  GenerateInputRequestedRegion() override;
  /** The whole output is produced at once (the weights and lambda are global: no streaming). */
  void
  EnlargeOutputRequestedRegion(DataObject * output) override;
  /** Adds to ITK's physical-space check: the variance image must have the input's size. */
  void
  VerifyInputInformation() ITKv5_CONST override;
  /** Lambda 0 or AutomaticLambda on. */
  bool
  IsLambdaAutomatic() const override
  {
    return m_AutomaticLambda || Superclass::IsLambdaAutomatic();
  }
  gpur::TVReport
  Solve(const RealType * f,
        RealType * u,
        const gpur::Grid & grid,
        const gpur::ExecutionOptions & execution,
        const gpur::ProgressCallback & progress) override;
  /** Prints the settings and the results of the last update. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  double m_WeightExponent{ 1.0 };
  bool m_AutomaticLambda{ false };
  MethodEnum m_Method{ MethodEnum::PrimalDual };
  double m_StepLength{ 0.004 };
  StepUnitEnum m_StepUnit{ StepUnitEnum::RMS };
  double m_Delta{ 0.1 };
  double m_TargetResidual{ 0.0 };
  bool m_StopAtDiscrepancy{ false };

  bool m_VarianceEstimated{ false };
  double m_MeanVariance{ 0.0 };
  double m_VarianceRange{ 0.0 };
  double m_Residual{ 0.0 };
  double m_TargetResidualUsed{ 0.0 };
  bool m_TargetReached{ false };
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkStatisticalTVImageFilter.hxx"
#endif

// The common image types are compiled into the library (src/itkStatisticalTVImageFilter.cxx).
itkGPURestorationImageTypesMacro(extern template class, itk::StatisticalTVImageFilter);

#endif
