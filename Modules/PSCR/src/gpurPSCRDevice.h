// SPDX-License-Identifier: Apache-2.0
// The OpenCL backend of the PSCR module (internal): batched shifted
// tridiagonal solves on a device (gpurTridiagonalOpenCL.cxx) and the PSCR
// solve of a plan on a device (gpurPSCROpenCL.cxx), both on the kernels of
// kernels/pscr_*.cl.
#ifndef gpurPSCRDevice_h
#define gpurPSCRDevice_h

#include "gpurBuffer.h"
#include "gpurPSCRFastTransformsDevice.h"
#include "gpurPSCRPlan.h"
#include "gpurProgram.h"
#include "gpurPSCRCheckedSolve.h"
#include "gpurPSCRResidual.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gpur
{

namespace pscr
{

/** n rounded up to a multiple of m. */
inline std::size_t
RoundUp(std::size_t n, std::size_t m)
{
  return (n + m - 1) / m * m;
}

} // namespace pscr

/**
 * The module's program for Scalar on the context's device: the core's
 * gpur_common.cl and gpur_reduce.cl with pscr_scalar.cl, pscr_tridiagonal.cl,
 * pscr_solve.cl, pscr_lanes.cl (real scalars, fp64), pscr_residual.cl and pscr_fast.cl (-DPSCR_COMPLEX for complex
 * scalars; `servesFloat`: -DPSCR_NARROW for the float/double conversions). `device` is checked for fp64, which every
 * PSCR program needs (InvalidArgument naming `what`); a compiler error throws BuildError with the build log.
 */
template<typename Scalar>
Program
BuildPSCRProgram(DeviceContext & context,
                 const DeviceInfo & device,
                 const std::string & what,
                 bool servesFloat = false);

/**
 * Systems per work-item of pscr_partial_solves_lanes, and inner values per work-item of the other kernels of
 * pscr_lanes.cl: 8 doubles, one AVX-512 register.
 */
constexpr std::size_t kPSCRLanes = 8;

/**
 * Whether PSCR on `device` runs the kernels of pscr_lanes.cl, which put the work of several work-items on the
 * lanes of OpenCL vectors: on CPU drivers, which run a work-item as one scalar thread and leave the batched
 * kernels' strided reads, memory traffic and scalar divisions exposed; for real scalars on a device with fp64
 * (the kernels' sums run in double). $ITKGPUR_PSCR_LANES = "on" or "off" chooses on any such device (tests,
 * timings). Both give the same solutions up to the compiler's contractions.
 */
bool
UsesPSCRLanes(const DeviceInfo & device, bool complex);

/**
 * Batched shifted tridiagonal solves on one device, for one pair (A, M) of
 * size n: (A + shifts[p] M) x_p = b_p for p < count, in place (x_p at x + p n).
 * The algorithm is options' (see PSCROptions::tridiagonal): Thomas runs
 * one work-item per system, CR / PCR / hybrid one work-group per system in
 * local memory, or Thomas when the system does not fit there.
 */
template<typename Scalar>
class TridiagonalDeviceSolver
{
public:
  /**
   * Uploads the factors; `maxCount` is the most systems one Solve gets (it
   * sizes the Thomas workspace); `servesFloat` as for BuildPSCRProgram (the
   * PSCR solver's program is then shared).
   */
  TridiagonalDeviceSolver(DeviceContext & context,
                          const DeviceInfo & device,
                          const AxisFactors<Scalar> & factors,
                          const TridiagonalOptions & options,
                          std::size_t maxCount,
                          bool servesFloat = false);

  /**
   * Enqueues the solves on `queue` (nothing waits). System `singular` (or -1)
   * drops its last equation and gets 0 there, as on the CPU (gpurPSCRSolver.cxx).
   */
  void
  Solve(const cl::CommandQueue & queue,
        const cl::Buffer & x,
        std::size_t count,
        const cl::Buffer & shifts,
        long singular = -1);

  /** True when the work-group kernel in local memory runs, false for Thomas per work-item. */
  bool
  UsesLocalMemory() const
  {
    return m_Local;
  }

  /** Device memory the solver needs for these sizes (factors and the Thomas workspace). */
  static std::uint64_t
  Bytes(const DeviceInfo & device, std::size_t n, const TridiagonalOptions & options, std::size_t maxCount);

private:
  std::size_t m_N;
  std::size_t m_MaxCount;
  TridiagonalStages m_Stages;
  bool m_Local;
  int m_Remainder = 0;           ///< local kernel: the most rows CR leaves
  std::size_t m_GroupSize = 1;   ///< local kernel: work-items per system
  std::size_t m_ThomasGroup = 1; ///< Thomas: systems per work-item (pscr_thomas_grouped on CPU drivers)
  std::size_t m_WideBytes;       ///< bytes of the kernels' elimination scalar
  DeviceBuffer<Scalar> m_Factors;
  DeviceBuffer<unsigned char> m_Workspace; ///< Thomas: c' and the eliminated right-hand sides
  Kernel m_Thomas, m_LocalKernel;
};

/**
 * A PSCR plan on one device: its arrays and the column Gram tables of its
 * residual checks uploaded once, the workspace of a solve allocated once, and
 * the steps of a checked solve (gpurPSCRCheckedSolve.h) as kernels on the
 * context's compute queue. The caller serialises solves with Mutex().
 */
template<typename Scalar>
class PSCRDeviceSolver
{
public:
  /**
   * `servesFloat`: a double solver that solves float data in double (the
   * float solver's wider twin) gets the conversions Widen and Narrow.
   * `topProblems`: the most problems SolveProblems gets (its workspace).
   * Throws InvalidArgument when the device lacks fp64 or the problem does
   * not fit its memory, BuildError with the log when a kernel does not
   * compile.
   */
  PSCRDeviceSolver(std::shared_ptr<const PSCRPlan<Scalar>> plan,
                   const DeviceInfo & device,
                   const std::vector<std::vector<pscr::ColumnGram>> & gram,
                   bool servesFloat = false,
                   std::size_t topProblems = 1);

  DeviceContext &
  Context() const
  {
    return *m_Context;
  }
  const cl::CommandQueue &
  Queue() const
  {
    return m_Context->Queue(0);
  }
  std::mutex &
  Mutex()
  {
    return m_Mutex;
  }

  /** The host solves' data; the right-hand side kept for the residuals; the residual and correction. */
  const DeviceBuffer<Scalar> &
  Data();
  const DeviceBuffer<Scalar> &
  Rhs()
  {
    return m_Rhs;
  }
  const DeviceBuffer<Scalar> &
  Correction()
  {
    return m_Correction;
  }

  /** Singular operators: checks rhs's compatibility, projects it, returns |e^T f| / (|e| |f|); otherwise 0. */
  double
  ProjectNull(const cl::Buffer & rhs);
  /** One PSCR solve in place (singular operators: null-space projections included). */
  void
  Pass(const cl::Buffer & u);
  /**
   * PSCR without projections on `problems` (at most topProblems) problems of
   * the plan's shape one after another in X, problem p with shift shifts[p]
   * (instead of the plan's c); problem `singular` (or -1) takes the singular
   * path. The remainder of two axes on the fast-transform path.
   */
  void
  SolveProblems(const cl::Buffer & X, std::size_t problems, const cl::Buffer & shifts, long singular);
  /** r = rhs - A u evaluated in double, and the sums (waits for them); the floor for `floorDigits` bits. */
  pscr::ResidualSums
  Residual(const cl::Buffer & rhs, const cl::Buffer & u, const cl::Buffer & r, int floorDigits);
  /** u += d. */
  void
  Add(const cl::Buffer & u, const cl::Buffer & d);
  /** Device copy of the Count() values (nothing when the same buffer). */
  void
  Copy(const cl::Buffer & from, const cl::Buffer & to);
  /** servesFloat only: float (complex<float>) values into this solver's scalars, and back. */
  void
  Widen(const cl::Buffer & narrow, const cl::Buffer & wide);
  void
  Narrow(const cl::Buffer & wide, const cl::Buffer & narrow);

  /**
   * Whether the partial solves of axis y run as pscr_partial_solves_lanes (pscr_lanes.cl: gathered and solved
   * along x in one kernel, systems on vector lanes), not as pscr_gather and the tridiagonal solver's kernels:
   * where UsesPSCRLanes, with Thomas as the tridiagonal algorithm (the others are the user's choice of a
   * work-group kernel) and a work-item's workspace (2 nx lanes of doubles) in local memory.
   */
  bool
  UsesLanes() const
  {
    return m_Lanes;
  }

private:
  // The device arrays of one reduced axis d >= 1 and its workspace.
  struct AxisBuffers
  {
    std::vector<DeviceBuffer<cl_int>> blocks;   ///< per level: 8 ints per block (pscr_block)
    std::vector<DeviceBuffer<cl_int>> jobBlock; ///< per level: the block of each partial solve
    DeviceBuffer<Scalar> values, vectors;
    DeviceBuffer<Scalar> z;           ///< the level's partial solutions, problems x jobs x inner values
    DeviceBuffer<Scalar> v;           ///< block-end vectors, problems x blocks x 2 x inner values
    DeviceBuffer<Scalar> innerShifts; ///< the shift of each partial solve, problems x jobs
  };

  void
  Axis(unsigned d, const cl::Buffer & X, std::size_t problems, const cl::Buffer & shifts, long singular);
  /** Sets pscr_gather's arguments for a level of axis d on `kernel`, then `extra` (pscr_partial_solves_lanes'). */
  template<typename... Extra>
  void
  SetLevelArguments(Kernel & kernel,
                    unsigned d,
                    std::size_t level,
                    const cl::Buffer & X,
                    const cl::Buffer & shifts,
                    bool withCouplings,
                    const Extra &... extra);
  /** pscr_reduce_couple (pass 0 or 1) or pscr_back_couple (pass -1) of a level. */
  void
  Couple(Kernel & kernel,
         unsigned d,
         std::size_t level,
         const cl::Buffer & X,
         std::size_t problems,
         const cl::Buffer & shifts,
         int pass);
  /**
   * The partial solves of a level of axis d into m_Axes[d].z: pscr_gather, then axis d - 1 on them (partial solve
   * `singular`, or -1, on the null vector's path); for d = 1 on lanes (UsesLanes) one kernel.
   */
  void
  PartialSolves(unsigned d,
                std::size_t level,
                const cl::Buffer & X,
                std::size_t problems,
                const cl::Buffer & shifts,
                bool withCouplings,
                long singular);
  void
  Enqueue(const Kernel & kernel, std::size_t inner, std::size_t second, std::size_t problems);
  /**
   * pscr_block_ends or pscr_back_update of axis d over (inner values, blocks, problems); their _lanes twins of
   * pscr_lanes.cl (m_Spans) over spans of kPSCRLanes inner values.
   */
  void
  EnqueueBlockSums(const Kernel & kernel, unsigned d, std::size_t blocks, std::size_t problems);
  /** A one-dimensional kernel over the Count() values. */
  void
  EnqueueLinear(const Kernel & kernel);
  /** e^T x (summed in double) and |x|^2; e is a tensor-product vector on the device. */
  std::complex<double>
  NullDot(const cl::Buffer & x, const DeviceBuffer<Scalar> & e, double & norm2);
  void
  NullAxpy(const cl::Buffer & x, const DeviceBuffer<Scalar> & e, Scalar c);

  std::shared_ptr<const PSCRPlan<Scalar>> m_Plan;
  std::shared_ptr<DeviceContext> m_Context;
  std::mutex m_Mutex;
  std::vector<AxisBuffers> m_Axes;           ///< m_Axes[d] for d >= 1
  std::vector<cl_int> m_FactorOffset;        ///< of axis d in m_Factors
  std::vector<cl_int> m_GramOffset;          ///< of axis d in m_Gram
  DeviceBuffer<Scalar> m_Factors;            ///< every axis: diag A, off A, diag M, off M
  DeviceBuffer<double> m_Gram;               ///< every axis: ss, mm, Re sm, Im sm per index
  DeviceBuffer<Scalar> m_TopShift;           ///< c, the shift of the one top-level problem
  DeviceBuffer<Scalar> m_Data;               ///< the host Solve's u (allocated on first use)
  DeviceBuffer<Scalar> m_Rhs, m_Correction;  ///< f (projected), and the residual / correction
  DeviceBuffer<Scalar> m_Null, m_MassNull;   ///< singular: e_x, e_y (, e_z) and M e likewise
  DeviceBuffer<RealType<Scalar>> m_Partials; ///< singular: 3 sums per work-group
  DeviceBuffer<double> m_ResidualPartials;   ///< 3 sums per work-group
  std::unique_ptr<TridiagonalDeviceSolver<Scalar>> m_Tridiagonal;
  /** The fast-transform path, when the plan has its axes (PSCRPlan::trig; real scalars only). */
  std::unique_ptr<FastTransformDeviceSolver<RealType<Scalar>>> m_Fast;
  bool m_Spans = false; ///< UsesPSCRLanes: block ends and back updates on spans of inner values
  bool m_Lanes = false; ///< UsesLanes()
  Kernel m_Gather, m_PartialLanes, m_BlockEnds, m_ReduceCouple, m_BackCouple, m_BackUpdate, m_NullDot, m_NullAxpy,
    m_Residual, m_Add, m_Widen, m_Narrow;
  std::size_t m_Group = 1, m_WideGroup = 1; ///< dimension-0 work-group sizes of the level kernels
  std::size_t m_ReduceGroup = 1, m_ReduceGroups = 1;
  std::size_t m_TopProblems = 1;
};

/** Gives the double device solver of a float one (made on first use; for double scalars the solver itself). */
template<typename Scalar>
using WideDeviceProvider = std::function<PSCRDeviceSolver<pscr::WideScalar<Scalar>> &()>;

/**
 * A checked solve (gpurPSCRCheckedSolve.h) on the device, for host arrays
 * (uploaded into the solver's buffers) or device buffers of its context.
 */
template<typename Scalar>
PSCRSolveReport
SolveOnDevice(PSCRDeviceSolver<Scalar> & device,
              const WideDeviceProvider<Scalar> & wide,
              const Scalar * f,
              Scalar * u,
              const pscr::CheckedSolveSettings & settings,
              std::atomic<bool> & inDouble);
template<typename Scalar>
PSCRSolveReport
SolveOnDevice(PSCRDeviceSolver<Scalar> & device,
              const WideDeviceProvider<Scalar> & wide,
              const DeviceBuffer<Scalar> & f,
              const DeviceBuffer<Scalar> & u,
              const pscr::CheckedSolveSettings & settings,
              std::atomic<bool> & inDouble);

/** PSCRSolver::EnqueueSolve: the solve enqueued, unchecked. */
template<typename Scalar>
void
EnqueueOnDevice(PSCRDeviceSolver<Scalar> & device, const DeviceBuffer<Scalar> & f, const DeviceBuffer<Scalar> & u);

} // namespace gpur

#endif
