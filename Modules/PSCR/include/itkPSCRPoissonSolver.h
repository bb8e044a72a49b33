// SPDX-License-Identifier: Apache-2.0
#ifndef itkPSCRPoissonSolver_h
#define itkPSCRPoissonSolver_h

#include "gpurPSCRSolver.h"
#include "gpurSeparableProblems.h"
#include "itkFixedArray.h"
#include "itkGPURestorationImageFilter.h"

#include <memory>
#include <string>
#include <vector>

namespace itk
{

/**
 * \class PSCRPoissonSolverEnums
 * \brief The boundary conditions and precisions of PSCRPoissonSolver (twins of
 * gpur::BoundaryCondition and gpur::PSCRPrecision).
 * \ingroup ITKGPURestorationPSCR
 */
class PSCRPoissonSolverEnums
{
public:
  /** What the stencil reads outside the image on one axis (see the class PSCRPoissonSolver). */
  enum class BoundaryCondition : uint8_t
  {
    /** 0, one spacing outside the edge voxel. */
    Dirichlet = static_cast<uint8_t>(gpur::BoundaryCondition::Dirichlet),
    /** The edge voxel itself (zero flux). */
    Neumann = static_cast<uint8_t>(gpur::BoundaryCondition::Neumann)
  };
  /** Where float images are solved (double images always in double). */
  enum class Precision : uint8_t
  {
    /** In float, redone in double where float cannot reach the residual target. */
    Automatic = static_cast<uint8_t>(gpur::PSCRPrecision::Automatic),
    /** In float only; throws where float is not enough. */
    Scalar = static_cast<uint8_t>(gpur::PSCRPrecision::Scalar),
    /** Always in double, rounded to float. */
    Double = static_cast<uint8_t>(gpur::PSCRPrecision::Double)
  };
};

namespace GPURestoration
{
template<>
struct EngineEnum<PSCRPoissonSolverEnums::BoundaryCondition>
{
  using Type = gpur::BoundaryCondition;
};
template<>
struct EngineEnum<PSCRPoissonSolverEnums::Precision>
{
  using Type = gpur::PSCRPrecision;
};
} // namespace GPURestoration

/**
 * \class PSCRPoissonSolver
 * \brief Fast direct solver of Poisson, modified Helmholtz and Helmholtz
 * equations on the grid of an image: right-hand side f in, solution u out.
 *
 * Solves  -Lap_h u + c u = f  with the standard second-order finite-difference
 * Laplacian in physical units (the 5-point stencil in 2D, 7-point in 3D, each
 * axis' difference divided by its spacing squared), so anisotropic voxels are
 * handled; u and f live on the input's grid, and the output keeps its origin,
 * spacing and direction (the Laplacian does not depend on the direction).
 * Shift c (SetShift): 0 is Poisson, c > 0 modified Helmholtz (screened Poisson,
 * a low-pass of length 1/sqrt(c)), c < 0 Helmholtz with wavenumber sqrt(-c).
 *
 * Boundary conditions, per axis (both ends of an axis alike), defined by what
 * the stencil reads outside the image:
 * - Dirichlet (default): 0. The boundary value u = 0 lies one spacing outside
 *   the first and the last voxel (the voxels are the interior nodes of a grid
 *   whose boundary nodes are not part of the image). A nonzero boundary value
 *   g next to voxel i is the right-hand side f_i + g / h^2.
 * - Neumann: the edge voxel itself (zero flux, a mirror half a spacing outside
 *   the image, as itk::ZeroFluxNeumannBoundaryCondition).
 * Both are second-order accurate (observed orders 1.95-2.01 in the tests).
 *
 * Singular problems: with Neumann on every axis and c = 0 (pure-Neumann
 * Poisson) the constants solve the homogeneous problem, and a solution exists
 * only when the sum of f is 0. By default the filter accepts f whose sum is 0
 * up to rounding (|sum f| / (sqrt(N) ||f||) <= sqrt(machine epsilon)) and
 * refuses any other f with an itk::ExceptionObject; ProjectRightHandSideOn()
 * subtracts the mean of f first (the least-squares solution). The solution
 * returned has zero mean. IsSingular() tells. A negative c equal to minus an
 * eigenvalue of -Lap_h makes the operator singular in the same way (its null
 * vector is then that eigenvector); near such c the problem is ill-conditioned.
 *
 * The method is PSCR, the partial solution variant of cyclic reduction
 * (radix 4 by default, or 2; SetRadix), in O(N log n) operations; see
 * gpur::PSCRSolver. The image's axes, uniform with Dirichlet or Neumann at
 * both ends, are instead diagonalised by fast sine and cosine transforms (the
 * DST-I, the DCT-II; FFTW on the CPU backend, VkFFT on OpenCL), the classical
 * FFT Poisson solver and 3-9x faster than PSCR on the CPU (1.7-8.7x on PoCL);
 * the result is the same to
 * rounding and checked alike. UseFastTransformsOff() forces PSCR;
 * GetSolvePath() says which method ran. Its plan (the eigenproblems of the reduction, the
 * expensive part) is built on the first update and kept: later updates with a
 * new right-hand side on the same grid (size and spacing) and the same
 * settings reuse it (GetPlanReused(), GetNumberOfPlanBuilds()).
 *
 * Backends (SetBackend, SetDevice, GetBackendUsed), those of the base class
 * itk::GPURestorationImageFilter and of the engine (gpur::PSCROptions::execution):
 * CPU is the multithreaded reference (on ITK's thread pool, honouring
 * SetNumberOfWorkUnits); OpenCL uploads the plan once and runs each solve on
 * the selected device. The plan is built for one backend and device, so
 * changing them rebuilds it.
 *
 * Not in this filter (use the engine, gpurPSCRSolver.h with
 * gpurSeparableProblems.h, on plain arrays): non-uniform meshes (P1 elements,
 * gpur::MakeP1Axis; an itk::Image has uniform spacing) and complex Helmholtz
 * with the second-order absorbing boundary (gpur::MakeHelmholtzABCAxis with
 * gpur::PSCRSolver<std::complex<double>>). The absorbing boundary is a
 * finite-element discretisation with a consistent mass matrix whose unknowns
 * include the boundary nodes and whose right-hand side is a load vector, not
 * pixel values on this filter's finite-difference grid, and its solution is
 * complex; an image filter would have to invent a second contract for it.
 *
 * Accuracy: every update checks the solution it returns, as the engine does
 * for every solve (gpur::PSCRSolver, "Accuracy"): the relative residual
 * ||f - A u|| / ||f||, evaluated in double, must reach a target, by default 8x
 * the rounding floor (the residual the exact solution has once rounded to the
 * output pixel type; SetResidualTolerance sets another), with at most
 * MaximumNumberOfRefinementSteps steps of iterative refinement. Float images
 * of problems float arithmetic cannot solve accurately (indefinite Helmholtz,
 * c below minus the smallest eigenvalue, on large grids) are solved in double
 * and rounded to float (SetPrecision: Automatic, the default; Double always;
 * Scalar never). A solve that cannot reach its target raises
 * itk::ExceptionObject with what it reached and what to change, and leaves no
 * output. After Update(): GetRelativeResidual(), GetResidualTarget(),
 * GetRoundingFloor(), GetNumberOfRefinementSteps(), GetComputedInDouble().
 *
 * Progress: 0 at the start, 0.5 once the plan is ready, 1 at the end;
 * AbortGenerateDataOn() is honoured between the plan and the solve. On abort
 * or error the output holds no partial result. Errors (an empty or single-voxel
 * image, non-finite pixels or shift, a radix other than 2 or 4, a residual
 * tolerance or refinement-step count out of range, an incompatible singular
 * right-hand side, an unknown device, a solve short of its residual target)
 * raise itk::ExceptionObject.
 *
 * The output is always the whole image: the solution at any voxel depends on
 * all of f, so the filter requests the whole input.
 *
 * \ingroup ITKGPURestorationPSCR
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class PSCRPoissonSolver : public GPURestorationImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(PSCRPoissonSolver);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = PSCRPoissonSolver;
  using Superclass = GPURestorationImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkNewMacro(Self);
  itkTypeMacro(PSCRPoissonSolver, GPURestorationImageFilter);

  /** The image types and their dimension, 2 or 3. */
  /** @ITKStartGrouping */
  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using OutputPixelType = typename TOutputImage::PixelType;
  /** @ITKEndGrouping */
  /** The solver computes in the output pixel type: float or double. */
  using RealType = OutputPixelType;
  /** Auto, CPU or OpenCL (see the base class). */
  using typename Superclass::BackendEnum;
  /** Where float images are solved: Automatic, Scalar (float only) or Double (see the class documentation). */
  using PrecisionEnum = PSCRPoissonSolverEnums::Precision;
  /** Dirichlet or Neumann, and one of them per axis. */
  /** @ITKStartGrouping */
  using BoundaryConditionEnum = PSCRPoissonSolverEnums::BoundaryCondition;
  using BoundaryConditionArrayType = FixedArray<BoundaryConditionEnum, ImageDimension>;
  /** @ITKEndGrouping */

