// SPDX-License-Identifier: Apache-2.0
// OpenCL backend of one outer iteration of [Myllykoski2015a, Algorithm 1]
// (kernels/l1mc_*.cl), the twin of gpurL1MCStepperCPU.cxx.
//
// Every field stays on the device across iterations, on the PSCR solver's
// context, and every kernel runs on its in-order compute queue: Sub #1 as a
// Newton kernel over all squares that appends its failures to a work list
// plus a fixed-size fallback kernel striding over that list [Myllykoski2015b,
// §3.1] (on CPU drivers the kernels of l1mc_sub1_lanes.cl instead, vectors
// of squares or of listed triangles per work-item: UsesLanes); Sub #2
// directly (PSCRSolver::EnqueueSolve of the interior Helmholtz problem of
// gpurL1MCSub2.h between two kernels, then the residual
// check) or as CG with every scalar on the device (the budget of
// CGBudget enqueued, steps after convergence return at once); Sub #3 a
// pointwise kernel; Sub #4 the right-hand side, PSCRSolver::EnqueueSolve and
// the exact-corner correction; then one kernel for the multipliers and the
// sums of L_rh, J_h and R1-R3. The host reads back one small array of
// doubles per outer iteration (the sums, the CG state, the Newton failures).
//
// Timings: the queue is finished after each subproblem and the host clock
// read, so each subproblem's seconds include its kernels' execution (and one
// synchronisation, a few microseconds).
#include "gpurBuffer.h"
#include "gpurL1MCKernels.h" // generated from kernels/*.cl
#include "gpurL1MCStepper.h"
#include "gpurL1MCSub2.h"
#include "gpurL1MCSub4.h"
#include "gpurL1MCTriangle.h"
#include "gpurProgram.h"
#include "gpurReduce.h"
#include "gpurStopwatch.h"

#include <algorithm>
#include <string>
#include <vector>

