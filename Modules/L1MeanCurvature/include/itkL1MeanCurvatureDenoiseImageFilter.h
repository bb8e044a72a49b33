// SPDX-License-Identifier: Apache-2.0
#ifndef itkL1MeanCurvatureDenoiseImageFilter_h
#define itkL1MeanCurvatureDenoiseImageFilter_h

#include "gpurL1MeanCurvature.h"
#include "itkGPURestorationImageFilter.h"

#include <type_traits>

namespace itk
{

/**
 * \class L1MeanCurvatureDenoiseImageFilterEnums
 * \brief The choices of L1MeanCurvatureDenoiseImageFilter (twins of gpur::L1MCInitialization,
 * gpur::L1MCCornerMass and gpur::L1MCSub2Solver).
 * \ingroup ITKGPURestorationL1MeanCurvature
 */
class L1MeanCurvatureDenoiseImageFilterEnums
{
public:
  /** The starting point of the iteration (SetInitialization). */
  enum class Initialization : uint8_t
  {
    /** Every variable 0 [Myllykoski2015a, eq. (4.3)]: the default. */
    Zero = static_cast<uint8_t>(gpur::L1MCInitialization::Zero),
    /** u = f and the auxiliary variables from it [Myllykoski2015a, eq. (4.2)]. */
    Data = static_cast<uint8_t>(gpur::L1MCInitialization::Data)
  };
  /** The lumped mass at the four image corners in the u-subproblem (SetCornerMass). */
  enum class CornerMass : uint8_t
  {
    /** The exact lumped mass (a rank-4 correction of the separable solve): the default. */
    Exact = static_cast<uint8_t>(gpur::L1MCCornerMass::Exact),
    /** The separable mass h^2/4 at the corners (a plain PSCR solve). */
    Separable = static_cast<uint8_t>(gpur::L1MCCornerMass::Separable)
  };
  /** How the p3-subproblem (Sub #2) is solved (SetSub2Solver). */
  enum class Sub2Solver : uint8_t
  {
    /** Exactly, by one fast Dirichlet Helmholtz solve on the vertices: the default. */
    Direct = static_cast<uint8_t>(gpur::L1MCSub2Solver::Direct),
    /** The paper's matrix-free conjugate gradients, warm-started. */
    ConjugateGradient = static_cast<uint8_t>(gpur::L1MCSub2Solver::ConjugateGradient)
  };
};

namespace GPURestoration
{
template<>
struct EngineEnum<L1MeanCurvatureDenoiseImageFilterEnums::Initialization>
{
  using Type = gpur::L1MCInitialization;
};
template<>
struct EngineEnum<L1MeanCurvatureDenoiseImageFilterEnums::CornerMass>
{
  using Type = gpur::L1MCCornerMass;
};
template<>
struct EngineEnum<L1MeanCurvatureDenoiseImageFilterEnums::Sub2Solver>
{
  using Type = gpur::L1MCSub2Solver;
};
} // namespace GPURestoration

/**
 * \class L1MeanCurvatureDenoiseImageFilter
 * \brief L1-mean-curvature denoising of 2D images by the augmented Lagrangian method, on OpenCL or the CPU.
 *
 * Solves the model of Zhu and Chan as [Myllykoski2015a] does,
 *
 *   min_u  eps * integral |div( grad u / sqrt(1 + |grad u|^2) )|  +  1/2 integral (f - u)^2,
 *
 * which penalises the mean curvature of the graph of u instead of its total
 * variation: edges and the contrast of small features are kept, and smooth
 * ramps stay ramps (no staircasing, the artefact of TV). Linear finite
 * elements on the triangulated pixel grid, the augmented Lagrangian with
 * three multipliers and four subproblems per outer iteration (per-triangle
 * Newton with a bisection fallback, a direct Helmholtz solve or the paper's
 * conjugate gradients (SetSub2Solver), shrinkage and a PSCR solve); the
 * engine gpur::DenoiseL1MeanCurvature documents the details, and
 * [Myllykoski2015b] its GPU design.
 *
 * Parameters. R0 is the one knob [Myllykoski2015a, eq. (5.1)]: eps = R0 h,
 * r1 = 10 R0 h, r2 = 5 R0, r3 = 5 R0 h^2, each overridable (Epsilon, R1,
 * R2, R3). R0 0 (the default) chooses R0 from the noise level
 * (gpur::L1MCR0ForNoise of NoiseSigma / DataRange, NoiseSigma estimated from
 * the image when 0), so the filter denoises without parameters.
 *
 * Units. The model is not scale-invariant, so the engine solves on f /
 * DataRange (0: max f - min f) on a domain of mesh step MeshSize (0: 1 /
 * (max(width, height) - 1), the longer side of length 1) and scales back: the
 * same image in other intensity units gives the same result to rounding.
 * The image spacing makes the mesh anisotropic: the steps along x and y are
 * h * spacing / min(spacing), so physical aspect ratios are respected while
 * the parameters keep their meaning.
 *
 * Iterations stop when the relative change of the augmented Lagrangian
 * falls below Tolerance [Myllykoski2015a, eq. (4.5)] while the constraint
 * residuals R1-R3 are below gpur::kL1MCConstraintTolerance, or after
 * MaximumNumberOfIterations (then GetConverged() is false and an
 * itkWarningMacro says so). After every outer iteration the filter updates
 * the iteration getters (GetNumberOfIterations, GetObjective, GetLagrangian,
 * GetRelativeChange, GetR1Residual, GetR2Residual, GetR3Residual,
 * GetIterationInfo) and invokes an itk::IterationEvent, so an observer can
 * follow J, L and R1-R3; it also reports progress, and AbortGenerateData is
 * honoured between iterations (no partial output). On OpenCL everything
 * stays on the device across iterations; only a few reduced scalars are read
 * back per iteration.
 *
 * The filter needs the whole image (the u-subproblem is a global solve):
 * every request is widened to the largest possible region. The output keeps
 * the input's origin, spacing and direction. Backends (SetBackend,
 * SetDevice, GetBackendUsed), progress, abort and errors are those of the
 * base class itk::GPURestorationImageFilter.
 *
 * \ingroup ITKGPURestorationL1MeanCurvature
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class L1MeanCurvatureDenoiseImageFilter : public GPURestorationImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(L1MeanCurvatureDenoiseImageFilter);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = L1MeanCurvatureDenoiseImageFilter;
  using Superclass = GPURestorationImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkNewMacro(Self);
  itkTypeMacro(L1MeanCurvatureDenoiseImageFilter, GPURestorationImageFilter);

  /** The image types; the dimension is 2. */
  /** @ITKStartGrouping */
  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using OutputPixelType = typename TOutputImage::PixelType;
  /** @ITKEndGrouping */
  /** The engine computes in the output pixel type: float or double. */
  using RealType = OutputPixelType;
  /** The starting points of SetInitialization. */
  using InitializationEnum = L1MeanCurvatureDenoiseImageFilterEnums::Initialization;
  /** The corner treatments of SetCornerMass. */
  using CornerMassEnum = L1MeanCurvatureDenoiseImageFilterEnums::CornerMass;
  /** The solvers of SetSub2Solver. */
  using Sub2SolverEnum = L1MeanCurvatureDenoiseImageFilterEnums::Sub2Solver;

