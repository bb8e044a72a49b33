// SPDX-License-Identifier: Apache-2.0
// The fast-transform path of PSCRSolver on OpenCL (gpurPSCRFastTransformsDevice.h).
//
// Each transformed axis is one pack kernel, one in-place real FFT of the
// padded lines and one unpack kernel (kernels/pscr_fast.cl). u keeps x
// fastest throughout, read and written with strides, except that with axes
// left the last forward unpack lays them out first, contiguously, for their
// batched tridiagonal or PSCR solves (and the first inverse pack reads them so).
// Scaling: the DST-I is its own inverse up to 2 (n + 1) (both directions are
// forward real FFTs), the DCT-III here is the inverse FFT's (divided by 2 n),
// so a DCT pair is the identity; the masses m_t and the DST factors are
// applied once, at the last forward unpack.
// A strided axis (y, z) runs its pack and unpack across the lines, x in
// dimension 0, so that u is read and written in contiguous runs on GPUs; on
// PoCL (2 cores) either order ran equally fast (2D 2047^2, double: about
// 0.25 s a solve, of which the four FFTs take 4 x 0.034 s).
#include "gpurPSCRFastTransformsDevice.h"

#include "gpurPSCRDevice.h"

#include <algorithm>
#include <cmath>

namespace gpur
{

namespace
{

// Work-group size along the transform axis.
constexpr std::size_t kFastGroup = 64;

// The axes left (kind None), in order.
std::vector<std::size_t>
RemainderAxes(const std::vector<TrigAxis> & trig)
{
  std::vector<std::size_t> out;
  for (std::size_t d = 0; d < trig.size(); ++d)
    if (trig[d].kind == TrigTransformKind::None)
      out.push_back(d);
  return out;
}

// The other axes than a, in order.
std::vector<std::size_t>
Others(std::size_t dims, std::size_t a)
{
  std::vector<std::size_t> out;
  for (std::size_t d = 0; d < dims; ++d)
    if (d != a)
      out.push_back(d);
  return out;
}

} // namespace

bool
DeviceTakesFastTransforms(const DeviceInfo & device, const std::vector<TrigAxis> & trig)
{
  std::size_t left = 0, transformed = 0;
  for (const TrigAxis & a : trig)
  {
    if (a.kind == TrigTransformKind::None)
    {
      ++left;
      continue;
    }
    ++transformed;
    if (!FFTDeviceSupports(device, { TrigTransformFFTPoints(a.kind, a.eigenvalues.size()) }, true))
      return false;
  }
  return transformed > 0 && left <= 2;
}

template<typename Scalar>
std::uint64_t
FastTransformDeviceSolver<Scalar>::Bytes(const DeviceInfo & device, const PSCRPlan<Scalar> & plan)
{
  std::uint64_t count = plan.Count(), work = 0, tables = 0;
  const std::vector<std::size_t> left = RemainderAxes(plan.trig);
  for (std::size_t d = 0; d < plan.axes.size(); ++d)
  {
    const std::size_t n = plan.axes[d].Size();
    tables += n * (sizeof(double) + 2 * sizeof(Scalar));
    if (plan.trig[d].kind != TrigTransformKind::None)
      work = std::max<std::uint64_t>(work, (TrigTransformFFTPoints(plan.trig[d].kind, n) / 2 + 1) * (count / n));
  }
  std::uint64_t bytes = work * sizeof(Complex) + tables;
  if (left.size() == 1)
  {
    const std::size_t n = plan.axes[left[0]].Size(), systems = count / n;
    bytes += systems * sizeof(Scalar) + TridiagonalDeviceSolver<Scalar>::Bytes(device, n, plan.tridiagonal, systems);
  }
  return bytes; // a remainder of two axes: its PSCR solver checks its own
}

template<typename Scalar>
FastTransformDeviceSolver<Scalar>::FastTransformDeviceSolver(DeviceContext & context,
                                                             const DeviceInfo & device,
                                                             const Program & program,
                                                             const PSCRPlan<Scalar> & plan,
                                                             bool servesFloat)
  : m_Trig(plan.trig)
  , m_Left(RemainderAxes(plan.trig))
  , m_SingularMode(plan.singular)
  , m_Shift(double(plan.shift))
  , m_Group(kFastGroup)
{
  const std::vector<TrigAxis> & trig = plan.trig;
  const std::size_t dims = plan.axes.size();
  for (const AxisFactors<Scalar> & a : plan.axes)
  {
    m_Shape.push_back(a.Size());
    m_Count *= a.Size();
  }
  for (std::size_t d = 0; d < dims; ++d)
    if (trig[d].kind != TrigTransformKind::None)
      m_Transformed.push_back(d);
  // Strides: x fastest, and the remainder's layout (the axes left first, then the transformed ones, each in order).
  m_Natural.assign(dims, 1);
  for (std::size_t d = 1; d < dims; ++d)
    m_Natural[d] = m_Natural[d - 1] * static_cast<long>(m_Shape[d - 1]);
  m_LeftFirst.assign(dims, 1);
  long stride = 1;
  for (const std::vector<std::size_t> * axes : { &m_Left, &m_Transformed })
    for (const std::size_t d : *axes)
    {
      m_LeftFirst[d] = stride;
      stride *= static_cast<long>(m_Shape[d]);
    }

  std::size_t work = 1;
  double scale = 1;
  m_Twiddles.resize(dims);
  const double pi = std::acos(-1.0);
  for (std::size_t d = 0; d < dims; ++d)
  {
    const TrigTransformKind kind = trig[d].kind;
    if (kind == TrigTransformKind::None)
      continue;
    const std::size_t n = m_Shape[d], points = TrigTransformFFTPoints(kind, n), lines = m_Count / n;
    scale *= trig[d].mass * (kind == TrigTransformKind::DST1 ? double(points) : 1.0);
    work = std::max(work, (points / 2 + 1) * lines);
    auto & plan = m_Plans[{ points, lines }];
    if (!plan)
      plan =
        std::make_unique<FFTPlan<Scalar>>(FFTKind::RealToComplex, std::vector<std::size_t>{ points }, lines, device);
    if (kind == TrigTransformKind::DCT2)
    {
      std::vector<Scalar> t(2 * n);
      for (std::size_t k = 0; k < n; ++k)
      {
        t[2 * k] = static_cast<Scalar>(std::cos(pi * double(k) / (2.0 * double(n))));
        t[2 * k + 1] = static_cast<Scalar>(std::sin(pi * double(k) / (2.0 * double(n))));
      }
      m_Twiddles[d] = DeviceBuffer<Scalar>(context, t.size(), CL_MEM_READ_ONLY);
      m_Twiddles[d].Upload(context.Queue(0), t);
    }
  }
  m_Scale = 1 / scale;
  m_Work = DeviceBuffer<Complex>(context, work);

  if (m_Left.empty())
  {
    // The division's eigenvalues: every axis', then one 0 for a missing z.
    std::vector<double> lambda;
    for (std::size_t d = 0; d < dims; ++d)
    {
      m_LambdaOffset.push_back(static_cast<cl_int>(lambda.size()));
      lambda.insert(lambda.end(), trig[d].eigenvalues.begin(), trig[d].eigenvalues.end());
    }
    m_LambdaOffset.resize(3, static_cast<cl_int>(lambda.size()));
    lambda.push_back(0);
    m_Lambda = DeviceBuffer<double>(context, lambda.size(), CL_MEM_READ_ONLY);
    m_Lambda.Upload(context.Queue(0), lambda);
  }
  else
  {
    // Problem t of the axes left (t over the transformed axes' modes, the
    // first fastest): its shift c + the sum of their eigenvalues.
    std::size_t problems = 1;
    for (const std::size_t d : m_Transformed)
      problems *= m_Shape[d];
    std::vector<Scalar> shifts(problems);
    for (std::size_t t = 0; t < problems; ++t)
    {
      double sum = m_Shift;
      std::size_t rest = t;
      for (const std::size_t d : m_Transformed)
      {
        sum += trig[d].eigenvalues[rest % m_Shape[d]];
        rest /= m_Shape[d];
      }
      shifts[t] = static_cast<Scalar>(sum);
    }
    m_Shifts = DeviceBuffer<Scalar>(context, shifts.size(), CL_MEM_READ_ONLY);
    m_Shifts.Upload(context.Queue(0), shifts);
    if (m_Left.size() == 1)
    {
      m_Tridiagonal = std::make_unique<TridiagonalDeviceSolver<Scalar>>(
        context, device, plan.axes[m_Left[0]], plan.tridiagonal, problems, servesFloat);
    }
    else
    {
      if (!plan.remainder)
        throw Error("PSCR on OpenCL: internal error, a fast-transform plan with two axes left and no plan of them");
      m_Remainder =
        std::make_unique<PSCRDeviceSolver<Scalar>>(plan.remainder,
                                                   device,
                                                   pscr::MakeColumnGram(plan.remainder->axes, plan.remainder->shift),
                                                   servesFloat,
                                                   problems);
    }
  }

  m_PackDST1 = program.MakeKernel("pscr_fast_pack_dst1");
  m_PackDCT2 = program.MakeKernel("pscr_fast_pack_dct2");
  m_PackDCT3 = program.MakeKernel("pscr_fast_pack_dct3");
  m_UnpackDCT2 = program.MakeKernel("pscr_fast_unpack_dct2");
  m_UnpackStrided = program.MakeKernel("pscr_fast_unpack_strided");
  m_Divide = program.MakeKernel("pscr_fast_divide");
  for (const Kernel * k : { &m_PackDST1, &m_PackDCT2, &m_PackDCT3, &m_UnpackDCT2, &m_UnpackStrided, &m_Divide })
    m_Group = std::min(m_Group, k->WorkGroupLimit());
  context.Queue(0).finish(); // the uploads read host vectors that end here
}

template<typename Scalar>
FastTransformDeviceSolver<Scalar>::~FastTransformDeviceSolver() = default;

template<typename Scalar>
const FFTPlan<Scalar> &
FastTransformDeviceSolver<Scalar>::Plan(std::size_t axis) const
{
  const std::size_t n = m_Shape[axis];
  return *m_Plans.at({ TrigTransformFFTPoints(m_Trig[axis].kind, n), m_Count / n });
}

template<typename Scalar>
typename FastTransformDeviceSolver<Scalar>::Launch
FastTransformDeviceSolver<Scalar>::LaunchOver(std::size_t axis, std::size_t points, const Strides & s) const
{
  const std::vector<std::size_t> other = Others(m_Shape.size(), axis);
  const std::size_t nb = m_Shape[other[0]], nc = other.size() > 1 ? m_Shape[other[1]] : 1;
  Launch l;
  l.n = static_cast<cl_int>(m_Shape[axis]);
  l.strides = { s[axis], s[other[0]], other.size() > 1 ? s[other[1]] : 0 };
  l.pitch = static_cast<cl_long>(2 * (TrigTransformFFTPoints(m_Trig[axis].kind, m_Shape[axis]) / 2 + 1));
  l.nb = static_cast<cl_long>(nb);
  l.across = s[axis] != 1 ? 1 : 0;
  l.global = l.across ? cl::NDRange(pscr::RoundUp(nb, m_Group), points, nc)
                      : cl::NDRange(pscr::RoundUp(points, m_Group), nb, nc);
  l.local = cl::NDRange(m_Group, 1, 1);
  return l;
}

template<typename Scalar>
void
FastTransformDeviceSolver<Scalar>::Pack(const cl::CommandQueue & queue,
                                        std::size_t axis,
                                        TrigTransformKind kind,
                                        const cl::Buffer & u,
                                        const Strides & s)
{
  const std::size_t n = m_Shape[axis];
  const Launch l = LaunchOver(axis, kind == TrigTransformKind::DCT3 ? n + 1 : TrigTransformFFTPoints(kind, n), s);
  const std::vector<cl_long> & st = l.strides;
  if (kind == TrigTransformKind::DCT3)
  {
    m_PackDCT3.Set(u, l.n, st[0], st[1], st[2], m_Work.Get(), l.pitch, m_Twiddles[axis].Get(), l.nb, l.across);
    m_PackDCT3.Enqueue(queue, l.global, l.local);
    return;
  }
  Kernel & k = kind == TrigTransformKind::DST1 ? m_PackDST1 : m_PackDCT2;
  k.Set(u, l.n, st[0], st[1], st[2], m_Work.Get(), l.pitch, l.nb, l.across);
  k.Enqueue(queue, l.global, l.local);
}

template<typename Scalar>
void
FastTransformDeviceSolver<Scalar>::Unpack(const cl::CommandQueue & queue,
                                          std::size_t axis,
                                          TrigTransformKind kind,
                                          const cl::Buffer & u,
                                          const Strides & s,
                                          double scale)
{
  const Launch l = LaunchOver(axis, m_Shape[axis], s);
  const std::vector<cl_long> & st = l.strides;
  if (kind == TrigTransformKind::DCT2)
  {
    m_UnpackDCT2.Set(m_Work.Get(),
                     l.pitch,
                     l.n,
                     u,
                     st[0],
                     st[1],
                     st[2],
                     static_cast<Scalar>(scale),
                     m_Twiddles[axis].Get(),
                     l.nb,
                     l.across);
    m_UnpackDCT2.Enqueue(queue, l.global, l.local);
    return;
  }
  // After a DST-I: -Im Z_{k+1}, at 2 k + 3; after a DCT-III: the k-th real.
  const bool sine = kind == TrigTransformKind::DST1;
  m_UnpackStrided.Set(m_Work.Get(),
                      l.pitch,
                      l.n,
                      u,
                      st[0],
                      st[1],
                      st[2],
                      static_cast<Scalar>(sine ? -scale : scale),
                      cl_int(sine ? 2 : 1),
                      cl_int(sine ? 3 : 0),
                      l.nb,
                      l.across);
  m_UnpackStrided.Enqueue(queue, l.global, l.local);
}

template<typename Scalar>
void
FastTransformDeviceSolver<Scalar>::Solve(const cl::CommandQueue & queue, const cl::Buffer & u)
{
  const std::size_t dims = m_Shape.size();
  const std::vector<std::size_t> & T = m_Transformed;
  const bool every = m_Left.empty();
  // Forward: DST-I or DCT-II along each transformed axis.
  for (std::size_t i = 0; i < T.size(); ++i)
  {
    const std::size_t a = T[i];
    const bool last = i + 1 == T.size();
    Pack(queue, a, m_Trig[a].kind, u, m_Natural);
    Plan(a).ForwardInPlace(m_Work);
    Unpack(queue, a, m_Trig[a].kind, u, last && !every ? m_LeftFirst : m_Natural, last ? m_Scale : 1.0);
  }
  // Per mode ([Myllykoski2018, eqs. (2.5)-(2.6)] with the eigenvalues in the
  // shift): a division, the shifted tridiagonal system of the one axis left,
  // or the PSCR problem of the two left. Mode 0 of a singular operator takes
  // the singular path.
  const std::size_t problems = every ? 0 : m_Shifts.Size();
  const long singular = m_SingularMode ? 0 : -1;
  if (every)
  {
    m_Divide.Set(u,
                 static_cast<cl_int>(m_Shape[0]),
                 static_cast<cl_int>(m_Shape[1]),
                 m_Lambda.Get(),
                 m_LambdaOffset[0],
                 m_LambdaOffset[1],
                 m_LambdaOffset[2],
                 m_Shift,
                 cl_int(m_SingularMode ? 1 : 0));
    m_Divide.Enqueue(queue,
                     cl::NDRange(pscr::RoundUp(m_Shape[0], m_Group), m_Shape[1], dims > 2 ? m_Shape[2] : 1),
                     cl::NDRange(m_Group, 1, 1));
  }
  else if (m_Tridiagonal)
    m_Tridiagonal->Solve(queue, u, problems, m_Shifts.Get(), singular);
  else
    m_Remainder->SolveProblems(u, problems, m_Shifts.Get(), singular);
  // Inverse: the DST-I again, or the DCT-III.
  for (std::size_t i = 0; i < T.size(); ++i)
  {
    const std::size_t a = T[i];
    const Strides & from = i == 0 && !every ? m_LeftFirst : m_Natural;
    if (m_Trig[a].kind == TrigTransformKind::DST1)
    {
      Pack(queue, a, TrigTransformKind::DST1, u, from);
      Plan(a).ForwardInPlace(m_Work);
      Unpack(queue, a, TrigTransformKind::DST1, u, m_Natural, 1.0);
    }
    else
    {
      Pack(queue, a, TrigTransformKind::DCT3, u, from);
      Plan(a).InverseInPlace(m_Work);
      Unpack(queue, a, TrigTransformKind::DCT3, u, m_Natural, 1.0);
    }
  }
}

template class FastTransformDeviceSolver<float>;
template class FastTransformDeviceSolver<double>;

} // namespace gpur