namespace gpur
{
namespace l1mc
{
namespace
{

/**
 * Whether Sub #1 runs as l1mc_sub1_newton_lanes, l1mc_sub1_continue_lanes
 * and l1mc_sub1_fallback_lanes (vectors of squares or of listed triangles per
 * work-item, for CPU drivers, which do not vectorise the per-triangle kernels
 * across work-items) rather than l1mc_sub1_newton and l1mc_sub1_fallback (a
 * triangle per work-item, for GPUs): on CPU devices, unless
 * $ITKGPUR_L1MC_NEWTON says "lanes" or "scalar" (so that either can be
 * tested, or timed, on any device). Both give the same p1.
 */
bool
UsesLanes(const DeviceInfo & device)
{
  return KernelFormChoice("ITKGPUR_L1MC_NEWTON", "lanes", "scalar", device.type == DeviceType::CPU);
}

/**
 * Lanes per work-item of l1mc_sub1_newton_lanes: a 64-byte vector (AVX-512;
 * two registers elsewhere). The triangle planes are at least 80 entries longer
 * than the image (l1mc_plane), which the kernel's vector reads past the last
 * square rely on.
 */
constexpr int kLanesDouble = 8;
constexpr int kLanesFloat = 16;

/**
 * Vertices per work-item of l1mc_measure on CPU drivers (GPUs: 1). PoCL runs a
 * work-group's items as a loop split at every barrier, so the kernel's tree
 * reduction of 16 sums cost as much as the pass itself; a run of 32 vertices
 * per item summed in registers makes it 32 times rarer (PoCL, 512^2, double:
 * 8.1 -> 5.5 ms per iteration; 8 vertices: 6.3 ms, 128: 5.4 ms).
 */
constexpr std::size_t kMeasureSpanCPU = 32;

/** Slots of the scalar array read back once per outer iteration. */
enum Slot
{
  SlotPsiMass,
  SlotFidelity,
  SlotPenaltyQ,
  SlotPenaltyV,
  SlotCurvature,
  SlotGradMinusP1,
  SlotGrad,
  SlotP1,
  SlotP2MinusP3,
  SlotP2,
  SlotP3,
  SlotDivMinusPsi,
  SlotDiv,
  SlotPsi,
  SlotSub4Residual, ///< ||rhs - A u||^2
  SlotSub4Rhs,      ///< ||rhs||^2
  MeasureWidth,
  SlotNewtonFailures = MeasureWidth,
  SlotCG, ///< 8 slots of l1mc_cg.cl from here
  SlotCount = SlotCG + 8
};

/**
 * The stride between the four planes of a triangle field on the device
 * (l1mc_plane in kernels/l1mc_fe.cl, which explains the padding: planes
 * 2^k bytes apart thrash the caches).
 */
inline std::size_t
TrianglePlane(const Mesh & mesh)
{
  return (mesh.Count() + 15) / 16 * 16 + 80;
}

template<typename Real>
class StepperOpenCL : public Stepper<Real>
{
public:
  StepperOpenCL(const Real * f,
                const Constants & constants,
                const ResolvedBackend & backend,
                const ExecutionOptions & execution)
    : m_C(constants)
    , m_Mesh(constants.mesh)
    , m_N(constants.mesh.Count())
    , m_Plane(TrianglePlane(constants.mesh))
    , m_Sub4(constants, backend, execution)
    , m_Context(m_Sub4.Solver().Context())
    , m_Ihx(Real(1.0 / m_Mesh.hx))
    , m_Ihy(Real(1.0 / m_Mesh.hy))
  {
    const bool isDouble = sizeof(Real) == 8;
    m_Context.RequireDouble("L1-mean-curvature denoising (its sums and PSCR's checks run in double)");
    if (constants.sub2Solver == L1MCSub2Solver::Direct)
      m_Sub2 = MakeSub2Solver<Real>(constants, backend, execution); // on the same device's shared context
    m_Group = PowerOfTwoGroupSize(m_Context.Info(), 128);
    const Program program = BuildProgram(m_Context,
                                         ProgramSpec("L1-mean-curvature denoising", isDouble)
                                           .Core({ "gpur_common.cl", "gpur_reduce.cl" })
                                           .Module(kernels::l1mc::Find,
                                                   { "l1mc_newton.cl",
                                                     "l1mc_triangle.cl",
                                                     "l1mc_fe.cl",
                                                     "l1mc_sub.cl",
                                                     "l1mc_sub2.cl",
                                                     "l1mc_cg.cl",
                                                     "l1mc_measure.cl" }));
    for (const char * name : { "l1mc_sub1_newton",
                               "l1mc_sub1_fallback",
                               "l1mc_sub3",
                               "l1mc_sub4_rhs",
                               "l1mc_sub4_corners",
                               "l1mc_init_data",
                               "l1mc_divergence_field",
                               "l1mc_sub2_rhs",
                               "l1mc_sub2_direct_rhs",
                               "l1mc_sub2_direct_p3",
                               "l1mc_sub2_check",
                               "l1mc_cg_divergence",
                               "l1mc_cg_residual",
                               "l1mc_cg_start",
                               "l1mc_cg_apply",
                               "l1mc_cg_alpha",
                               "l1mc_cg_update",
                               "l1mc_cg_beta",
                               "l1mc_cg_direction",
                               "l1mc_cg_sum",
                               "l1mc_measure",
                               "l1mc_finish" })
      m_Kernels.emplace_back(program.MakeKernel(name));
    m_ListCapacity = 2 * m_N;
    if (UsesLanes(m_Context.Info()))
    {
      const int lanes = isDouble ? kLanesDouble : kLanesFloat;
      const std::string scalar = isDouble ? "double" : "float";
      const Program lanesProgram =
        BuildProgram(m_Context,
                     ProgramSpec("L1-mean-curvature denoising (Sub #1 on vectors)", isDouble)
                       .Core({ "gpur_common.cl" })
                       .Module(kernels::l1mc::Find, { "l1mc_newton.cl", "l1mc_triangle.cl", "l1mc_sub1_lanes.cl" })
                       .Define("L1MC_LANES", std::to_string(lanes))
                       .Define("L1MC_LANE_SCALAR", scalar)
                       .Define("L1MC_LANE_REAL", scalar + std::to_string(lanes))
                       .Define("L1MC_LANE_MASK", (isDouble ? "long" : "int") + std::to_string(lanes)));
      m_Lanes.emplace_back(lanesProgram.MakeKernel("l1mc_sub1_newton_lanes"));
      m_Lanes.emplace_back(lanesProgram.MakeKernel("l1mc_sub1_continue_lanes"));
      m_Lanes.emplace_back(lanesProgram.MakeKernel("l1mc_sub1_fallback_lanes"));
      const std::size_t items = (m_N + lanes - 1) / lanes;
      m_LanesGlobal = (items + m_Group - 1) / m_Group * m_Group;
      // Two ends of 2 N entries each: every triangle fails at most once (bottom) and is cut short at most once
      // (top), so they never meet.
      m_ListCapacity = 4 * m_N;
    }
    m_Global = (m_N + m_Group - 1) / m_Group * m_Group;
    m_Groups = m_Global / m_Group;
    m_MeasureSpan = m_Context.Info().type == DeviceType::CPU ? kMeasureSpanCPU : 1;
    m_MeasureGroups = ((m_N + m_MeasureSpan - 1) / m_MeasureSpan + m_Group - 1) / m_Group;
    // Fields: 7 vertex planes (and the direct Sub #2's interior one), 6 triangle fields of 4 planes (and CG's d
    // and Ad), the work list, Z, the per-item values of the sums (2 doubles).
    const std::uint64_t bytes =
      (7 + 3 * 2 + (m_Sub4.Exact() ? 4 : 0) + (m_Sub2 ? 1 : 0)) * std::uint64_t(m_N) * sizeof(Real) +
      (m_Sub2 ? 6 : 8) * 4 * std::uint64_t(m_Plane) * sizeof(Real) +
      std::uint64_t(m_ListCapacity) * (sizeof(cl_int) + 2 * sizeof(Real)) + 16 * std::uint64_t(m_N);
    m_Context.CheckMemory(bytes,
                          4 * m_Plane * sizeof(Real),
                          "L1-mean-curvature denoising of " + std::to_string(m_Mesh.nx) + "x" +
                            std::to_string(m_Mesh.ny) + " pixels");
    const cl::CommandQueue & q = Queue();
    for (DeviceBuffer<Real> * b : { &m_F, &m_U, &m_Psi, &m_L3, &m_V, &m_Rhs, &m_Y })
    {
      *b = DeviceBuffer<Real>(m_Context, m_N);
      b->Fill(q, Real(0));
    }
    for (DeviceBuffer<Real> * b : { &m_P1, &m_P2, &m_P3, &m_L1, &m_L2, &m_R, &m_D, &m_Ad })
    {
      if (m_Sub2 && (b == &m_D || b == &m_Ad))
        continue; // CG's alone
      *b = DeviceBuffer<Real>(m_Context, 4 * m_Plane);
      b->Fill(q, Real(0));
    }
    if (m_Sub2)
      m_T = DeviceBuffer<Real>(m_Context, m_Sub2->Count());
    m_ListTriangle = DeviceBuffer<cl_int>(m_Context, m_ListCapacity);
    m_ListPoint = DeviceBuffer<Real>(m_Context, 2 * m_ListCapacity);
    m_ListCount = DeviceBuffer<cl_int>(m_Context, 2); // failures (bottom); with the lanes, runs to continue (top)
    m_Partials = DeviceBuffer<double>(m_Context, MeasureWidth * m_Groups);
    // CG's dot products: one value per vertex index (two for the start).
    m_Items = DeviceBuffer<double>(m_Context, 2 * m_N);
    m_SumGroups = std::min<std::size_t>(m_Groups, 8 * std::max<std::size_t>(1, m_Context.Info().computeUnits));
    m_SumBlocked = m_Context.Info().type == DeviceType::CPU ? 1 : 0;
    m_Scalars = DeviceBuffer<double>(m_Context, SlotCount);
    m_Scalars.Fill(q, 0.0);
    m_Cinv = DeviceBuffer<double>(m_Context, 16);
    m_Cinv.Upload(q, std::vector<double>(m_Sub4.CapacitanceInverse().begin(), m_Sub4.CapacitanceInverse().end()));
    if (m_Sub4.Exact())
    {
      m_Z = DeviceBuffer<Real>(m_Context, 4 * m_N);
      m_Z.Upload(q, m_Sub4.Z());
    }
    m_F.Upload(q, f, m_N);
    m_Fallback = std::max<std::size_t>(m_Group, std::size_t(m_Context.Info().computeUnits) * m_Group);
  }