  static_assert(ImageDimension == 2 || ImageDimension == 3, "PSCRPoissonSolver supports 2D and 3D");
  static_assert(std::is_same<RealType, float>::value || std::is_same<RealType, double>::value,
                "the output pixel type must be float or double");
  static_assert(static_cast<unsigned int>(TOutputImage::ImageDimension) == ImageDimension,
                "the input and output images must have the same dimension");

  /** c of -Lap u + c u = f (finite): 0 Poisson (default), > 0 modified Helmholtz, < 0 Helmholtz. */
  /** @ITKStartGrouping */
  itkSetMacro(Shift, double);
  itkGetConstMacro(Shift, double);
  /** @ITKEndGrouping */

  /** The boundary condition of both ends of one axis (0 = x); throws for an axis >= ImageDimension. */
  void
  SetBoundaryCondition(unsigned int axis, BoundaryConditionEnum condition);
  /** The same boundary condition on every axis. */
  void
  SetBoundaryCondition(BoundaryConditionEnum condition);
  /** Throws for an axis >= ImageDimension. */
  BoundaryConditionEnum
  GetBoundaryCondition(unsigned int axis) const;
  /** All axes at once. Default: Dirichlet everywhere. */
  /** @ITKStartGrouping */
  void
  SetBoundaryConditions(const BoundaryConditionArrayType & conditions);
  itkGetConstReferenceMacro(BoundaryConditions, BoundaryConditionArrayType);
  /** @ITKEndGrouping */