  static_assert(ImageDimension == 2, "L1MeanCurvatureDenoiseImageFilter supports 2D images");
  static_assert(std::is_same<RealType, float>::value || std::is_same<RealType, double>::value,
                "the output pixel type must be float or double");

  /** The regularisation knob r0 > 0 [Myllykoski2015a, eq. (5.1)]; 0 (default): chosen from NoiseSigma. */
  /** @ITKStartGrouping */
  itkSetMacro(R0, double);
  itkGetConstMacro(R0, double);
  /** @ITKEndGrouping */
  /** The noise standard deviation in the image's intensity units, used when R0 is 0; 0 (default): estimated. */
  /** @ITKStartGrouping */
  itkSetMacro(NoiseSigma, double);
  itkGetConstMacro(NoiseSigma, double);
  /** @ITKEndGrouping */
  /** The mesh step h of the normalised domain; 0 (default): 1 / (max(width, height) - 1). */
  /** @ITKStartGrouping */
  itkSetMacro(MeshSize, double);
  itkGetConstMacro(MeshSize, double);
  /** @ITKEndGrouping */
  /** The intensity span the model treats as 1; 0 (default): max - min of the input. */
  /** @ITKStartGrouping */
  itkSetMacro(DataRange, double);
  itkGetConstMacro(DataRange, double);
  /** @ITKEndGrouping */
  /** The weight eps of the curvature term; 0 (default): R0 h. */
  /** @ITKStartGrouping */
  itkSetMacro(Epsilon, double);
  itkGetConstMacro(Epsilon, double);
  /** @ITKEndGrouping */
  /** The penalty r1 of grad u = p1; 0 (default): 10 R0 h. */
  /** @ITKStartGrouping */
  itkSetMacro(R1, double);
  itkGetConstMacro(R1, double);
  /** @ITKEndGrouping */
  /** The penalty r2 of p2 = p3; 0 (default): 5 R0. */
  /** @ITKStartGrouping */
  itkSetMacro(R2, double);
  itkGetConstMacro(R2, double);
  /** @ITKEndGrouping */
  /** The penalty r3 of div p3 = psi; 0 (default): 5 R0 h^2. */
  /** @ITKStartGrouping */
  itkSetMacro(R3, double);
  itkGetConstMacro(R3, double);
  /** @ITKEndGrouping */
  /** The budget of outer iterations (>= 1). Default 1000. */
  /** @ITKStartGrouping */
  itkSetMacro(MaximumNumberOfIterations, unsigned int);
  itkGetConstMacro(MaximumNumberOfIterations, unsigned int);
  /** @ITKEndGrouping */
  /** Stop when the relative change of the augmented Lagrangian is below this (> 0). Default 1e-4. */
  /** @ITKStartGrouping */
  itkSetMacro(Tolerance, double);
  itkGetConstMacro(Tolerance, double);
  /** @ITKEndGrouping */
  /** The starting point. Default Zero. */
  /** @ITKStartGrouping */
  itkSetEnumMacro(Initialization, InitializationEnum);
  itkGetEnumMacro(Initialization, InitializationEnum);
  /** @ITKEndGrouping */
  /** The corner masses of the u-subproblem. Default Exact. */
  /** @ITKStartGrouping */
  itkSetEnumMacro(CornerMass, CornerMassEnum);
  itkGetEnumMacro(CornerMass, CornerMassEnum);
  /** @ITKEndGrouping */
  /** How the p3-subproblem is solved (gpur::L1MCSub2Solver). Default Direct. */
  /** @ITKStartGrouping */
  itkSetEnumMacro(Sub2Solver, Sub2SolverEnum);
  itkGetEnumMacro(Sub2Solver, Sub2SolverEnum);
  /** @ITKEndGrouping */