  Sums
  Initialize() override
  {
    const cl::CommandQueue & q = Queue();
    for (DeviceBuffer<Real> * b : { &m_U, &m_Psi, &m_L3, &m_Rhs })
      b->Fill(q, Real(0));
    for (DeviceBuffer<Real> * b : { &m_P1, &m_P2, &m_P3, &m_L1, &m_L2 })
      b->Fill(q, Real(0));
    if (m_C.initialization == L1MCInitialization::Data)
    {
      m_U.CopyFrom(q, m_F);
      Run(K::InitData, m_F.Get(), m_P1.Get(), m_P2.Get(), m_P3.Get(), Nx(), Ny(), m_Ihx, m_Ihy);
      Run(K::DivergenceField, m_P3.Get(), m_Psi.Get(), Nx(), Ny(), m_Ihx, m_Ihy);
    }
    m_ListCount.Fill(q, cl_int(0));
    MeasureKernel(0);
    return ReadSums();
  }

  Sums
  Iterate() override
  {
    const cl::CommandQueue & q = Queue();
    const Stopwatch clock;
    double mark = 0.0;
    const auto lap = [&]
    {
      q.finish();
      const double now = clock.Seconds(), seconds = now - mark;
      mark = now;
      return seconds;
    };
    SubProblem1();
    m_Timings.sub1 += lap();
    if (m_Sub2)
      SubProblem2Direct();
    else
      SubProblem2(CGBudget(m_C, m_CGPrevious));
    m_Timings.sub2 += lap();
    Run(K::Sub3, m_P3.Get(), m_L3.Get(), m_Psi.Get(), Nx(), Ny(), m_Ihx, m_Ihy, Real(m_C.r3), Real(m_C.epsilon));
    m_Timings.sub3 += lap();
    SubProblem4();
    m_Timings.sub4 += lap();
    MeasureKernel(1);
    Sums sums = ReadSums();
    m_Timings.misc += lap();
    m_CGPrevious = sums.cgIterations;
    return sums;
  }

