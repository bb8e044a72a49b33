// SPDX-License-Identifier: Apache-2.0
#ifndef itkTotalVariationDenoisingImageFilter_h
#define itkTotalVariationDenoisingImageFilter_h

#include "gpurTVNoiseLevel.h"
#include "itkGPURestorationImageFilter.h"

namespace itk
{

/**
 * \class TotalVariationDenoisingImageFilterEnums
 * \brief The methods of TotalVariationDenoisingImageFilter (twins of gpur::TVAlgorithm).
 * \ingroup ITKGPURestorationTotalVariation
 */
class TotalVariationDenoisingImageFilterEnums
{
public:
  /** The primal-dual method that solves ROF (SetAlgorithm). */
  enum class Algorithm : uint8_t
  {
    /** Chambolle-Pock [Chambolle2011, Alg. 1], constant steps. */
    ChambollePock = static_cast<uint8_t>(gpur::TVAlgorithm::ChambollePock),
    /** Chambolle-Pock [Chambolle2011, Alg. 2], O(1/k^2) for the strongly convex ROF; the default. */
    AcceleratedChambollePock = static_cast<uint8_t>(gpur::TVAlgorithm::AcceleratedChambollePock),
    /** PDU [Huang2023, Algorithm 1]: the PDHG of [Zhu2008] with the schedule of [Huang2023, eqs. (3.6)-(3.7)]. */
    PDU = static_cast<uint8_t>(gpur::TVAlgorithm::PDU)
  };
};

namespace GPURestoration
{
template<>
struct EngineEnum<TotalVariationDenoisingImageFilterEnums::Algorithm>
{
  using Type = gpur::TVAlgorithm;
};
} // namespace GPURestoration

/**
 * \class TotalVariationDenoisingImageFilter
 * \brief Total-variation (ROF) denoising of 2D and 3D images, on OpenCL or the CPU.
 *
 * Solves  min_u (lambda/2) ||u - f||^2 + TV(u)  with isotropic TV. The gradient
 * uses forward differences divided by the physical spacing (Neumann boundary),
 * so anisotropic voxels are handled; the divergence is its exact negative adjoint.
 * Larger Lambda keeps more of the input.
 *
 * Lambda. By default (Lambda 0) lambda is chosen by the discrepancy principle
 * [Morozov1966] from the noise level: mean (u - f)^2 = F NoiseSigma^2 on
 * converged solves (gpur::DenoiseTVAtNoiseLevel, usually 3-7 solves), with
 * NoiseSigma estimated from the image (sqrt of the median of gpur::EstimateNoiseVariance,
 * right for the correlated noise of CT reconstructions too) unless set, and F
 * calibrated from the noise's spectrum (DiscrepancyFactor 0). So the filter
 * denoises without parameters whatever the intensity unit and voxel size: a
 * [0, 1] image at unit spacing and a CT volume in HU at 0.7 mm alike. lambda
 * has units 1 / (intensity * length), and lambda * sigma * spacing is the
 * dimensionless weight: SetLambda(10) for sigma 0.1 at unit spacing is
 * SetLambda(10 * 0.1 / (25 * 0.7)) = 0.057 for sigma 25 HU at 0.7 mm. A
 * Lambda > 0 is used as given, in one solve (NoiseSigma then only gives
 * GetDiscrepancy()). Earlier versions defaulted to Lambda 8, which suits
 * [0, 1] data only: set it to keep their results. The automatic lambda needs
 * the whole image (no streaming) and a GapTolerance > 0.
 *
 * Methods (SetAlgorithm):
 * accelerated Chambolle-Pock (default) and Chambolle-Pock [Chambolle2011,
 * Alg. 2 and 1], and PDU (the PDHG of [Zhu2008] with the schedule of
 * [Huang2023, eqs. (3.6)-(3.7)]).
 * Iterations stop when the relative primal-dual gap |(P - D)/P| falls below
 * GapTolerance, or after MaximumNumberOfIterations (default 2000, which meets
 * the default tolerance on the test volumes for lambda >= 2). A run with a
 * tolerance that ends above it reports GetConverged() false and issues an
 * itkWarningMacro saying so (GetReport().warnings holds the text).
 * GapTolerance must be 0 or at least gpur::TVGapFloor of the pixel type and
 * method (float: 2e-7, PDU 1e-6; double: 1e-12), where the rounding of the
 * gap starts to dominate it.
 *
 * The result does not depend on the intensity scale: scaling the input by s
 * and Lambda by 1/s scales the output by s, to rounding (the step balance of
 * the solvers is set by Lambda, and the engine solves on the input divided by
 * a power of two when its magnitude is outside [2^-20, 2^20]). A Lambda that
 * the pixel type cannot represent for the input's intensities (Lambda *
 * max|f| * voxel size above 1e12 in float, 1e100 in double, or below the
 * inverse with a gap tolerance) is refused with an exception.
 *
 * Backends (SetBackend, SetDevice, GetBackendUsed), progress, abort and errors
 * are those of the base class itk::GPURestorationImageFilter.
 *
 * The output keeps the input's origin, spacing and direction. Progress is
 * reported every iteration and AbortGenerateData is honoured between
 * iterations; on abort or error the output holds no partial result. On OpenCL
 * the host keeps at most about 0.2 s of iterations queued ahead of the device,
 * so progress follows the finished work and an abort takes effect within that.
 *
 * Streaming (volumes larger than memory) needs a fixed Lambda: the automatic
 * lambda is the whole image's, so without one every request is widened to the
 * whole image. With a Lambda > 0 the filter produces any requested
 * output region, so reader -> filter -> writer with
 * writer->SetNumberOfStreamDivisions(n) processes the volume in n chunks
 * (ITK splits along the slowest axis). A chunk is solved on its requested
 * region padded by GetStreamingHalo() = MaximumNumberOfIterations + 1 voxels on
 * each side of every axis (clipped to the image), and only the requested part
 * is kept. Every iteration moves information by one voxel per axis, so with a
 * fixed iteration count the chunks are exactly the whole-volume result. The
 * gap stop cannot be exact: each chunk would stop at its own iteration, and its gap
 * is that of the chunk's problem, not of the volume's. So a request for a
 * proper part of the image (a chunk) runs exactly MaximumNumberOfIterations
 * with the gap stop off (GetStreamedChunk() tells; GapTolerance 0 gives the
 * same result without streaming). When the halo spans the image
 * (MaximumNumberOfIterations + 2 >= its size on every axis, e.g. the default
 * 2000 iterations on a 1024^3 volume) streaming cannot save memory: every request
 * is widened to the whole image, solved once with the gap stop, as without
 * streaming. The cost of streaming is 2 (MaximumNumberOfIterations + 1)
 * recomputed slices per chunk, so it pays off only when the chunks are much
 * thicker than that: few iterations (the accelerated method) or very large
 * volumes. The memory of a chunk is the engine's working set for the padded
 * chunk (about 7 values per voxel in 3D) instead of the whole volume's.
 * itk::StatisticalTVImageFilter does not stream (its weights are global).
 *
 * The algorithm lives in the ITK-free engines gpur::DenoiseTVAtNoiseLevel and
 * gpur::DenoiseTV; this class is a thin adapter over them.
 *
 * \ingroup ITKGPURestorationTotalVariation
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class TotalVariationDenoisingImageFilter : public GPURestorationImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(TotalVariationDenoisingImageFilter);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = TotalVariationDenoisingImageFilter;
  using Superclass = GPURestorationImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkNewMacro(Self);
  itkTypeMacro(TotalVariationDenoisingImageFilter, GPURestorationImageFilter);

  /** The image types and their dimension, 2 or 3. */
  /** @ITKStartGrouping */
  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using OutputPixelType = typename TOutputImage::PixelType;
  /** @ITKEndGrouping */
  /** The engine computes in the output pixel type: float or double. */
  using RealType = OutputPixelType;
  /** The methods of SetAlgorithm. */
  using AlgorithmEnum = TotalVariationDenoisingImageFilterEnums::Algorithm;
  /** The name of earlier versions (then gpur::TVAlgorithm), kept for source compatibility. */
  using AlgorithmType = AlgorithmEnum;