  /** Radix q of the reduction: 4 (default) or 2 (other values are refused at the update). */
  /** @ITKStartGrouping */
  itkSetMacro(Radix, unsigned int);
  itkGetConstMacro(Radix, unsigned int);
  /** @ITKEndGrouping */

  /**
   * Solve with fast sine/cosine transforms (default on, both backends; see
   * the class documentation); off: PSCR on every axis.
   */
  /** @ITKStartGrouping */
  itkSetMacro(UseFastTransforms, bool);
  itkGetConstMacro(UseFastTransforms, bool);
  itkBooleanMacro(UseFastTransforms);
  /** @ITKEndGrouping */

  /**
   * Singular problems only (pure-Neumann Poisson): subtract the component of f
   * along the null vector (the mean of f) instead of refusing an f whose sum is
   * not 0. Default off.
   */
  /** @ITKStartGrouping */
  itkSetMacro(ProjectRightHandSide, bool);
  itkGetConstMacro(ProjectRightHandSide, bool);
  itkBooleanMacro(ProjectRightHandSide);
  /** @ITKEndGrouping */

  /**
   * The relative residual ||f - A u|| / ||f|| a solve must reach (finite, >= 0);
   * 0 (default) selects 8x the rounding floor of the solution. A value below
   * the floor cannot be met: the update throws.
   */
  /** @ITKStartGrouping */
  itkSetMacro(ResidualTolerance, double);
  itkGetConstMacro(ResidualTolerance, double);
  /** @ITKEndGrouping */

  /**
   * Where float images are solved (double images always in double): Automatic
   * (default; in float, redone in double when float cannot reach the target,
   * and in double from then on with this plan), Scalar (float only; throws when
   * float is not enough) or Double (always in double, rounded to float).
   */
  /** @ITKStartGrouping */
  itkSetEnumMacro(Precision, PrecisionEnum);
  itkGetEnumMacro(Precision, PrecisionEnum);
  /** @ITKEndGrouping */