  void
  Store(Real * u) const override
  {
    m_U.Download(Queue(), u, m_N);
  }

  L1MCTimings
  Timings() const override
  {
    return m_Timings;
  }

private:
  /** The kernels, in the order of the constructor's list. */
  enum class K
  {
    Sub1Newton,
    Sub1Fallback,
    Sub3,
    Sub4Rhs,
    Sub4Corners,
    InitData,
    DivergenceField,
    Sub2Rhs,
    Sub2DirectRhs,
    Sub2DirectP3,
    Sub2Check,
    CGDivergence,
    CGResidual,
    CGStart,
    CGApply,
    CGAlpha,
    CGUpdate,
    CGBeta,
    CGDirection,
    CGSum,
    Measure,
    Finish
  };

  const cl::CommandQueue &
  Queue() const
  {
    return m_Context.Queue(0);
  }
  cl_int
  Nx() const
  {
    return cl_int(m_Mesh.nx);
  }
  cl_int
  Ny() const
  {
    return cl_int(m_Mesh.ny);
  }
  Kernel &
  Get(K k)
  {
    return m_Kernels[std::size_t(k)];
  }
  /** One work-item per vertex / square. */
  template<typename... Args>
  void
  Run(K k, const Args &... args)
  {
    Get(k).Set(args...).Enqueue(Queue(), cl::NDRange(m_Global), cl::NDRange(m_Group));
  }
  /** One work-group (the reductions' last stage). */
  template<typename... Args>
  void
  RunOneGroup(K k, const Args &... args)
  {
    Get(k).Set(args...).Enqueue(Queue(), cl::NDRange(m_Group), cl::NDRange(m_Group));
  }
  cl::LocalSpaceArg
  Scratch() const
  {
    return cl::Local(m_Group * sizeof(double));
  }