  static_assert(ImageDimension == 2 || ImageDimension == 3, "TotalVariationDenoisingImageFilter supports 2D and 3D");
  static_assert(std::is_same<RealType, float>::value || std::is_same<RealType, double>::value,
                "the output pixel type must be float or double");

  /**
   * Fidelity weight lambda > 0 (units 1/(intensity * length)), or 0 (the
   * default): chosen by the discrepancy principle from NoiseSigma (see the
   * class documentation). Earlier versions defaulted to 8.
   */
  /** @ITKStartGrouping */
  itkSetMacro(Lambda, double);
  itkGetConstMacro(Lambda, double);
  /** @ITKEndGrouping */
  /**
   * The noise standard deviation in the image's intensity units for the
   * automatic lambda; 0 (default): estimated from the image. With a Lambda > 0
   * it only gives GetDiscrepancy().
   */
  /** @ITKStartGrouping */
  itkSetMacro(NoiseSigma, double);
  itkGetConstMacro(NoiseSigma, double);
  /** @ITKEndGrouping */
  /**
   * The automatic lambda's target of mean (u - f)^2 / sigma^2 (for
   * StatisticalTVImageFilter: of sum (u - f)^2 / var / N); 0 (default):
   * calibrated from the noise's spectrum, 0.9 for white noise, about 0.7 for a
   * CT reconstruction (gpur::CalibratedDiscrepancyFactor).
   */
  /** @ITKStartGrouping */
  itkSetMacro(DiscrepancyFactor, double);
  itkGetConstMacro(DiscrepancyFactor, double);
  /** @ITKEndGrouping */
  /** Default AcceleratedChambollePock. */
  /** @ITKStartGrouping */
  itkSetEnumMacro(Algorithm, AlgorithmEnum);
  itkGetEnumMacro(Algorithm, AlgorithmEnum);
  /** @ITKEndGrouping */
  /** The iteration budget; the gap stop usually ends a run earlier. Default 2000 (see the class documentation). */
  /** @ITKStartGrouping */
  itkSetMacro(MaximumNumberOfIterations, unsigned int);
  itkGetConstMacro(MaximumNumberOfIterations, unsigned int);
  /** @ITKEndGrouping */
  /**
   * Relative primal-dual gap at which to stop; 0 runs all iterations. Default
   * 1e-4; otherwise at least gpur::TVGapFloor (float 2e-7, PDU 1e-6; double 1e-12).
   */
  /** @ITKStartGrouping */
  itkSetMacro(GapTolerance, double);
  itkGetConstMacro(GapTolerance, double);
  /** @ITKEndGrouping */
  /** Iterations between gap evaluations. Default 10. */
  /** @ITKStartGrouping */
  itkSetMacro(GapCheckInterval, unsigned int);
  itkGetConstMacro(GapCheckInterval, unsigned int);
  /** @ITKEndGrouping */
  /** k0 of the PDU schedule; 0 is the literal schedule of [Huang2023, eqs. (3.6)-(3.7)]. Default 15. */
  /** @ITKStartGrouping */
  itkSetMacro(PDUOffset, unsigned int);
  itkGetConstMacro(PDUOffset, unsigned int);
  /** @ITKEndGrouping */
  /**
   * With several OpenCL devices (SetDevice("all"), or a list), a 3D volume is
   * cut into z-slabs, one per device, whose halos of ExchangeInterval + 1
   * slices are refreshed every ExchangeInterval iterations; the result equals a
   * single-device run. Default 8.
   */
  /** @ITKStartGrouping */
  itkSetMacro(ExchangeInterval, unsigned int);
  itkGetConstMacro(ExchangeInterval, unsigned int);
  /** @ITKEndGrouping */
  /**
   * Store the dual variable in IEEE half precision (16 bits) on OpenCL
   * devices, arithmetic staying in float: fewer bytes per iteration at a small
   * objective excess (docs/benchmarks.md). Float pixels only (double is
   * refused); the CPU backend keeps float duals (GetReport().dualStorage says
   * which ran). Default off.
   */
  /** @ITKStartGrouping */
  itkSetMacro(HalfPrecisionDual, bool);
  itkGetConstMacro(HalfPrecisionDual, bool);
  itkBooleanMacro(HalfPrecisionDual);
  /** @ITKEndGrouping */
  /**
   * Bytes of memory the filter may use on each OpenCL device; 0 (default):
   * 90 % of the device's memory. A 3D volume whose state does not fit streams
   * through host memory in z-regions padded by ExchangeInterval + 1 slices; the
   * result equals the in-memory run (GetStreamRegions() tells how many regions).
   */
  /** @ITKStartGrouping */
  itkSetMacro(DeviceMemoryLimit, SizeValueType);
  itkGetConstMacro(DeviceMemoryLimit, SizeValueType);
  /** @ITKEndGrouping */
  /**
   * Results of the last update: the iterations run, the relative gap |(P - D)/P|, the primal and dual
   * energies P and D, whether the gap met GapTolerance, and the seconds taken.
   */
  /** @ITKStartGrouping */
  itkGetConstMacro(NumberOfIterations, unsigned int);
  itkGetConstMacro(RelativeGap, double);
  itkGetConstMacro(PrimalEnergy, double);
  itkGetConstMacro(DualEnergy, double);
  itkGetConstMacro(Converged, bool);
  itkGetConstMacro(ElapsedSeconds, double);
  /** @ITKEndGrouping */
  /** z-regions per device of the last update when the volume streamed through host memory; 0 when it did not. */
  SizeValueType
  GetStreamRegions() const
  {
    return static_cast<SizeValueType>(m_Report.streamRegions);
  }
  /** The input region the last update solved on: the requested output region padded by the halo. */
  itkGetConstReferenceMacro(SolvedRegion, typename TInputImage::RegionType);
  /** The last update produced a proper part of the image (a streamed chunk): fixed iterations, no gap stop. */
  itkGetConstMacro(StreamedChunk, bool);
  /** The lambda of the last update's result: the automatic one, or Lambda. */
  itkGetConstMacro(LambdaUsed, double);
  /** The noise sigma the last update used (0: none, with a Lambda > 0 and no NoiseSigma), and whether it was estimated.
   */
  /** @ITKStartGrouping */
  itkGetConstMacro(NoiseSigmaUsed, double);
  itkGetConstMacro(NoiseSigmaEstimated, bool);
  /** @ITKEndGrouping */
  /** mean (u - f)^2 / sigma^2 of the result (0 without a noise level). */
  itkGetConstMacro(Discrepancy, double);
  /** The discrepancy factor the automatic lambda met (calibrated when DiscrepancyFactor is 0; 0 for a fixed Lambda). */
  itkGetConstMacro(DiscrepancyTarget, double);
  /** The discrepancy as lambda -> 0 (the image's mean): the reachable targets lie below it. */
  itkGetConstMacro(MaximumDiscrepancy, double);
  /** TV solves of the last update (1 for a fixed Lambda). */
  itkGetConstMacro(NumberOfLambdaSolves, unsigned int);
  /**
   * The noise's residual gain behind a calibrated factor and an estimated noise
   * level (1 for white noise, about 0.5 for a Ram-Lak FBP), and whether it could
   * be measured: when not (too few flat regions), white noise is assumed, which
   * reads the noise of a CT reconstruction about 2x low.
   */
  /** @ITKStartGrouping */
  itkGetConstMacro(ResidualGain, double);
  itkGetConstMacro(ResidualGainMeasured, bool);
  /** @ITKEndGrouping */
  /** Every TV solve of the last update (lambda, discrepancy, iterations, relative gap, converged). */
  const std::vector<gpur::DiscrepancySolve> &
  GetLambdaHistory() const
  {
    return m_LambdaHistory;
  }
  /** Full engine report of the last update's result (gap history included). */
  const gpur::TVReport &
  GetReport() const
  {
    return m_Report;
  }

