// SPDX-License-Identifier: Apache-2.0
// The OpenCL execution of a PSCR plan ([Myllykoski2018, eqs. (2.16)-(2.19)] for any
// size, 3D via eq. (2.6); the GPU design of its §3): the CPU's
// recursion (gpurPSCRSolver.cxx) flattened into batches. At axis d the solver
// holds P problems of the same shape with their own shifts; every level turns
// them into P x jobs partial solves one axis down, solved together, down to
// one batch of tridiagonal systems along x. The recursion is depth first, so one
// workspace per axis serves every level.
#include "gpurPSCRDevice.h"

#include "gpurLaunch.h"
#include "gpurPSCRCheckedSolve.h"

#include <algorithm>
#include <map>
#include <cstdio>
#include <complex>
#include <limits>
#include <type_traits>

namespace gpur
{

namespace
{

// Dimension-0 work-group sizes of the level kernels (the inner index): 256
// when the inner index is that long (fewer work-groups, less per-group
// overhead), else 64 so that short rows waste few work-items. Two sizes only,
// since PoCL compiles a kernel once per local size.
constexpr std::size_t kLevelGroup = 64;
constexpr std::size_t kWideLevelGroup = 256;
// Work-group size and most work-groups of the singular operators' reductions.
constexpr std::size_t kReduceGroup = 256;
constexpr std::size_t kReduceGroupsMax = 256;

cl_int
ToInt(std::size_t v, const char * what)
{
  if (v > static_cast<std::size_t>(std::numeric_limits<cl_int>::max()))
  {
    throw InvalidArgument(std::string("PSCR on OpenCL: ") + what + " (" + std::to_string(v) +
                          ") exceeds the kernels' 32-bit indices; use the CPU backend");
  }
  return static_cast<cl_int>(v);
}

template<typename Scalar>
Scalar
FromWide(const std::complex<double> & w)
{
  if constexpr (IsComplex<Scalar>::value)
    return Scalar(w);
  else
    return static_cast<Scalar>(w.real());
}

// The factors of one axis as the kernels read them: diag A, off A, diag M, off M (n each).
template<typename Scalar>
void
PackFactors(const AxisFactors<Scalar> & f, std::vector<Scalar> & out)
{
  const std::size_t n = f.Size(), base = out.size();
  out.resize(base + 4 * n, Scalar(0));
  std::copy(f.A.diagonal.begin(), f.A.diagonal.end(), out.begin() + base);
  std::copy(f.A.offDiagonal.begin(), f.A.offDiagonal.end(), out.begin() + base + n);
  std::copy(f.M.diagonal.begin(), f.M.diagonal.end(), out.begin() + base + 2 * n);
  std::copy(f.M.offDiagonal.begin(), f.M.offDiagonal.end(), out.begin() + base + 3 * n);
}

template<typename Scalar>
std::vector<Scalar>
Concatenate(const std::vector<std::vector<Scalar>> & parts)
{
  std::vector<Scalar> out;
  for (const std::vector<Scalar> & p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

template<typename Scalar>
DeviceBuffer<Scalar>
UploadNew(DeviceContext & context, const std::vector<Scalar> & host)
{
  DeviceBuffer<Scalar> buffer(context, std::max<std::size_t>(1, host.size()), CL_MEM_READ_ONLY);
  if (!host.empty())
    buffer.Upload(context.Queue(0), host);
  return buffer;
}

template<typename Scalar>
std::string
Shape(const PSCRPlan<Scalar> & plan)
{
  std::string s;
  for (const AxisFactors<Scalar> & a : plan.axes)
    s += (s.empty() ? "" : " x ") + std::to_string(a.Size());
  return s;
}

} // namespace

template<typename Scalar>
PSCRDeviceSolver<Scalar>::PSCRDeviceSolver(std::shared_ptr<const PSCRPlan<Scalar>> plan,
                                           const DeviceInfo & device,
                                           const std::vector<std::vector<pscr::ColumnGram>> & gram,
                                           bool servesFloat,
                                           std::size_t topProblems)
  : m_Plan(std::move(plan))
  , m_Context(DeviceContext::Get(device))
  , m_TopProblems(topProblems)
{
  RequireDouble(device, "the PSCR solver (its residual checks run in double)");
  const PSCRPlan<Scalar> & p = *m_Plan;
  const unsigned dims = static_cast<unsigned>(p.axes.size());
  const std::size_t count = p.Count();
  // The fast-transform path (PSCRPlan::trig) replaces the reduction's
  // workspace and its tridiagonal solver with its own.
  const bool fast = !p.trig.empty();
  if (fast && IsComplex<Scalar>::value)
    throw Error("PSCR on OpenCL: internal error, a fast-transform plan for complex scalars");
  // Problems per axis: topProblems at the top; each level of axis d hands P x jobs to axis d - 1.
  std::vector<std::size_t> problems(dims, 1);
  problems[dims - 1] = topProblems;
  for (unsigned d = dims - 1; d >= 1; --d)
    problems[d - 1] = problems[d] * p.reduced[d].maxJobs;

  // Device memory: the plan's arrays, the data, and per axis the workspace.
  std::uint64_t scalars = 0, largest = 0;
  auto need = [&](std::uint64_t n)
  {
    scalars += n;
    largest = std::max(largest, n);
  };
  std::size_t axisTotal = 0;
  for (const AxisFactors<Scalar> & a : p.axes)
    axisTotal += a.Size();
  need(count);
  need(4 * axisTotal);
  for (unsigned d = 1; d < dims && !fast; ++d)
  {
    const PSCRAxisPlan<Scalar> & ap = p.reduced[d];
    const std::uint64_t S = p.InnerCount(d);
    need(ap.values.size());
    need(ap.vectors.size());
    need(problems[d] * ap.maxJobs * S);
    need(problems[d] * ap.maxBlocks * 2 * S);
    need(problems[d] * ap.maxJobs);
  }
  if (p.singular)
    need(2 * axisTotal);
  need(count); // f, kept for the residuals
  need(count); // the residual, then the correction
  scalars += (4 * axisTotal * sizeof(double) + sizeof(Scalar) - 1) / sizeof(Scalar); // the Gram tables
  std::uint64_t tridiagonal = 0;
  if constexpr (!IsComplex<Scalar>::value)
  {
    if (fast)
      tridiagonal = FastTransformDeviceSolver<Scalar>::Bytes(device, p);
  }
  // With lanes the tridiagonal solves of axis x are part of the partial solves of axis y: no solver of their own.
  m_Spans = !fast && UsesPSCRLanes(device, IsComplex<Scalar>::value);
  m_Lanes = m_Spans && dims >= 2 && p.tridiagonal.algorithm == TridiagonalAlgorithm::Thomas &&
            2 * p.axes[0].Size() * kPSCRLanes * sizeof(double) <= device.localMemory;
  if (!fast && !m_Lanes)
    tridiagonal = TridiagonalDeviceSolver<Scalar>::Bytes(device, p.axes[0].Size(), p.tridiagonal, problems[0]);
  m_Context->CheckMemory(scalars * sizeof(Scalar) + tridiagonal,
                         std::max<std::uint64_t>(largest * sizeof(Scalar), tridiagonal),
                         "PSCR solve of " + Shape(p));

  TranslateCLErrors(
    [&]
    {
      DeviceContext & context = *m_Context;
      const Program program = BuildPSCRProgram<Scalar>(context, device, "PSCR solver", servesFloat);
      m_Gather = program.MakeKernel("pscr_gather");
      if (m_Lanes)
        m_PartialLanes = program.MakeKernel("pscr_partial_solves_lanes");
      m_BlockEnds = program.MakeKernel(m_Spans ? "pscr_block_ends_lanes" : "pscr_block_ends");
      m_ReduceCouple = program.MakeKernel("pscr_reduce_couple");
      m_BackCouple = program.MakeKernel("pscr_back_couple");
      m_BackUpdate = program.MakeKernel(m_Spans ? "pscr_back_update_lanes" : "pscr_back_update");
      m_NullDot = program.MakeKernel("pscr_null_dot");
      m_NullAxpy = program.MakeKernel("pscr_null_axpy");
      m_Residual = program.MakeKernel("pscr_residual_sums");
      m_Add = program.MakeKernel("pscr_add");
      if (servesFloat)
      {
        m_Widen = program.MakeKernel("pscr_widen_data");
        m_Narrow = program.MakeKernel("pscr_narrow_data");
      }
      std::size_t limit = kWideLevelGroup;
      for (const Kernel * k :
           { &m_Gather, &m_BlockEnds, &m_ReduceCouple, &m_BackCouple, &m_BackUpdate, &m_NullAxpy, &m_Add })
        limit = std::min(limit, k->WorkGroupLimit());
      m_Group = std::min(kLevelGroup, limit);
      m_WideGroup = limit;
      m_ReduceGroup = 1;
      while (m_ReduceGroup * 2 <= std::min({ kReduceGroup, m_NullDot.WorkGroupLimit(), m_Residual.WorkGroupLimit() }))
        m_ReduceGroup *= 2; // gpur_group_sum needs a power of two
      m_ReduceGroups = std::clamp<std::size_t>(count / (64 * m_ReduceGroup), 1, kReduceGroupsMax);

      std::vector<Scalar> factors;
      m_FactorOffset.clear();
      for (const AxisFactors<Scalar> & a : p.axes)
      {
        ToInt(a.Size(), "an axis size");
        m_FactorOffset.push_back(ToInt(factors.size(), "the factor array"));
        PackFactors(a, factors);
      }
      m_Factors = UploadNew(context, factors);
      std::vector<double> packedGram;
      m_GramOffset.clear();
      for (const std::vector<pscr::ColumnGram> & axis : gram)
      {
        m_GramOffset.push_back(ToInt(packedGram.size(), "the Gram tables"));
        for (const pscr::ColumnGram & g : axis)
          packedGram.insert(packedGram.end(), { g.ss, g.mm, g.sm.real(), g.sm.imag() });
      }
      m_Gram = UploadNew(context, packedGram);
      m_ResidualPartials = DeviceBuffer<double>(context, 3 * m_ReduceGroups);
      m_TopShift = UploadNew(context, std::vector<Scalar>{ p.shift });
      m_Axes.resize(dims);
      for (unsigned d = 1; d < dims && !fast; ++d)
      {
        const PSCRAxisPlan<Scalar> & ap = p.reduced[d];
        AxisBuffers & a = m_Axes[d];
        for (const PSCRLevel & level : ap.levels)
        {
          std::vector<cl_int> packed, jobBlock(std::max<std::size_t>(1, level.jobs));
          for (std::size_t b = 0; b < level.blocks.size(); ++b)
          {
            const PSCRBlock & B = level.blocks[b];
            for (std::size_t v :
                 { B.first, B.size, B.rhsFirst, B.rhsStride, std::size_t(B.rhsCount), B.values, B.vectors, B.job })
              packed.push_back(ToInt(v, "a block table entry"));
            std::fill(jobBlock.begin() + B.job, jobBlock.begin() + B.job + B.size, static_cast<cl_int>(b));
          }
          a.blocks.push_back(UploadNew(context, packed));
          a.jobBlock.push_back(UploadNew(context, jobBlock));
        }
        ToInt(ap.vectors.size(), "the eigenvector array"); // the kernels index it with ints
        a.values = UploadNew(context, ap.values);
        a.vectors = UploadNew(context, ap.vectors);
        const std::size_t S = p.InnerCount(d);
        ToInt(S, "a block row of the reduction"); // pscr_apply_coupling's index arithmetic
        a.z = DeviceBuffer<Scalar>(context, problems[d] * ap.maxJobs * S);
        a.v = DeviceBuffer<Scalar>(context, problems[d] * ap.maxBlocks * 2 * S);
        a.innerShifts = DeviceBuffer<Scalar>(context, problems[d] * ap.maxJobs);
      }
      if (p.singular)
      {
        m_Null = UploadNew(context, Concatenate(p.nullVector));
        m_MassNull = UploadNew(context, Concatenate(p.massNullVector));
        m_Partials = DeviceBuffer<RealType<Scalar>>(context, 3 * m_ReduceGroups);
      }
      m_Rhs = DeviceBuffer<Scalar>(context, count);
      m_Correction = DeviceBuffer<Scalar>(context, count);
      if constexpr (!IsComplex<Scalar>::value)
      {
        if (fast)
          m_Fast = std::make_unique<FastTransformDeviceSolver<Scalar>>(context, device, program, p, servesFloat);
      }
      if (!fast && !m_Lanes)
        m_Tridiagonal = std::make_unique<TridiagonalDeviceSolver<Scalar>>(
          context, device, p.axes[0], p.tridiagonal, problems[0], servesFloat);
      context.Queue(0).finish(); // the uploads read host vectors that end here
    });
}

template<typename Scalar>
const DeviceBuffer<Scalar> &
PSCRDeviceSolver<Scalar>::Data()
{
  if (m_Data.Size() == 0) // only host solves need it; device-resident callers bring their own
    m_Data = DeviceBuffer<Scalar>(*m_Context, m_Plan->Count());
  return m_Data;
}

template<typename Scalar>
double
PSCRDeviceSolver<Scalar>::ProjectNull(const cl::Buffer & rhs)
{
  const PSCRPlan<Scalar> & p = *m_Plan;
  if (!p.singular)
    return 0;
  // As on the CPU (ProjectOnCPU): the compatibility of f, then f <- f - (e^T f) M e.
  double f2 = 0;
  const std::complex<double> ef = NullDot(rhs, m_Null, f2);
  const double ratio = CheckNullCompatibility(p, std::abs(ef), f2);
  NullAxpy(rhs, m_MassNull, FromWide<Scalar>(ef));
  return ratio;
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Pass(const cl::Buffer & u)
{
  const PSCRPlan<Scalar> & p = *m_Plan;
  if (p.singular)
  {
    // As on the CPU (SolveOnCPU): f <- f - (e^T f) M e, and e^T M u = 0 at the end.
    double unused = 0;
    NullAxpy(u, m_MassNull, FromWide<Scalar>(NullDot(u, m_Null, unused)));
  }
  if (m_Fast)
    m_Fast->Solve(Queue(), u);
  else
    Axis(static_cast<unsigned>(p.axes.size() - 1), u, 1, m_TopShift.Get(), p.singular ? 0 : -1);
  if (p.singular)
  {
    double unused = 0;
    NullAxpy(u, m_Null, FromWide<Scalar>(NullDot(u, m_MassNull, unused)));
  }
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::SolveProblems(const cl::Buffer & X,
                                        std::size_t problems,
                                        const cl::Buffer & shifts,
                                        long singular)
{
  if (problems > m_TopProblems || m_Fast)
    throw Error("PSCR on OpenCL: internal error, " + std::to_string(problems) + " problems for a solver of " +
                std::to_string(m_TopProblems) + (m_Fast ? " (on the fast-transform path)" : ""));
  Axis(static_cast<unsigned>(m_Plan->axes.size() - 1), X, problems, shifts, singular);
}

template<typename Scalar>
pscr::ResidualSums
PSCRDeviceSolver<Scalar>::Residual(const cl::Buffer & rhs, const cl::Buffer & u, const cl::Buffer & r, int floorDigits)
{
  const PSCRPlan<Scalar> & p = *m_Plan;
  const bool threeD = p.axes.size() > 2;
  m_Residual.Set(rhs,
                 u,
                 r,
                 p.shift,
                 m_Factors.Get(),
                 m_FactorOffset[0],
                 static_cast<cl_int>(p.axes[0].Size()),
                 m_FactorOffset[1],
                 static_cast<cl_int>(p.axes[1].Size()),
                 threeD ? m_FactorOffset[2] : cl_int(-1),
                 static_cast<cl_int>(threeD ? p.axes[2].Size() : 1),
                 m_Gram.Get(),
                 m_GramOffset[0],
                 m_GramOffset[1],
                 threeD ? m_GramOffset[2] : cl_int(-1),
                 cl_int(floorDigits),
                 m_ResidualPartials.Get(),
                 cl::Local(m_ReduceGroup * sizeof(double)));
  m_Residual.Enqueue(Queue(), cl::NDRange(m_ReduceGroups * m_ReduceGroup), cl::NDRange(m_ReduceGroup));
  std::vector<double> partials(3 * m_ReduceGroups);
  m_ResidualPartials.Download(Queue(), partials.data(), partials.size());
  pscr::ResidualSums sums;
  for (std::size_t g = 0; g < m_ReduceGroups; ++g)
  {
    sums.residual2 += partials[3 * g];
    sums.rhs2 += partials[3 * g + 1];
    sums.floor2 += partials[3 * g + 2];
  }
  return sums;
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::EnqueueLinear(const Kernel & kernel)
{
  kernel.Enqueue(Queue(), cl::NDRange(pscr::RoundUp(m_Plan->Count(), m_WideGroup)), cl::NDRange(m_WideGroup));
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Add(const cl::Buffer & u, const cl::Buffer & d)
{
  m_Add.Set(u, d, static_cast<cl_long>(m_Plan->Count()));
  EnqueueLinear(m_Add);
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Copy(const cl::Buffer & from, const cl::Buffer & to)
{
  if (from() != to())
    Queue().enqueueCopyBuffer(from, to, 0, 0, m_Plan->Count() * sizeof(Scalar));
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Widen(const cl::Buffer & narrow, const cl::Buffer & wide)
{
  m_Widen.Set(narrow, wide, static_cast<cl_long>(m_Plan->Count()));
  EnqueueLinear(m_Widen);
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Narrow(const cl::Buffer & wide, const cl::Buffer & narrow)
{
  m_Narrow.Set(wide, narrow, static_cast<cl_long>(m_Plan->Count()));
  EnqueueLinear(m_Narrow);
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Axis(unsigned d,
                               const cl::Buffer & X,
                               std::size_t problems,
                               const cl::Buffer & shifts,
                               long singular)
{
  if (d == 0)
  {
    m_Tridiagonal->Solve(Queue(), X, problems, shifts, singular);
    return;
  }
  const PSCRAxisPlan<Scalar> & ap = m_Plan->reduced[d];
  AxisBuffers & a = m_Axes[d];
  const std::size_t k = ap.levels.size();
  // Reduction, levels 1..k-1 ([Myllykoski2018, eqs. (2.16)-(2.17)]).
  for (std::size_t i = 1; i < k; ++i)
  {
    const PSCRLevel & level = ap.levels[i - 1];
    PartialSolves(d, i, X, problems, shifts, false, -1);
    m_BlockEnds.Set(a.z.Get(),
                    static_cast<cl_long>(m_Plan->InnerCount(d)),
                    static_cast<cl_int>(level.jobs),
                    a.blocks[i - 1].Get(),
                    static_cast<cl_int>(level.blocks.size()),
                    a.vectors.Get(),
                    a.v.Get());
    EnqueueBlockSums(m_BlockEnds, d, level.blocks.size(), problems);
    for (int pass = 0; pass < 2; ++pass)
      Couple(m_ReduceCouple, d, i, X, problems, shifts, pass);
  }
  // Back substitution, levels k..1 ([Myllykoski2018, eqs. (2.18)-(2.19)]).
  for (std::size_t i = k; i >= 1; --i)
  {
    const PSCRLevel & level = ap.levels[i - 1];
    Couple(m_BackCouple, d, i, X, problems, shifts, -1);
    // The null vector's path: at the top level, the problem `singular`'s null eigenpair.
    const long inner =
      singular >= 0 && i == k ? singular * static_cast<long>(level.jobs) + static_cast<long>(ap.nullIndex) : -1;
    PartialSolves(d, i, X, problems, shifts, true, inner);
    m_BackUpdate.Set(X,
                     static_cast<cl_int>(ap.n),
                     static_cast<cl_long>(m_Plan->InnerCount(d)),
                     a.z.Get(),
                     static_cast<cl_int>(level.jobs),
                     a.blocks[i - 1].Get(),
                     a.vectors.Get());
    EnqueueBlockSums(m_BackUpdate, d, level.blocks.size(), problems);
  }
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::PartialSolves(unsigned d,
                                        std::size_t level,
                                        const cl::Buffer & X,
                                        std::size_t problems,
                                        const cl::Buffer & shifts,
                                        bool withCouplings,
                                        long singular)
{
  const AxisBuffers & a = m_Axes[d];
  const PSCRLevel & l = m_Plan->reduced[d].levels[level - 1];
  if (d != 1 || !m_Lanes)
  {
    SetLevelArguments(m_Gather, d, level, X, shifts, withCouplings);
    Enqueue(m_Gather, m_Plan->InnerCount(d), l.jobs, problems);
    Axis(d - 1, a.z.Get(), problems * l.jobs, a.innerShifts.Get(), singular);
    return;
  }
  SetLevelArguments(m_PartialLanes,
                    d,
                    level,
                    X,
                    shifts,
                    withCouplings,
                    m_Factors.Get(),
                    m_FactorOffset[0],
                    static_cast<cl_long>(singular),
                    cl::Local(2 * m_Plan->axes[0].Size() * kPSCRLanes * sizeof(double)));
  // Work-groups of one work-item: each gets its workspace in local memory, which a CPU driver reuses.
  m_PartialLanes.Enqueue(Queue(), cl::NDRange((l.jobs + kPSCRLanes - 1) / kPSCRLanes, problems), cl::NDRange(1, 1));
}

template<typename Scalar>
template<typename... Extra>
void
PSCRDeviceSolver<Scalar>::SetLevelArguments(Kernel & kernel,
                                            unsigned d,
                                            std::size_t level,
                                            const cl::Buffer & X,
                                            const cl::Buffer & shifts,
                                            bool withCouplings,
                                            const Extra &... extra)
{
  const PSCRAxisPlan<Scalar> & ap = m_Plan->reduced[d];
  const PSCRLevel & l = ap.levels[level - 1];
  AxisBuffers & a = m_Axes[d];
  kernel.Set(X,
             static_cast<cl_int>(ap.n),
             static_cast<cl_long>(m_Plan->InnerCount(d)),
             a.z.Get(),
             static_cast<cl_int>(l.jobs),
             a.blocks[level - 1].Get(),
             a.jobBlock[level - 1].Get(),
             static_cast<cl_int>(l.blocks.size()),
             a.values.Get(),
             a.vectors.Get(),
             shifts,
             a.innerShifts.Get(),
             a.v.Get(),
             cl_int(withCouplings ? 1 : 0),
             extra...);
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Couple(Kernel & pscrKernel,
                                 unsigned d,
                                 std::size_t level,
                                 const cl::Buffer & X,
                                 std::size_t problems,
                                 const cl::Buffer & shifts,
                                 int pass)
{
  const PSCRAxisPlan<Scalar> & ap = m_Plan->reduced[d];
  const PSCRLevel & l = ap.levels[level - 1];
  const AxisBuffers & a = m_Axes[d];
  const std::size_t S = m_Plan->InnerCount(d);
  const bool innerY = d == 2; // z reduced: the couplings act on x and y
  // The argument list depends on the pass, so they are set one by one here.
  cl::Kernel & kernel = pscrKernel.Get();
  cl_uint arg = 0;
  kernel.setArg(arg++, X);
  kernel.setArg(arg++, static_cast<cl_long>(S));
  kernel.setArg(arg++, a.blocks[level - 1].Get());
  kernel.setArg(arg++, static_cast<cl_int>(l.blocks.size()));
  kernel.setArg(arg++, a.v.Get());
  kernel.setArg(arg++, shifts);
  if (pass >= 0)
    kernel.setArg(arg++, static_cast<cl_int>(pass));
  // PSCR_INNER_ARGS of pscr_solve.cl.
  kernel.setArg(arg++, m_Factors.Get());
  kernel.setArg(arg++, m_FactorOffset[d]);
  kernel.setArg(arg++, static_cast<cl_int>(ap.n));
  kernel.setArg(arg++, m_FactorOffset[0]);
  kernel.setArg(arg++, static_cast<cl_int>(m_Plan->axes[0].Size()));
  kernel.setArg(arg++, innerY ? m_FactorOffset[1] : cl_int(-1));
  kernel.setArg(arg++, static_cast<cl_int>(innerY ? m_Plan->axes[1].Size() : 1));
  Enqueue(pscrKernel, S, l.blocks.size(), problems);
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Enqueue(const Kernel & kernel, std::size_t inner, std::size_t second, std::size_t problems)
{
  if (second == 0 || problems == 0)
    return;
  const std::size_t group = inner >= m_WideGroup ? m_WideGroup : m_Group;
  kernel.Enqueue(Queue(), cl::NDRange(pscr::RoundUp(inner, group), second, problems), cl::NDRange(group, 1, 1));
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::EnqueueBlockSums(const Kernel & kernel, unsigned d, std::size_t blocks, std::size_t problems)
{
  const std::size_t inner = m_Plan->InnerCount(d);
  if (!m_Spans)
  {
    Enqueue(kernel, inner, blocks, problems);
    return;
  }
  if (blocks == 0 || problems == 0)
    return;
  // Work-groups of 8 spans (64 inner values): enough of them for every thread at the top levels, whose one block
  // has only the inner values to split, few enough that the driver's cost per work-group stays small.
  const std::size_t spans = (inner + kPSCRLanes - 1) / kPSCRLanes, group = spans >= 8 ? 8 : 1;
  kernel.Enqueue(Queue(), cl::NDRange(pscr::RoundUp(spans, group), blocks, problems), cl::NDRange(group, 1, 1));
}

template<typename Scalar>
std::complex<double>
PSCRDeviceSolver<Scalar>::NullDot(const cl::Buffer & x, const DeviceBuffer<Scalar> & e, double & norm2)
{
  using Real = RealType<Scalar>;
  const PSCRPlan<Scalar> & p = *m_Plan;
  const bool threeD = p.axes.size() > 2;
  m_NullDot.Set(x,
                e.Get(),
                static_cast<cl_int>(p.axes[0].Size()),
                static_cast<cl_int>(p.axes[1].Size()),
                static_cast<cl_int>(threeD ? p.axes[2].Size() : 1),
                cl_int(threeD ? 1 : 0),
                m_Partials.Get(),
                cl::Local(m_ReduceGroup * sizeof(Real)));
  m_NullDot.Enqueue(Queue(), cl::NDRange(m_ReduceGroups * m_ReduceGroup), cl::NDRange(m_ReduceGroup));
  std::vector<Real> partials(3 * m_ReduceGroups);
  m_Partials.Download(Queue(), partials.data(), partials.size());
  double re = 0, im = 0;
  norm2 = 0;
  for (std::size_t g = 0; g < m_ReduceGroups; ++g)
  {
    re += partials[3 * g];
    im += partials[3 * g + 1];
    norm2 += partials[3 * g + 2];
  }
  return { re, im };
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::NullAxpy(const cl::Buffer & x, const DeviceBuffer<Scalar> & e, Scalar c)
{
  const PSCRPlan<Scalar> & p = *m_Plan;
  const bool threeD = p.axes.size() > 2;
  m_NullAxpy.Set(x,
                 e.Get(),
                 static_cast<cl_int>(p.axes[0].Size()),
                 static_cast<cl_int>(p.axes[1].Size()),
                 static_cast<cl_int>(threeD ? p.axes[2].Size() : 1),
                 cl_int(threeD ? 1 : 0),
                 c);
  EnqueueLinear(m_NullAxpy);
}

namespace
{

// The steps of a checked solve on the device (gpurPSCRCheckedSolve.h): f is
// in the solver's Rhs() when it starts, u is `u`.
template<typename Scalar>
class DeviceSolve
{
public:
  using WideT = pscr::WideScalar<Scalar>;

  DeviceSolve(PSCRDeviceSolver<Scalar> & device, const WideDeviceProvider<Scalar> & wide, const cl::Buffer & u)
    : m_D(device)
    , m_Wide(wide)
    , m_U(u)
  {
  }

  double
  Prepare()
  {
    return m_D.ProjectNull(m_D.Rhs().Get());
  }

  pscr::RefinementOutcome
  Solve(const pscr::RefinementSettings & settings)
  {
    m_D.Copy(m_D.Rhs().Get(), m_U);
    return Run(m_D, m_U, settings);
  }

  pscr::RefinementOutcome
  SolveWide(const pscr::RefinementSettings & settings)
  {
    PSCRDeviceSolver<WideT> & w = m_Wide();
    w.Widen(m_D.Rhs().Get(), w.Rhs().Get());
    w.Copy(w.Rhs().Get(), w.Data().Get());
    const pscr::RefinementOutcome out = Run(w, w.Data().Get(), settings);
    w.Narrow(w.Data().Get(), m_U);
    return out;
  }

  pscr::RefinementOutcome
  Check(const pscr::RefinementSettings & settings)
  {
    return pscr::Refine(
      settings, [&] { return Residual(m_D, m_U); }, [] {});
  }

private:
  // r = f - A u of solver `d` (f its Rhs(), r its Correction()), the floor for Scalar.
  template<typename T>
  static pscr::ResidualSums
  Residual(PSCRDeviceSolver<T> & d, const cl::Buffer & u)
  {
    return d.Residual(d.Rhs().Get(), u, d.Correction().Get(), std::numeric_limits<RealType<Scalar>>::digits);
  }

  // u (holding f) <- the refined solution of solver `d`.
  template<typename T>
  static pscr::RefinementOutcome
  Run(PSCRDeviceSolver<T> & d, const cl::Buffer & u, const pscr::RefinementSettings & settings)
  {
    d.Pass(u);
    return pscr::Refine(
      settings,
      [&] { return Residual(d, u); },
      [&]
      {
        d.Pass(d.Correction().Get());
        d.Add(u, d.Correction().Get());
      });
  }

  PSCRDeviceSolver<Scalar> & m_D;
  const WideDeviceProvider<Scalar> & m_Wide;
  const cl::Buffer & m_U;
};

template<typename Scalar>
void
CheckBuffers(PSCRDeviceSolver<Scalar> & device,
             std::size_t count,
             const DeviceBuffer<Scalar> & f,
             const DeviceBuffer<Scalar> & u)
{
  if (f.Size() < count || u.Size() < count)
  {
    throw InvalidArgument("PSCRSolver::Solve: the device buffers hold " + std::to_string(f.Size()) + " (f) and " +
                          std::to_string(u.Size()) + " (u) values; the operator needs " + std::to_string(count));
  }
  for (const DeviceBuffer<Scalar> * b : { &f, &u })
  {
    if (b->Get().template getInfo<CL_MEM_CONTEXT>()() != device.Context().Context()())
    {
      throw InvalidArgument("PSCRSolver::Solve: a device buffer belongs to another OpenCL context; allocate it on the "
                            "solver's Context() (device '" +
                            device.Context().Info().name + "')");
    }
  }
}

} // namespace

template<typename Scalar>
PSCRSolveReport
SolveOnDevice(PSCRDeviceSolver<Scalar> & device,
              const WideDeviceProvider<Scalar> & wide,
              const Scalar * f,
              Scalar * u,
              const pscr::CheckedSolveSettings & settings,
              std::atomic<bool> & inDouble)
{
  const std::size_t count = device.Rhs().Size();
  PSCRSolveReport report;
  TranslateCLErrors(
    [&]
    {
      const std::lock_guard<std::mutex> lock(device.Mutex());
      device.Rhs().Upload(device.Queue(), f, count);
      DeviceSolve<Scalar> run(device, wide, device.Data().Get());
      report = pscr::CheckedSolve<Scalar>(run, settings, inDouble);
      device.Data().Download(device.Queue(), u, count);
    });
  return report;
}

template<typename Scalar>
PSCRSolveReport
SolveOnDevice(PSCRDeviceSolver<Scalar> & device,
              const WideDeviceProvider<Scalar> & wide,
              const DeviceBuffer<Scalar> & f,
              const DeviceBuffer<Scalar> & u,
              const pscr::CheckedSolveSettings & settings,
              std::atomic<bool> & inDouble)
{
  PSCRSolveReport report;
  TranslateCLErrors(
    [&]
    {
      CheckBuffers(device, device.Rhs().Size(), f, u);
      const std::lock_guard<std::mutex> lock(device.Mutex());
      device.Copy(f.Get(), device.Rhs().Get());
      DeviceSolve<Scalar> run(device, wide, u.Get());
      report = pscr::CheckedSolve<Scalar>(run, settings, inDouble);
    });
  return report;
}

template<typename Scalar>
void
EnqueueOnDevice(PSCRDeviceSolver<Scalar> & device, const DeviceBuffer<Scalar> & f, const DeviceBuffer<Scalar> & u)
{
  TranslateCLErrors(
    [&]
    {
      CheckBuffers(device, device.Rhs().Size(), f, u);
      const std::lock_guard<std::mutex> lock(device.Mutex());
      device.Copy(f.Get(), u.Get());
      device.ProjectNull(u.Get());
      device.Pass(u.Get());
    });
}

template class PSCRDeviceSolver<float>;
template class PSCRDeviceSolver<double>;
template class PSCRDeviceSolver<std::complex<float>>;
template class PSCRDeviceSolver<std::complex<double>>;

#define GPUR_INSTANTIATE_PSCR_DEVICE_SOLVE(T)                                                                          \
  template PSCRSolveReport SolveOnDevice<T>(PSCRDeviceSolver<T> &,                                                     \
                                            const WideDeviceProvider<T> &,                                             \
                                            const T *,                                                                 \
                                            T *,                                                                       \
                                            const pscr::CheckedSolveSettings &,                                        \
                                            std::atomic<bool> &);                                                      \
  template PSCRSolveReport SolveOnDevice<T>(PSCRDeviceSolver<T> &,                                                     \
                                            const WideDeviceProvider<T> &,                                             \
                                            const DeviceBuffer<T> &,                                                   \
                                            const DeviceBuffer<T> &,                                                   \
                                            const pscr::CheckedSolveSettings &,                                        \
                                            std::atomic<bool> &);                                                      \
  template void EnqueueOnDevice<T>(PSCRDeviceSolver<T> &, const DeviceBuffer<T> &, const DeviceBuffer<T> &);

GPUR_INSTANTIATE_PSCR_DEVICE_SOLVE(float)
GPUR_INSTANTIATE_PSCR_DEVICE_SOLVE(double)
GPUR_INSTANTIATE_PSCR_DEVICE_SOLVE(std::complex<float>)
GPUR_INSTANTIATE_PSCR_DEVICE_SOLVE(std::complex<double>)

} // namespace gpur