  void
  SubProblem1()
  {
    const L1MCTriangleSettings<Real> settings = Settings();
    m_ListCount.Fill(Queue(), cl_int(0));
    if (m_Lanes.empty())
    {
      EnqueueSub1(
        Get(K::Sub1Newton), cl::NDRange(m_Global), settings.newtonTolerance, cl_int(settings.newtonIterations));
      EnqueueSub1(Get(K::Sub1Fallback),
                  cl::NDRange(m_Fallback),
                  cl_int(settings.eta),
                  settings.coarseTolerance,
                  settings.fineTolerance);
      return;
    }
    // On vectors: Newton's first steps, the runs cut short continued, then Algorithm 2 on the failures.
    const int steps = std::max(0, std::min(kL1MCLaneNewtonSteps, settings.newtonIterations));
    const cl_int plane = cl_int(m_Plane), capacity = cl_int(m_ListCapacity);
    EnqueueSub1(m_Lanes[0], cl::NDRange(m_LanesGlobal), plane, capacity, settings.newtonTolerance, cl_int(steps));
    EnqueueSub1(m_Lanes[1],
                cl::NDRange(m_Fallback),
                plane,
                capacity,
                settings.newtonTolerance,
                cl_int(settings.newtonIterations - steps));
    EnqueueSub1(m_Lanes[2],
                cl::NDRange(m_Fallback),
                plane,
                cl_int(settings.eta),
                settings.coarseTolerance,
                settings.fineTolerance);
  }
  /**
   * A Sub #1 kernel (kernels/l1mc_sub.cl, l1mc_sub1_lanes.cl): each takes the fields and r1, r2,
   * then their own settings (`settings`), then the work list.
   */
  template<typename... Settings>
  void
  EnqueueSub1(Kernel & kernel, const cl::NDRange & global, const Settings &... settings)
  {
    kernel
      .Set(m_U.Get(),
           m_P1.Get(),
           m_P2.Get(),
           m_P3.Get(),
           m_L1.Get(),
           m_L2.Get(),
           Nx(),
           Ny(),
           m_Ihx,
           m_Ihy,
           Real(m_C.r1),
           Real(m_C.r2),
           settings...,
           m_ListCount.Get(),
           m_ListTriangle.Get(),
           m_ListPoint.Get())
      .Enqueue(Queue(), global, cl::NDRange(m_Group));
  }
  L1MCTriangleSettings<Real>
  Settings() const
  {
    L1MCTriangleSettings<Real> settings;
    settings.eta = m_C.eta;
    return settings;
  }

  /**
   * Sub #2 directly (kernels/l1mc_sub2.cl, gpurL1MCSub2.h): b into r, D b on the interior vertices, the Helmholtz
   * solve, p3; then ||b||^2 and ||b - A p3||^2 into CG's slots (no step taken), with no host read.
   */
  void
  SubProblem2Direct()
  {
    const Real r2 = Real(m_C.r2), r3 = Real(m_C.r3);
    Run(K::Sub2Rhs, m_P2.Get(), m_L2.Get(), m_Psi.Get(), m_L3.Get(), m_R.Get(), Nx(), Ny(), m_Ihx, m_Ihy, r2, r3);
    Run(K::Sub2DirectRhs, m_R.Get(), m_T.Get(), Nx(), Ny(), m_Ihx, m_Ihy, Real(Sub2RhsScale(m_C)));
    m_Sub2->EnqueueSolve(m_T, m_T);
    Run(K::Sub2DirectP3, m_R.Get(), m_T.Get(), m_P3.Get(), Nx(), Ny(), m_Ihx, m_Ihy, r2, r3);
    Run(K::DivergenceField, m_P3.Get(), m_V.Get(), Nx(), Ny(), m_Ihx, m_Ihy);
    Run(K::Sub2Check, m_R.Get(), m_P3.Get(), m_V.Get(), Nx(), Ny(), m_Ihx, m_Ihy, r2, r3, m_Items.Get());
    StartCG(0);
  }

  /** The per-item ||b||^2 and ||r||^2 into CG's slots: a fresh CG run's state, stopped when `budget` is 0. */
  void
  StartCG(unsigned budget)
  {
    Sum(0, 0);
    Sum(1, 0);
    RunOneGroup(K::CGStart,
                m_Partials.Get(),
                cl_int(m_SumGroups),
                m_Scalars.Get(),
                cl_int(SlotCG),
                m_C.cgTolerance,
                cl_int(budget),
                Scratch());
  }