  /** Voxels by which a streamed request is padded on each side of every axis: the engine's gpur::TVHalo,
   * MaximumNumberOfIterations + 1. */
  SizeValueType
  GetStreamingHalo() const
  {
    return static_cast<SizeValueType>(gpur::TVHalo(m_MaximumNumberOfIterations));
  }

protected:
  TotalVariationDenoisingImageFilter() = default;
  ~TotalVariationDenoisingImageFilter() override = default;

  /** False: TV streams (requested regions padded by the halo, see the class documentation). */
  bool
  ProcessesWholeImage() const override
  {
    return false;
  }
  /** The requested output region padded by the streaming halo (see the class documentation). */
  void
  GenerateInputRequestedRegion() override;
  /** Widens every request to the whole image when the halo spans the image (one solve, not one per chunk). */
  void
  EnlargeOutputRequestedRegion(DataObject * output) override;
  /** Solves the requested region padded by the halo (see the class documentation). */
  void
  EngineGenerateData() override;
  /** Prints the settings and the results of the last update. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  /** The engine parameters from the filter's settings (no gap stop while solving a streamed chunk). */
  gpur::TVParameters
  MakeParameters() const;
  /** Lambda 0: chosen by the discrepancy principle (the subclass may add its own switch). */
  virtual bool
  IsLambdaAutomatic() const
  {
    return m_Lambda == 0.0;
  }
  /**
   * Records how the last update chose lambda (LambdaUsed, NoiseSigmaUsed, the
   * discrepancies, solves, history, residual gain) from an engine report with
   * the fields of gpur::TVNoiseLevelReport; the residual gain is that of the
   * noise estimate when the noise level was estimated.
   */
  template<typename Report>
  void
  RecordLambdaChoice(const Report & report, double sigma, bool sigmaEstimated)
  {
    m_LambdaUsed = report.lambda;
    m_NoiseSigmaUsed = sigma;
    m_NoiseSigmaEstimated = sigmaEstimated;
    m_Discrepancy = report.discrepancy;
    m_DiscrepancyTarget = report.discrepancyTarget;
    m_MaximumDiscrepancy = report.maximumDiscrepancy;
    m_NumberOfLambdaSolves = report.solves;
    m_LambdaHistory = report.lambdaHistory;
    m_ResidualGain = sigmaEstimated ? report.noise.residualGain : report.residualGain;
    m_ResidualGainMeasured = sigmaEstimated ? report.noise.gainMeasured : report.residualGainMeasured;
  }
  /**
   * Runs the engine on the input pixels f into the output buffer u (the
   * subclasses' hook: RTK style, they change only this step) and records the
   * lambda choice (RecordLambdaChoice). Throws the engine's exceptions; the
   * base class' GenerateData translates them.
   */
  virtual gpur::TVReport
  Solve(const RealType * f,
        RealType * u,
        const gpur::Grid & grid,
        const gpur::ExecutionOptions & execution,
        const gpur::ProgressCallback & progress);

private:
  double m_Lambda{ 0.0 };
  double m_NoiseSigma{ 0.0 };
  double m_DiscrepancyFactor{ 0.0 };
  AlgorithmEnum m_Algorithm{ AlgorithmEnum::AcceleratedChambollePock };
  unsigned int m_MaximumNumberOfIterations{ gpur::TVParameters().maxIterations };
  double m_GapTolerance{ 1e-4 };
  unsigned int m_GapCheckInterval{ 10 };
  unsigned int m_PDUOffset{ 15 };
  unsigned int m_ExchangeInterval{ 8 };
  SizeValueType m_DeviceMemoryLimit{ 0 };
  bool m_HalfPrecisionDual{ false };

