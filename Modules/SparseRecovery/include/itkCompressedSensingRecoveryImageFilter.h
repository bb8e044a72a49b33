// SPDX-License-Identifier: Apache-2.0
#ifndef itkCompressedSensingRecoveryImageFilter_h
#define itkCompressedSensingRecoveryImageFilter_h

#include "itkCompressedSensingImageFilterBase.h"

namespace itk
{

/**
 * \class CompressedSensingRecoveryImageFilterEnums
 * \brief The choices of CompressedSensingRecoveryImageFilter (twins of gpur::SparseSolver and gpur::SparseThreshold).
 * \ingroup ITKGPURestorationSparseRecovery
 */
class CompressedSensingRecoveryImageFilterEnums
{
public:
  /** The iteration (SetSolver). */
  enum class Solver : uint8_t
  {
    /** Iterative soft thresholding with the circulant operators [Fiandrotti2018, Algorithm 1]. */
    CPISTA = static_cast<uint8_t>(gpur::SparseSolver::CPISTA),
    /** Its accelerated form [Beck2009]: the default. */
    FISTA = static_cast<uint8_t>(gpur::SparseSolver::FISTA),
    /** The partial-circulant ADMM [Fiandrotti2018, Algorithm 3]. */
    CPADMM = static_cast<uint8_t>(gpur::SparseSolver::CPADMM)
  };
  /** How CPISTA and FISTA threshold (SetThreshold). */
  enum class Threshold : uint8_t
  {
    /** The proximal step of the LASSO, threshold alpha * step: the default. */
    Proximal = static_cast<uint8_t>(gpur::SparseThreshold::Proximal),
    /** The threshold alpha as printed in [Fiandrotti2018, Algorithm 1] (the LASSO with weight alpha / step). */
    PaperLiteral = static_cast<uint8_t>(gpur::SparseThreshold::PaperLiteral)
  };
};

namespace GPURestoration
{
template<>
struct EngineEnum<CompressedSensingRecoveryImageFilterEnums::Solver>
{
  using Type = gpur::SparseSolver;
};
template<>
struct EngineEnum<CompressedSensingRecoveryImageFilterEnums::Threshold>
{
  using Type = gpur::SparseThreshold;
};
} // namespace GPURestoration

/**
 * \class CompressedSensingRecoveryImageFilter
 * \brief Recovers a sparse 2D image from compressed measurements with partial
 * circulant sensing [Fiandrotti2018], by CPISTA, FISTA or CPADMM, on OpenCL or the CPU.
 *
 * Input 0 is the zero-filled measurement image y (the measurements on the
 * mask, 0 elsewhere; values off the mask are ignored), with the sensing
 * operator A = P C as the named inputs "Mask" and "Generator" or drawn from
 * Seed and SamplingRatio (see CompressedSensingImageFilterBase, and
 * CirculantSensingImageFilter for the forward operator). The output is the
 * minimiser of the LASSO
 *
 *   1/2 ||y - A x||^2 + alpha ||x||_1     [Fiandrotti2018, eq. (3)]
 *
 * (with Nonnegative, also x >= 0): a sparse image with the measurement
 * image's origin, spacing, direction and meta-data. Every product by C and
 * C^T is an FFT pair, so memory is linear in the number of pixels and an
 * iteration costs O(n log n); on OpenCL the iteration stays on the device.
 *
 * Units. Alpha 0 (the default) is RelativeAlpha * ||A^T y||_inf (the
 * smallest alpha whose solution is 0); the step and CPADMM's sigma are
 * relative to ||A||^2. Scaling the measurements scales the output by the
 * same factor, and scaling the generator leaves the iteration unchanged.
 *
 * Stopping. A run stops when the relative change of x falls below Tolerance
 * and the relative duality gap of the LASSO is below GapTolerance (then
 * GetConverged() is true), or after MaximumNumberOfIterations (an
 * itkWarningMacro says so, as do GetReport().warnings). After every
 * iteration the filter updates GetIterationInfo() and GetNumberOfIterations(),
 * invokes an itk::IterationEvent and reports progress; AbortGenerateData is
 * honoured between iterations (no partial output).
 *
 * Backends (SetBackend, SetDevice, GetBackendUsed), progress, abort and
 * errors are those of the base class itk::GPURestorationImageFilter. The
 * engine is gpur::RecoverSparse, which documents the solvers.
 *
 * \ingroup ITKGPURestorationSparseRecovery
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class CompressedSensingRecoveryImageFilter : public CompressedSensingImageFilterBase<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CompressedSensingRecoveryImageFilter);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = CompressedSensingRecoveryImageFilter;
  using Superclass = CompressedSensingImageFilterBase<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkNewMacro(Self);
  itkTypeMacro(CompressedSensingRecoveryImageFilter, CompressedSensingImageFilterBase);

  /** The types of the images (see CompressedSensingImageFilterBase). */
  /** @ITKStartGrouping */
  using typename Superclass::ImageType;
  using typename Superclass::MaskImageType;
  using typename Superclass::RealType;
  /** @ITKEndGrouping */
  /** The choices of SetSolver and SetThreshold. */
  /** @ITKStartGrouping */
  using SolverEnum = CompressedSensingRecoveryImageFilterEnums::Solver;
  using ThresholdEnum = CompressedSensingRecoveryImageFilterEnums::Threshold;
  /** @ITKEndGrouping */