  /** CG (kernels/l1mc_cg.cl): `budget` steps enqueued; those after convergence return at once. */
  void
  SubProblem2(unsigned budget)
  {
    const Real r2 = Real(m_C.r2), r3 = Real(m_C.r3);
    const cl_int base = SlotCG, groups = cl_int(m_SumGroups);
    Run(K::DivergenceField, m_P3.Get(), m_V.Get(), Nx(), Ny(), m_Ihx, m_Ihy);
    Run(K::CGResidual,
        m_P2.Get(),
        m_L2.Get(),
        m_Psi.Get(),
        m_L3.Get(),
        m_P3.Get(),
        m_V.Get(),
        m_R.Get(),
        m_D.Get(),
        Nx(),
        Ny(),
        m_Ihx,
        m_Ihy,
        r2,
        r3,
        m_Items.Get());
    StartCG(budget);
    for (unsigned k = 0; k < budget; ++k)
    {
      Run(K::CGDivergence, m_D.Get(), m_V.Get(), Nx(), Ny(), m_Ihx, m_Ihy, m_Scalars.Get(), base);
      Run(K::CGApply,
          m_D.Get(),
          m_V.Get(),
          m_Ad.Get(),
          Nx(),
          Ny(),
          m_Ihx,
          m_Ihy,
          r2,
          r3,
          m_Scalars.Get(),
          base,
          m_Items.Get());
      Sum(0, 1);
      RunOneGroup(K::CGAlpha, m_Partials.Get(), groups, m_Scalars.Get(), base, Scratch());
      Run(K::CGUpdate, m_P3.Get(), m_R.Get(), m_D.Get(), m_Ad.Get(), Nx(), Ny(), m_Scalars.Get(), base, m_Items.Get());
      Sum(0, 1);
      RunOneGroup(K::CGBeta, m_Partials.Get(), groups, m_Scalars.Get(), base, cl_int(budget), Scratch());
      Run(K::CGDirection, m_R.Get(), m_D.Get(), Nx(), Ny(), m_Scalars.Get(), base);
    }
  }

  /** l1mc_cg_sum: the per-item values of CG's last kernel into work-group partials (m_SumGroups per component). */
  void
  Sum(int component, int guarded)
  {
    Get(K::CGSum)
      .Set(m_Items.Get(),
           cl_int(m_N),
           cl_int(component),
           m_Scalars.Get(),
           cl_int(SlotCG),
           cl_int(guarded),
           m_SumBlocked,
           m_Partials.Get(),
           Scratch())
      .Enqueue(Queue(), cl::NDRange(m_SumGroups * m_Group), cl::NDRange(m_Group));
  }

  /** Sub #4: right-hand side, PSCR (into y, or u for separable corners), the corner correction. */
  void
  SubProblem4()
  {
    const double c = 1.0 / m_C.r1;
    Run(K::Sub4Rhs,
        m_F.Get(),
        m_P1.Get(),
        m_L1.Get(),
        m_Rhs.Get(),
        Nx(),
        Ny(),
        m_Ihx,
        m_Ihy,
        m_Mesh.hx,
        m_Mesh.hy,
        Real(c),
        Real(1.0 / m_C.r1),
        Real(m_Mesh.TriangleArea()),
        cl_int(m_Sub4.Exact() ? 0 : 1));
    if (!m_Sub4.Exact())
    {
      m_Sub4.Solver().EnqueueSolve(m_Rhs, m_U);
      return;
    }
    m_Sub4.Solver().EnqueueSolve(m_Rhs, m_Y);
    const auto & corners = m_Sub4.Corners();
    Run(K::Sub4Corners,
        m_Y.Get(),
        m_U.Get(),
        m_Z.Get(),
        m_Cinv.Get(),
        cl_int(m_N),
        cl_int(corners[0]),
        cl_int(corners[1]),
        cl_int(corners[2]),
        cl_int(corners[3]));
  }

  /** The multipliers (update = 1) and the sums of the state, finished on the device into the scalars. */
  void
  MeasureKernel(int update)
  {
    Get(K::Measure)
      .Set(m_F.Get(),
           m_U.Get(),
           m_P1.Get(),
           m_P2.Get(),
           m_P3.Get(),
           m_L1.Get(),
           m_L2.Get(),
           m_Psi.Get(),
           m_L3.Get(),
           m_Rhs.Get(),
           Nx(),
           Ny(),
           m_Ihx,
           m_Ihy,
           m_Mesh.hx,
           m_Mesh.hy,
           m_C.r1,
           m_C.r2,
           m_C.r3,
           1.0 / m_C.r1,
           cl_int(m_Sub4.Exact() ? 0 : 1),
           cl_int(update),
           cl_int(m_MeasureSpan),
           m_Partials.Get(),
           cl::Local(MeasureWidth * m_Group * sizeof(double)))
      .Enqueue(Queue(), cl::NDRange(m_MeasureGroups * m_Group), cl::NDRange(m_Group));
    RunOneGroup(K::Finish,
                m_Partials.Get(),
                cl_int(m_MeasureGroups),
                cl_int(MeasureWidth),
                m_Scalars.Get(),
                cl_int(0),
                m_ListCount.Get(),
                cl_int(SlotNewtonFailures),
                Scratch());
  }

