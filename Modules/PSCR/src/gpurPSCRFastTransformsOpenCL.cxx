// SPDX-License-Identifier: Apache-2.0
// The fast-transform path of PSCRSolver on OpenCL (gpurPSCRFastTransformsDevice.h).
//
// Each transformed axis is one pack kernel, one in-place real FFT of the
// padded lines and one unpack kernel (kernels/pscr_fast.cl). u keeps x
// fastest throughout, read and written with strides, except that with one
// axis left the last forward unpack lays that axis out contiguously for the
// batched tridiagonal solves (and the first inverse pack reads it so).
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

// Points of the real FFT of an axis of n points: the odd (DST-I) or even (DCT-II) extension.
std::size_t
FFTPoints(TrigTransformKind kind, std::size_t n)
{
  return kind == TrigTransformKind::DST1 ? 2 * (n + 1) : 2 * n;
}

std::size_t
RemainderAxis(const std::vector<TrigAxis> & trig)
{
  for (std::size_t d = 0; d < trig.size(); ++d)
    if (trig[d].kind == TrigTransformKind::None)
      return d;
  return trig.size();
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
    if (!FFTDeviceSupports(device, { FFTPoints(a.kind, a.eigenvalues.size()) }, true))
      return false;
  }
  return transformed > 0 && left <= 1;
}

template<typename Scalar>
std::uint64_t
FastTransformDeviceSolver<Scalar>::Bytes(const DeviceInfo & device,
                                         const std::vector<std::size_t> & shape,
                                         const std::vector<TrigAxis> & trig,
                                         const TridiagonalOptions & tridiagonal)
{
  std::uint64_t count = 1, work = 0, tables = 0;
  for (const std::size_t n : shape)
    count *= n;
  const std::size_t r = RemainderAxis(trig);
  for (std::size_t d = 0; d < shape.size(); ++d)
  {
    tables += shape[d] * (sizeof(double) + 2 * sizeof(Scalar));
    if (d != r)
      work = std::max<std::uint64_t>(work, (FFTPoints(trig[d].kind, shape[d]) / 2 + 1) * (count / shape[d]));
  }
  std::uint64_t bytes = work * sizeof(Complex) + tables;
  if (r < shape.size())
  {
    const std::size_t systems = count / shape[r];
    bytes += systems * sizeof(Scalar) + TridiagonalDeviceSolver<Scalar>::Bytes(device, shape[r], tridiagonal, systems);
  }
  return bytes;
}

template<typename Scalar>
FastTransformDeviceSolver<Scalar>::FastTransformDeviceSolver(DeviceContext & context,
                                                             const DeviceInfo & device,
                                                             const Program & program,
                                                             const std::vector<AxisFactors<Scalar>> & axes,
                                                             const std::vector<TrigAxis> & trig,
                                                             double shift,
                                                             bool singularMode,
                                                             const TridiagonalOptions & tridiagonal,
                                                             bool servesFloat)
  : m_Trig(trig)
  , m_Remainder(RemainderAxis(trig))
  , m_SingularMode(singularMode)
  , m_Shift(shift)
{
  const std::size_t dims = axes.size();
  for (const AxisFactors<Scalar> & a : axes)
  {
    m_Shape.push_back(a.Size());
    m_Count *= a.Size();
  }
  // Strides: x fastest, and the remainder's layout (that axis first, the others in order).
  m_Natural.assign(dims, 1);
  for (std::size_t d = 1; d < dims; ++d)
    m_Natural[d] = m_Natural[d - 1] * static_cast<long>(m_Shape[d - 1]);
  if (m_Remainder < dims)
  {
    m_RemainderFirst.assign(dims, 1);
    long stride = static_cast<long>(m_Shape[m_Remainder]);
    for (const std::size_t d : Others(dims, m_Remainder))
    {
      m_RemainderFirst[d] = stride;
      stride *= static_cast<long>(m_Shape[d]);
    }
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
    const std::size_t n = m_Shape[d], points = FFTPoints(kind, n), lines = m_Count / n;
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

  if (m_Remainder == dims)
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
    // System l = ib + ic nb of the axis left: its shift c + lambda_b[ib] + lambda_c[ic].
    const std::vector<std::size_t> other = Others(dims, m_Remainder);
    const std::size_t nb = m_Shape[other[0]], nc = other.size() > 1 ? m_Shape[other[1]] : 1;
    std::vector<Scalar> shifts(nb * nc);
    for (std::size_t ic = 0; ic < nc; ++ic)
      for (std::size_t ib = 0; ib < nb; ++ib)
        shifts[ib + ic * nb] = static_cast<Scalar>(shift + trig[other[0]].eigenvalues[ib] +
                                                   (other.size() > 1 ? trig[other[1]].eigenvalues[ic] : 0.0));
    m_Shifts = DeviceBuffer<Scalar>(context, shifts.size(), CL_MEM_READ_ONLY);
    m_Shifts.Upload(context.Queue(0), shifts);
    m_Tridiagonal = std::make_unique<TridiagonalDeviceSolver<Scalar>>(
      context, device, axes[m_Remainder], tridiagonal, shifts.size(), servesFloat);
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
  return *m_Plans.at({ FFTPoints(m_Trig[axis].kind, n), m_Count / n });
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
  l.pitch = static_cast<cl_long>(2 * (FFTPoints(m_Trig[axis].kind, m_Shape[axis]) / 2 + 1));
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
  const Launch l = LaunchOver(axis, kind == TrigTransformKind::DCT3 ? n + 1 : FFTPoints(kind, n), s);
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
  const bool every = m_Remainder == dims;
  std::vector<std::size_t> T;
  for (std::size_t d = 0; d < dims; ++d)
    if (d != m_Remainder)
      T.push_back(d);
  // Forward: DST-I or DCT-II along each transformed axis.
  for (std::size_t i = 0; i < T.size(); ++i)
  {
    const std::size_t a = T[i];
    const bool last = i + 1 == T.size();
    Pack(queue, a, m_Trig[a].kind, u, m_Natural);
    Plan(a).ForwardInPlace(m_Work);
    Unpack(queue, a, m_Trig[a].kind, u, last && !every ? m_RemainderFirst : m_Natural, last ? m_Scale : 1.0);
  }
  // Per mode: a division, or the shifted tridiagonal system of the axis left
  // ([Myllykoski2018, eqs. (2.5)-(2.6)] with the eigenvalues in the shift).
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
  else
  {
    m_Tridiagonal->Solve(queue, u, m_Count / m_Shape[m_Remainder], m_Shifts.Get(), m_SingularMode ? 0 : -1);
  }
  // Inverse: the DST-I again, or the DCT-III.
  for (std::size_t i = 0; i < T.size(); ++i)
  {
    const std::size_t a = T[i];
    const Strides & from = i == 0 && !every ? m_RemainderFirst : m_Natural;
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