  unsigned int m_NumberOfIterations{ 0 };
  double m_RelativeGap{ 0.0 };
  double m_PrimalEnergy{ 0.0 };
  double m_DualEnergy{ 0.0 };
  bool m_Converged{ false };
  double m_ElapsedSeconds{ 0.0 };
  typename TInputImage::RegionType m_SolvedRegion;
  bool m_StreamedChunk{ false };
  gpur::TVReport m_Report;
  double m_LambdaUsed{ 0.0 };
  double m_NoiseSigmaUsed{ 0.0 };
  bool m_NoiseSigmaEstimated{ false };
  double m_Discrepancy{ 0.0 };
  double m_DiscrepancyTarget{ 0.0 };
  double m_MaximumDiscrepancy{ 0.0 };
  unsigned int m_NumberOfLambdaSolves{ 0 };
  std::vector<gpur::DiscrepancySolve> m_LambdaHistory;
  double m_ResidualGain{ 1.0 };
  bool m_ResidualGainMeasured{ false };

  /** The region a request is solved on: padded by the halo, clipped to the image. */
  typename TInputImage::RegionType
  PaddedRegion(const typename TOutputImage::RegionType & request) const;
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkTotalVariationDenoisingImageFilter.hxx"
#endif

// The common types are compiled once into ITKGPURestorationTotalVariation.
itkGPURestorationImageTypesMacro(extern template class, itk::TotalVariationDenoisingImageFilter);

#endif