  /** The one read-back of an outer iteration. */
  Sums
  ReadSums()
  {
    std::vector<double> s(SlotCount);
    m_Scalars.Download(Queue(), s.data(), SlotCount);
    Sums sums;
    sums.psiMass = s[SlotPsiMass];
    sums.fidelity = s[SlotFidelity];
    sums.penaltyQ = s[SlotPenaltyQ];
    sums.penaltyV = s[SlotPenaltyV];
    sums.curvatureMass = s[SlotCurvature];
    sums.gradMinusP1 = s[SlotGradMinusP1];
    sums.grad = s[SlotGrad];
    sums.p1 = s[SlotP1];
    sums.p2MinusP3 = s[SlotP2MinusP3];
    sums.p2 = s[SlotP2];
    sums.p3 = s[SlotP3];
    sums.divMinusPsi = s[SlotDivMinusPsi];
    sums.div = s[SlotDiv];
    sums.psi = s[SlotPsi];
    sums.newtonAccepted = TriangleCount(m_Mesh) - s[SlotNewtonFailures];
    sums.cgIterations = unsigned(s[SlotCG + 6]);
    const double bb = s[SlotCG + 0], rr = s[SlotCG + 1];
    sums.cgResidual = bb > 0.0 ? std::sqrt(rr / bb) : std::sqrt(rr);
    const double res = s[SlotSub4Residual], rhs = s[SlotSub4Rhs];
    sums.sub4Residual = rhs > 0.0 ? std::sqrt(res / rhs) : std::sqrt(res);
    return sums;
  }

  const Constants m_C;
  const Mesh m_Mesh;
  const std::size_t m_N;
  const std::size_t m_Plane; ///< entries between the planes of a triangle field
  Sub4<Real> m_Sub4;
  DeviceContext & m_Context;
  std::unique_ptr<PSCRSolver<Real>> m_Sub2; ///< the direct Sub #2 (null: CG)
  const Real m_Ihx, m_Ihy;
  std::size_t m_Group = 64, m_Global = 0, m_Groups = 0, m_Fallback = 0, m_SumGroups = 1, m_LanesGlobal = 0;
  std::size_t m_MeasureSpan = 1, m_MeasureGroups = 0; ///< l1mc_measure: vertices per work-item, work-groups
  std::vector<Kernel> m_Kernels;
  /** l1mc_sub1_newton_lanes, l1mc_sub1_continue_lanes and l1mc_sub1_fallback_lanes where UsesLanes, else empty. */
  std::vector<Kernel> m_Lanes;
  std::size_t m_ListCapacity = 0; ///< work-list entries: 2 N, or 4 N with the lanes (two ends)
  DeviceBuffer<Real> m_F, m_U, m_Psi, m_L3, m_V, m_Rhs, m_Y, m_T;
  DeviceBuffer<Real> m_P1, m_P2, m_P3, m_L1, m_L2, m_R, m_D, m_Ad, m_Z, m_ListPoint;
  DeviceBuffer<cl_int> m_ListTriangle, m_ListCount;
  DeviceBuffer<double> m_Partials, m_Items, m_Scalars, m_Cinv;
  L1MCTimings m_Timings;
  unsigned m_CGPrevious = 0;
  cl_int m_SumBlocked = 0; ///< l1mc_cg_sum: contiguous runs per work-item (CPU drivers) or strided (GPUs)
};

} // namespace

template<typename Real>
std::unique_ptr<Stepper<Real>>
MakeStepperOpenCL(const Real * f,
                  const Constants & constants,
                  const ResolvedBackend & backend,
                  const ExecutionOptions & execution)
{
  return std::unique_ptr<Stepper<Real>>(new StepperOpenCL<Real>(f, constants, backend, execution));
}

template std::unique_ptr<Stepper<float>>
MakeStepperOpenCL(const float *, const Constants &, const ResolvedBackend &, const ExecutionOptions &);
template std::unique_ptr<Stepper<double>>
MakeStepperOpenCL(const double *, const Constants &, const ResolvedBackend &, const ExecutionOptions &);

} // namespace l1mc
} // namespace gpur