  /**
   * The latest outer iteration: during an update (from an IterationEvent
   * observer) the iteration just finished, afterwards the last one. J and L
   * are in the normalised units (f / DataRange); R1-R3 are the relative
   * constraint residuals of grad u = p1, p2 = p3 and div p3 = psi.
   */
  /** @ITKStartGrouping */
  itkGetConstMacro(NumberOfIterations, unsigned int);
  itkGetConstMacro(Objective, double);
  itkGetConstMacro(Lagrangian, double);
  itkGetConstMacro(RelativeChange, double);
  itkGetConstMacro(R1Residual, double);
  itkGetConstMacro(R2Residual, double);
  itkGetConstMacro(R3Residual, double);
  /** @ITKEndGrouping */
  /** Everything the engine reports of the latest outer iteration (also Newton's share and the CG steps). */
  const gpur::L1MCIterationInfo &
  GetIterationInfo() const
  {
    return m_IterationInfo;
  }
  /** Whether the last update met Tolerance, and the seconds its solve took. */
  /** @ITKStartGrouping */
  itkGetConstMacro(Converged, bool);
  itkGetConstMacro(ElapsedSeconds, double);
  /** @ITKEndGrouping */
  /** The parameters the last update used: R0 (chosen from the noise level when R0 is 0), h and the data range. */
  /** @ITKStartGrouping */
  itkGetConstMacro(R0Used, double);
  itkGetConstMacro(MeshSizeUsed, double);
  itkGetConstMacro(DataRangeUsed, double);
  /** @ITKEndGrouping */
  /** The noise sigma the last update used (0 when R0 was given), and whether it was estimated. */
  /** @ITKStartGrouping */
  itkGetConstMacro(NoiseSigmaUsed, double);
  itkGetConstMacro(NoiseSigmaEstimated, bool);
  /** @ITKEndGrouping */
  /** The full engine report of the last update (every iteration, residuals of the inner solves, timings). */
  const gpur::L1MCReport &
  GetReport() const
  {
    return m_Report;
  }

protected:
  L1MeanCurvatureDenoiseImageFilter() = default;
  ~L1MeanCurvatureDenoiseImageFilter() override = default;