  /** The iteration: CPISTA, FISTA (default) or CPADMM. */
  /** @ITKStartGrouping */
  itkSetEnumMacro(Solver, SolverEnum);
  itkGetEnumMacro(Solver, SolverEnum);
  /** @ITKEndGrouping */
  /** The l1 weight alpha in the units of A^T y, >= 0; 0 (default): RelativeAlpha * ||A^T y||_inf. */
  /** @ITKStartGrouping */
  itkSetMacro(Alpha, double);
  itkGetConstMacro(Alpha, double);
  /** @ITKEndGrouping */
  /** alpha as a fraction of ||A^T y||_inf, in (0, 1), used when Alpha is 0 (default 1e-3). */
  /** @ITKStartGrouping */
  itkSetMacro(RelativeAlpha, double);
  itkGetConstMacro(RelativeAlpha, double);
  /** @ITKEndGrouping */
  /** CPISTA/FISTA step, in (0, 2 / ||A||^2); 0 (default): 1 / ||C B||^2. */
  /** @ITKStartGrouping */
  itkSetMacro(Step, double);
  itkGetConstMacro(Step, double);
  /** @ITKEndGrouping */
  /** CPISTA/FISTA threshold convention (default Proximal). */
  /** @ITKStartGrouping */
  itkSetEnumMacro(Threshold, ThresholdEnum);
  itkGetEnumMacro(Threshold, ThresholdEnum);
  /** @ITKEndGrouping */
  /** CPADMM penalty rho of v = C x, >= 0; 0 (default): 100 alpha / alpha_max (gpur::SparseRecoveryParameters). */
  /** @ITKStartGrouping */
  itkSetMacro(Rho, double);
  itkGetConstMacro(Rho, double);
  /** @ITKEndGrouping */
  /** CPADMM penalty sigma of z = x relative to ||A||^2, >= 0; 0 (default): 10 alpha / alpha_max. */
  /** @ITKStartGrouping */
  itkSetMacro(RelativeSigma, double);
  itkGetConstMacro(RelativeSigma, double);
  /** @ITKEndGrouping */
  /** CPADMM dual steps tau1 = tau2, in (0, (1 + sqrt 5) / 2) (default 1). */
  /** @ITKStartGrouping */
  itkSetMacro(DualStep, double);
  itkGetConstMacro(DualStep, double);
  /** @ITKEndGrouping */
  /** Constrain x >= 0 (light sources, densities; default off). */
  /** @ITKStartGrouping */
  itkSetMacro(Nonnegative, bool);
  itkGetConstMacro(Nonnegative, bool);
  itkBooleanMacro(Nonnegative);
  /** @ITKEndGrouping */
  /** Stop when ||x_k - x_(k-1)|| / ||x_k|| is below this, > 0 (default 1e-6)... */
  /** @ITKStartGrouping */
  itkSetMacro(Tolerance, double);
  itkGetConstMacro(Tolerance, double);
  /** @ITKEndGrouping */
  /** ...and the relative duality gap below this, > 0 (default 1e-3): "converged". */
  /** @ITKStartGrouping */
  itkSetMacro(GapTolerance, double);
  itkGetConstMacro(GapTolerance, double);
  /** @ITKEndGrouping */
  /** The iteration budget, >= 1 (default 5000). */
  /** @ITKStartGrouping */
  itkSetMacro(MaximumNumberOfIterations, unsigned int);
  itkGetConstMacro(MaximumNumberOfIterations, unsigned int);
  /** @ITKEndGrouping */
  /** The objective and duality gap (two extra FFTs) are computed every this many iterations, >= 1 (default 10). */
  /** @ITKStartGrouping */
  itkSetMacro(CheckInterval, unsigned int);
  itkGetConstMacro(CheckInterval, unsigned int);
  /** @ITKEndGrouping */

