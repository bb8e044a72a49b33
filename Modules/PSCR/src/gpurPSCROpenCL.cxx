// The OpenCL execution of a PSCR plan (digest §4.3-4.4, §4.6, §5): the CPU's
// recursion (gpurPSCRSolver.cxx) flattened into batches. At axis d the solver
// holds P problems of the same shape with their own shifts; every level turns
// them into P x jobs partial solves one axis down, solved together, down to
// one batch of tridiagonal systems along x. The recursion is depth first, so one
// workspace per axis serves every level.
#include "gpurPSCRDevice.h"

#include "gpurLaunch.h"

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
PSCRDeviceSolver<Scalar>::PSCRDeviceSolver(std::shared_ptr<const PSCRPlan<Scalar>> plan, const DeviceInfo & device)
  : m_Plan(std::move(plan))
  , m_Context(DeviceContext::Get(device))
{
  const PSCRPlan<Scalar> & p = *m_Plan;
  const unsigned dims = static_cast<unsigned>(p.axes.size());
  const std::size_t count = p.Count();
  // Problems per axis: one at the top; each level of axis d hands P x jobs to axis d - 1.
  std::vector<std::size_t> problems(dims, 1);
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
  for (unsigned d = 1; d < dims; ++d)
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
  if (p.refinementSteps > 0)
  {
    need(count); // f
    need(count); // the residual, then the correction
  }
  const std::uint64_t tridiagonal =
    TridiagonalDeviceSolver<Scalar>::Bytes(device, p.axes[0].Size(), p.tridiagonal, problems[0]);
  m_Context->CheckMemory(scalars * sizeof(Scalar) + tridiagonal,
                         std::max<std::uint64_t>(largest * sizeof(Scalar), tridiagonal),
                         "PSCR solve of " + Shape(p));

  TranslateCLErrors(
    [&]
    {
      DeviceContext & context = *m_Context;
      const cl::Program program = BuildPSCRProgram<Scalar>(context, device, "PSCR solver");
      m_Gather = DeviceContext::Kernel(program, "pscr_gather");
      m_BlockEnds = DeviceContext::Kernel(program, "pscr_block_ends");
      m_ReduceCouple = DeviceContext::Kernel(program, "pscr_reduce_couple");
      m_BackCouple = DeviceContext::Kernel(program, "pscr_back_couple");
      m_BackUpdate = DeviceContext::Kernel(program, "pscr_back_update");
      m_NullDot = DeviceContext::Kernel(program, "pscr_null_dot");
      m_NullAxpy = DeviceContext::Kernel(program, "pscr_null_axpy");
      m_Residual = DeviceContext::Kernel(program, "pscr_residual");
      m_Add = DeviceContext::Kernel(program, "pscr_add");
      std::size_t limit = kWideLevelGroup;
      for (const cl::Kernel * k :
           { &m_Gather, &m_BlockEnds, &m_ReduceCouple, &m_BackCouple, &m_BackUpdate, &m_NullAxpy, &m_Residual, &m_Add })
        limit = std::min(limit, pscr::KernelGroupLimit(*k, device));
      m_Group = std::min(kLevelGroup, limit);
      m_WideGroup = limit;
      m_ReduceGroup = 1;
      while (m_ReduceGroup * 2 <= std::min(kReduceGroup, pscr::KernelGroupLimit(m_NullDot, device)))
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
      m_TopShift = UploadNew(context, std::vector<Scalar>{ p.shift });
      m_Axes.resize(dims);
      for (unsigned d = 1; d < dims; ++d)
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
      if (p.refinementSteps > 0)
      {
        m_Rhs = DeviceBuffer<Scalar>(context, count);
        m_Correction = DeviceBuffer<Scalar>(context, count);
      }
      m_Tridiagonal =
        std::make_unique<TridiagonalDeviceSolver<Scalar>>(context, device, p.axes[0], p.tridiagonal, problems[0]);
      context.Queue(0).finish(); // the uploads read host vectors that end here
    });
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Solve(const Scalar * f, Scalar * u)
{
  const std::lock_guard<std::mutex> lock(m_Mutex);
  const std::size_t count = m_Plan->Count();
  TranslateCLErrors(
    [&]
    {
      if (m_Data.Size() == 0) // only host solves need it; device-resident callers bring their own
        m_Data = DeviceBuffer<Scalar>(*m_Context, count);
      // In order on one queue: the blocking download ends the call, so f may alias u.
      m_Data.Upload(Queue(), f, count, 0, false);
      SolveInPlace(m_Data.Get());
      m_Data.Download(Queue(), u, count);
    });
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Solve(const DeviceBuffer<Scalar> & f, const DeviceBuffer<Scalar> & u)
{
  const std::size_t count = m_Plan->Count();
  if (f.Size() < count || u.Size() < count)
  {
    throw InvalidArgument("PSCRSolver::Solve: the device buffers hold " + std::to_string(f.Size()) + " (f) and " +
                          std::to_string(u.Size()) + " (u) values; the operator needs " + std::to_string(count));
  }
  TranslateCLErrors(
    [&]
    {
      for (const DeviceBuffer<Scalar> * b : { &f, &u })
      {
        if (b->Get().template getInfo<CL_MEM_CONTEXT>()() != m_Context->Context()())
        {
          throw InvalidArgument("PSCRSolver::Solve: a device buffer belongs to another OpenCL context; allocate it "
                                "on the solver's Context() (device '" +
                                m_Context->Info().name + "')");
        }
      }
      const std::lock_guard<std::mutex> lock(m_Mutex);
      if (f.Get()() != u.Get()())
        Queue().enqueueCopyBuffer(f.Get(), u.Get(), 0, 0, count * sizeof(Scalar));
      SolveInPlace(u.Get());
    });
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::SolveInPlace(const cl::Buffer & u)
{
  const PSCRPlan<Scalar> & p = *m_Plan;
  const std::size_t count = p.Count();
  if (p.refinementSteps > 0) // f is kept for the residuals
    Queue().enqueueCopyBuffer(u, m_Rhs.Get(), 0, 0, count * sizeof(Scalar));
  Pass(u, true);
  const bool threeD = p.axes.size() > 2;
  for (unsigned step = 0; step < p.refinementSteps; ++step)
  {
    // As on the CPU: u += A^-1 (f - A u).
    SetArgs(m_Residual,
            m_Rhs.Get(),
            u,
            m_Correction.Get(),
            p.shift,
            m_Factors.Get(),
            m_FactorOffset[0],
            static_cast<cl_int>(p.axes[0].Size()),
            m_FactorOffset[1],
            static_cast<cl_int>(p.axes[1].Size()),
            threeD ? m_FactorOffset[2] : cl_int(-1),
            static_cast<cl_int>(threeD ? p.axes[2].Size() : 1));
    Enqueue(m_Residual, p.axes[0].Size(), p.axes[1].Size(), threeD ? p.axes[2].Size() : 1);
    Pass(m_Correction.Get(), false);
    SetArgs(m_Add, u, m_Correction.Get(), static_cast<cl_long>(count));
    Queue().enqueueNDRangeKernel(
      m_Add, cl::NullRange, cl::NDRange(pscr::RoundUp(count, m_WideGroup)), cl::NDRange(m_WideGroup));
  }
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Pass(const cl::Buffer & u, bool check)
{
  const PSCRPlan<Scalar> & p = *m_Plan;
  if (p.singular)
  {
    // As on the CPU: the compatibility of f (not of a refinement's residual),
    // then f <- f - (e^T f) M e.
    double f2 = 0;
    const std::complex<double> ef = NullDot(u, m_Null, f2);
    if (check)
      CheckNullCompatibility(p, std::abs(ef), f2);
    NullAxpy(u, m_MassNull, FromWide<Scalar>(ef));
  }
  Axis(static_cast<unsigned>(p.axes.size() - 1), u, 1, m_TopShift.Get(), p.singular ? 0 : -1);
  if (p.singular)
  {
    // The solution with e^T M u = 0.
    double unused = 0;
    NullAxpy(u, m_Null, FromWide<Scalar>(NullDot(u, m_MassNull, unused)));
  }
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
  // Reduction, levels 1..k-1 (eqs. 2.16-2.17).
  for (std::size_t i = 1; i < k; ++i)
  {
    const PSCRLevel & level = ap.levels[i - 1];
    Gather(d, i, X, problems, shifts, false);
    Axis(d - 1, a.z.Get(), problems * level.jobs, a.innerShifts.Get(), -1);
    SetArgs(m_BlockEnds,
            a.z.Get(),
            static_cast<cl_long>(m_Plan->InnerCount(d)),
            static_cast<cl_int>(level.jobs),
            a.blocks[i - 1].Get(),
            static_cast<cl_int>(level.blocks.size()),
            a.vectors.Get(),
            a.v.Get());
    Enqueue(m_BlockEnds, m_Plan->InnerCount(d), level.blocks.size(), problems);
    for (int pass = 0; pass < 2; ++pass)
      Couple(m_ReduceCouple, d, i, X, problems, shifts, pass);
  }
  // Back substitution, levels k..1 (eqs. 2.18-2.19).
  for (std::size_t i = k; i >= 1; --i)
  {
    const PSCRLevel & level = ap.levels[i - 1];
    Couple(m_BackCouple, d, i, X, problems, shifts, -1);
    Gather(d, i, X, problems, shifts, true);
    // The null vector's path: at the top level, the problem `singular`'s null eigenpair.
    const long inner =
      singular >= 0 && i == k ? singular * static_cast<long>(level.jobs) + static_cast<long>(ap.nullIndex) : -1;
    Axis(d - 1, a.z.Get(), problems * level.jobs, a.innerShifts.Get(), inner);
    SetArgs(m_BackUpdate,
            X,
            static_cast<cl_int>(ap.n),
            static_cast<cl_long>(m_Plan->InnerCount(d)),
            a.z.Get(),
            static_cast<cl_int>(level.jobs),
            a.blocks[i - 1].Get(),
            a.vectors.Get());
    Enqueue(m_BackUpdate, m_Plan->InnerCount(d), level.blocks.size(), problems);
  }
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Gather(unsigned d,
                                 std::size_t level,
                                 const cl::Buffer & X,
                                 std::size_t problems,
                                 const cl::Buffer & shifts,
                                 bool withCouplings)
{
  const PSCRAxisPlan<Scalar> & ap = m_Plan->reduced[d];
  const PSCRLevel & l = ap.levels[level - 1];
  const AxisBuffers & a = m_Axes[d];
  const std::size_t S = m_Plan->InnerCount(d);
  SetArgs(m_Gather,
          X,
          static_cast<cl_int>(ap.n),
          static_cast<cl_long>(S),
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
          cl_int(withCouplings ? 1 : 0));
  Enqueue(m_Gather, S, l.jobs, problems);
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Couple(cl::Kernel & kernel,
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
  Enqueue(kernel, S, l.blocks.size(), problems);
}

template<typename Scalar>
void
PSCRDeviceSolver<Scalar>::Enqueue(const cl::Kernel & kernel,
                                  std::size_t inner,
                                  std::size_t second,
                                  std::size_t problems)
{
  if (second == 0 || problems == 0)
    return;
  const std::size_t group = inner >= m_WideGroup ? m_WideGroup : m_Group;
  Queue().enqueueNDRangeKernel(
    kernel, cl::NullRange, cl::NDRange(pscr::RoundUp(inner, group), second, problems), cl::NDRange(group, 1, 1));
}

template<typename Scalar>
std::complex<double>
PSCRDeviceSolver<Scalar>::NullDot(const cl::Buffer & x, const DeviceBuffer<Scalar> & e, double & norm2)
{
  using Real = RealType<Scalar>;
  const PSCRPlan<Scalar> & p = *m_Plan;
  const bool threeD = p.axes.size() > 2;
  SetArgs(m_NullDot,
          x,
          e.Get(),
          static_cast<cl_int>(p.axes[0].Size()),
          static_cast<cl_int>(p.axes[1].Size()),
          static_cast<cl_int>(threeD ? p.axes[2].Size() : 1),
          cl_int(threeD ? 1 : 0),
          m_Partials.Get(),
          cl::Local(m_ReduceGroup * sizeof(Real)));
  Queue().enqueueNDRangeKernel(
    m_NullDot, cl::NullRange, cl::NDRange(m_ReduceGroups * m_ReduceGroup), cl::NDRange(m_ReduceGroup));
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
  SetArgs(m_NullAxpy,
          x,
          e.Get(),
          static_cast<cl_int>(p.axes[0].Size()),
          static_cast<cl_int>(p.axes[1].Size()),
          static_cast<cl_int>(threeD ? p.axes[2].Size() : 1),
          cl_int(threeD ? 1 : 0),
          c);
  Queue().enqueueNDRangeKernel(
    m_NullAxpy, cl::NullRange, cl::NDRange(pscr::RoundUp(p.Count(), m_WideGroup)), cl::NDRange(m_WideGroup));
}

template class PSCRDeviceSolver<float>;
template class PSCRDeviceSolver<double>;
template class PSCRDeviceSolver<std::complex<float>>;
template class PSCRDeviceSolver<std::complex<double>>;

} // namespace gpur