  /** Runs gpur::DenoiseL1MeanCurvature on the input into the output. */
  void
  EngineGenerateData() override;
  /** Prints the settings and the results of the last update. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  /** The engine parameters from the filter's settings. */
  gpur::L1MCParameters
  MakeParameters() const;
  /** Records one outer iteration (the iteration getters), invokes IterationEvent; false once abort is set. */
  bool
  RecordIteration(const gpur::L1MCIterationInfo & info);

private:
  double m_R0{ 0.0 };
  double m_NoiseSigma{ 0.0 };
  double m_MeshSize{ 0.0 };
  double m_DataRange{ 0.0 };
  double m_Epsilon{ 0.0 };
  double m_R1{ 0.0 };
  double m_R2{ 0.0 };
  double m_R3{ 0.0 };
  unsigned int m_MaximumNumberOfIterations{ gpur::L1MCParameters().maxIterations };
  double m_Tolerance{ 1e-4 };
  InitializationEnum m_Initialization{ InitializationEnum::Zero };
  CornerMassEnum m_CornerMass{ CornerMassEnum::Exact };
  Sub2SolverEnum m_Sub2Solver{ Sub2SolverEnum::Direct };

  gpur::L1MCIterationInfo m_IterationInfo;
  unsigned int m_NumberOfIterations{ 0 };
  double m_Objective{ 0.0 };
  double m_Lagrangian{ 0.0 };
  double m_RelativeChange{ 0.0 };
  double m_R1Residual{ 0.0 };
  double m_R2Residual{ 0.0 };
  double m_R3Residual{ 0.0 };
  bool m_Converged{ false };
  double m_ElapsedSeconds{ 0.0 };
  double m_R0Used{ 0.0 };
  double m_MeshSizeUsed{ 0.0 };
  double m_DataRangeUsed{ 0.0 };
  double m_NoiseSigmaUsed{ 0.0 };
  bool m_NoiseSigmaEstimated{ false };
  gpur::L1MCReport m_Report;
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkL1MeanCurvatureDenoiseImageFilter.hxx"
#endif

/**
 * `declaration Filter<Image>;` for the image types the module's library compiles the filter for (2D float and
 * double; the model is 2D, so the 3D types of itkGPURestorationImageTypesMacro do not apply).
 */
#define itkL1MeanCurvatureImageTypesMacro(declaration, Filter)                                                         \
  declaration Filter<::itk::Image<float, 2>>;                                                                          \
  declaration Filter<::itk::Image<double, 2>>

// The common types are compiled once into ITKGPURestorationL1MeanCurvature.
itkL1MeanCurvatureImageTypesMacro(extern template class, itk::L1MeanCurvatureDenoiseImageFilter);

#endif