  /**
   * The latest iteration: during an update (from an IterationEvent observer)
   * the one just finished, afterwards the last one. Its objective and gap are
   * NaN between checks (see CheckInterval).
   */
  const gpur::SparseIterationInfo &
  GetIterationInfo() const
  {
    return m_IterationInfo;
  }
  /** The iterations of the last update (during one: so far). */
  itkGetConstMacro(NumberOfIterations, unsigned int);
  /** Whether the last update met Tolerance and GapTolerance. */
  itkGetConstMacro(Converged, bool);
  /** The alpha the last update used (Alpha, or RelativeAlpha * ||A^T y||_inf). */
  itkGetConstMacro(AlphaUsed, double);
  /** The relative duality gap, the data residual ||y - A x|| / ||y|| and the nonzeros of the output. */
  /** @ITKStartGrouping */
  itkGetConstMacro(RelativeGap, double);
  itkGetConstMacro(RelativeResidual, double);
  itkGetConstMacro(NumberOfNonzeros, SizeValueType);
  /** @ITKEndGrouping */
  /** The wall seconds of the last solve (planning included). */
  itkGetConstMacro(ElapsedSeconds, double);
  /** The full engine report of the last update (every iteration, the resolved parameters, warnings). */
  const gpur::SparseRecoveryReport &
  GetReport() const
  {
    return m_Report;
  }

protected:
  CompressedSensingRecoveryImageFilter() = default;
  ~CompressedSensingRecoveryImageFilter() override = default;

  /** The blur B of the operator: none here; the deblurring filter returns its PSF input. */
  virtual const ImageType *
  GetBlur() const
  {
    return nullptr;
  }
  /** Whether the blur is scaled to a unit sum (see GetBlur). */
  virtual bool
  GetNormalizeBlur() const
  {
    return true;
  }

  /** Runs gpur::RecoverSparse on the input into the output. */
  void
  EngineGenerateData() override;
  /** Prints the settings and the results of the last update. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  /** The engine parameters from the filter's settings. */
  gpur::SparseRecoveryParameters
  MakeParameters() const;
  /** Records one iteration (the iteration getters), invokes IterationEvent; false once abort is set. */
  bool
  RecordIteration(const gpur::SparseIterationInfo & info);

private:
  SolverEnum m_Solver{ SolverEnum::FISTA };
  double m_Alpha{ gpur::SparseRecoveryParameters().alpha };
  double m_RelativeAlpha{ gpur::SparseRecoveryParameters().relativeAlpha };
  double m_Step{ gpur::SparseRecoveryParameters().step };
  ThresholdEnum m_Threshold{ ThresholdEnum::Proximal };
  double m_Rho{ gpur::SparseRecoveryParameters().rho };
  double m_RelativeSigma{ gpur::SparseRecoveryParameters().relativeSigma };
  double m_DualStep{ gpur::SparseRecoveryParameters().dualStep };
  bool m_Nonnegative{ gpur::SparseRecoveryParameters().nonnegative };
  double m_Tolerance{ gpur::SparseRecoveryParameters().tolerance };
  double m_GapTolerance{ gpur::SparseRecoveryParameters().gapTolerance };
  unsigned int m_MaximumNumberOfIterations{ gpur::SparseRecoveryParameters().maximumIterations };
  unsigned int m_CheckInterval{ gpur::SparseRecoveryParameters().checkInterval };

  gpur::SparseIterationInfo m_IterationInfo;
  unsigned int m_NumberOfIterations{ 0 };
  bool m_Converged{ false };
  double m_AlphaUsed{ 0.0 };
  double m_RelativeGap{ 0.0 };
  double m_RelativeResidual{ 0.0 };
  SizeValueType m_NumberOfNonzeros{ 0 };
  double m_ElapsedSeconds{ 0.0 };
  gpur::SparseRecoveryReport m_Report;
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkCompressedSensingRecoveryImageFilter.hxx"
#endif

// The common types are compiled once into ITKGPURestorationSparseRecovery.
itkCompressedSensingImageTypesMacro(extern template class, itk::CompressedSensingRecoveryImageFilter);

#endif