  /** Most steps of iterative refinement per solve: -1 (default) automatic (8), or 0 to 16. */
  /** @ITKStartGrouping */
  itkSetMacro(MaximumNumberOfRefinementSteps, int);
  itkGetConstMacro(MaximumNumberOfRefinementSteps, int);
  /** @ITKEndGrouping */

  /** Results of the last update. Seconds spent building the plan; 0 when the cached plan was reused. */
  itkGetConstMacro(SetupSeconds, double);
  /** Seconds of the solve itself (the right-hand side's conversion and the output's allocation excluded). */
  itkGetConstMacro(SolveSeconds, double);
  /** The last update reused the plan of an earlier one. */
  itkGetConstMacro(PlanReused, bool);
  /** Plans built by this filter so far (one per change of grid or settings). */
  itkGetConstMacro(NumberOfPlanBuilds, SizeValueType);
  /** ||f - A u|| / ||f|| of the last update's output, evaluated in double (singular problems: f projected). */
  itkGetConstMacro(RelativeResidual, double);
  /** The target the last update's residual had to reach (ResidualTolerance, or 8x the rounding floor). */
  itkGetConstMacro(ResidualTarget, double);
  /** The residual of the exact solution rounded to the output pixel type (its expected value). */
  itkGetConstMacro(RoundingFloor, double);
  /** Refinement steps the last update took. */
  itkGetConstMacro(NumberOfRefinementSteps, unsigned int);
  /** The last update solved float data in double (Precision Double, or Automatic found float insufficient). */
  itkGetConstMacro(ComputedInDouble, bool);
  /**
   * The method of the last update: "PSCR", or the fast transforms per axis,
   * e.g. "fast transforms (x: DST-I, y: DST-I)" (gpur::PSCRSolver::Path()).
   */
  itkGetStringMacro(SolvePath);
  /** The operator of the last update is singular (see the class documentation). */
  bool
  IsSingular() const
  {
    return m_Singular;
  }

protected:
  PSCRPoissonSolver();
  ~PSCRPoissonSolver() override = default;

  /** Builds or reuses the plan, then solves. */
  void
  EngineGenerateData() override;
  /** The engine's messages in this filter's terms (its setters), with the fix for an incompatible input. */
  std::string
  DescribeEngineError(const gpur::Error & error) const override;
  /** Prints the settings and the results of the last update. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  /** What a plan depends on: the grid and every setting that enters the operator or the options. */
  struct PlanKey
  {
    gpur::Grid grid;
    std::vector<gpur::BoundaryCondition> conditions;
    double shift = 0.0;
    unsigned int radix = 0;
    bool fastTransforms = true;
    bool project = false;
    double residualTolerance = 0.0;
    PrecisionEnum precision = PrecisionEnum::Automatic;
    int refinementSteps = -1;
    ThreadIdType workUnits = 0;
    BackendEnum backend = BackendEnum::Auto;
    std::string device;

    bool
    operator==(const PlanKey & other) const;
  };

  /** The plan for key: the cached one if its key matches, else a new one (timed, counted). */
  void
  PreparePlan(const PlanKey & key);

  double m_Shift{ 0.0 };
  BoundaryConditionArrayType m_BoundaryConditions;
  unsigned int m_Radix{ 4 };
  bool m_UseFastTransforms{ true };
  bool m_ProjectRightHandSide{ false };
  double m_ResidualTolerance{ 0.0 };
  PrecisionEnum m_Precision{ PrecisionEnum::Automatic };
  int m_MaximumNumberOfRefinementSteps{ -1 };

  double m_SetupSeconds{ 0.0 };
  double m_SolveSeconds{ 0.0 };
  bool m_PlanReused{ false };
  SizeValueType m_NumberOfPlanBuilds{ 0 };
  bool m_Singular{ false };
  double m_RelativeResidual{ 0.0 };
  double m_ResidualTarget{ 0.0 };
  double m_RoundingFloor{ 0.0 };
  unsigned int m_NumberOfRefinementSteps{ 0 };
  bool m_ComputedInDouble{ false };
  std::string m_SolvePath;

  std::unique_ptr<gpur::PSCRSolver<RealType>> m_Plan;
  PlanKey m_PlanKey;
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkPSCRPoissonSolver.hxx"
#endif

// The common types are compiled once into ITKGPURestorationPSCR.
itkGPURestorationImageTypesMacro(extern template class, itk::PSCRPoissonSolver);

#endif
