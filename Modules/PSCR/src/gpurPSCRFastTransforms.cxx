// SPDX-License-Identifier: Apache-2.0
#include "gpurPSCRFastTransforms.h"

#include "gpurPSCRInternal.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpur
{

namespace
{

// Entries equal to within this many ulps of w count as equal: the factors of
// MakeSecondDifferenceAxis are exact, those of MakeP1Axis on uniform nodes
// (lumped mass, Dirichlet ends) differ by the rounding of the node
// coordinates, which moves the solution by less than its own rounding.
constexpr double kUlps = 8;

bool
Near(double a, double b, double scale)
{
  return std::abs(a - b) <= kUlps * std::numeric_limits<double>::epsilon() * scale;
}

const char *
AxisName(std::size_t d)
{
  static const char * const names[] = { "x", "y", "z" };
  return names[d];
}

} // namespace

TrigAxis
DetectTrigAxis(const AxisFactors<double> & axis)
{
  TrigAxis none;
  const std::size_t n = axis.Size();
  const std::vector<double> & md = axis.M.diagonal;
  const double m = md.front();
  if (!(m > 0) || std::any_of(md.begin(), md.end(), [&](double v) { return !Near(v, m, m); }) ||
      std::any_of(axis.M.offDiagonal.begin(), axis.M.offDiagonal.end(), [&](double v) { return !Near(v, 0, m); }))
    return none;
  // w from the off-diagonal; a single unknown has none: its one entry is 2w
  // (Dirichlet, any w > 0 fits) or 0 (Neumann).
  const std::vector<double> & ad = axis.A.diagonal;
  const double w = n > 1 ? -axis.A.offDiagonal.front() : std::abs(ad.front()) / 2;
  const double scale = std::max(w, std::abs(ad.front()));
  if (!(scale > 0) && n > 1)
    return none;
  if (n > 1 &&
      (!(w > 0) ||
       std::any_of(axis.A.offDiagonal.begin(), axis.A.offDiagonal.end(), [&](double v) { return !Near(v, -w, w); })))
    return none;
  for (std::size_t i = 1; i + 1 < n; ++i)
    if (!Near(ad[i], 2 * w, w))
      return none;
  // The end rows: 2w at a Dirichlet end, w at a reflecting Neumann one (for
  // n = 1 the one row holds both ends: 2w or 0).
  auto endIs = [&](double expected)
  {
    return n == 1 ? Near(ad.front(), 2 * expected - 2 * w, scale)
                  : Near(ad.front(), expected, w) && Near(ad.back(), expected, w);
  };
  TrigAxis out;
  out.mass = m;
  out.eigenvalues.resize(n);
  const double pi = std::acos(-1.0);
  if (n == 1 ? ad.front() > 0 : endIs(2 * w))
  {
    out.kind = TrigTransformKind::DST1;
    const double wm = n == 1 ? ad.front() / 2 / m : w / m;
    for (std::size_t k = 0; k < n; ++k)
    {
      const double s = std::sin(pi * double(k + 1) / (2.0 * double(n + 1)));
      out.eigenvalues[k] = 4 * wm * s * s;
    }
    return out;
  }
  if (n == 1 ? ad.front() == 0 : endIs(w))
  {
    out.kind = TrigTransformKind::DCT2;
    for (std::size_t k = 0; k < n; ++k)
    {
      const double s = std::sin(pi * double(k) / (2.0 * double(n)));
      out.eigenvalues[k] = 4 * (w / m) * s * s;
    }
    out.eigenvalues[0] = 0; // exactly: the null mode of the Neumann axis
    return out;
  }
  return none;
}

std::size_t
TrigTransformFFTPoints(TrigTransformKind kind, std::size_t n)
{
  return kind == TrigTransformKind::DST1 ? 2 * (n + 1) : 2 * n;
}

TrigAxis
FastTransformAxis(const AxisFactors<double> & axis)
{
  TrigAxis trig = DetectTrigAxis(axis);
  if (trig.kind == TrigTransformKind::None)
    return trig;
  std::size_t rest = TrigTransformFFTPoints(trig.kind, axis.Size());
  for (std::size_t p = 2; p <= kFastTransformLargestPrime; ++p)
    while (rest % p == 0)
      rest /= p;
  return rest == 1 ? trig : TrigAxis();
}

std::string
FastTransformDescription(const std::vector<TrigAxis> & trig)
{
  std::string transformed, remaining;
  std::size_t remainingAxes = 0;
  for (std::size_t d = 0; d < trig.size(); ++d)
  {
    const TrigTransformKind kind = trig[d].kind;
    if (kind == TrigTransformKind::None)
    {
      remaining += std::string(remaining.empty() ? "" : ", ") + AxisName(d);
      ++remainingAxes;
    }
    else
    {
      transformed += std::string(transformed.empty() ? "" : ", ") + AxisName(d) + ": " + ToString(kind);
    }
  }
  std::string out = "fast transforms (" + transformed + ")";
  if (remainingAxes == 1)
    out += " + tridiagonal (" + remaining + ")";
  else if (remainingAxes > 1)
    out += " + PSCR (" + remaining + ")";
  return out;
}

template<typename Scalar>
FastTransformSolver<Scalar>::FastTransformSolver(const std::vector<std::size_t> & shape,
                                                 const std::vector<TrigAxis> & trig,
                                                 double shift,
                                                 RemainderFactory<Scalar> remainder,
                                                 bool singularMode)
  : m_Shape(shape)
  , m_Trig(trig)
  , m_Shift(shift)
  , m_Remainder(std::move(remainder))
  , m_SingularMode(singularMode)
{
  std::vector<TrigTransformKind> forward, inverse;
  double scale = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
  {
    const TrigTransformKind kind = trig[d].kind;
    forward.push_back(kind);
    inverse.push_back(InverseTrigTransform(kind));
    if (kind != TrigTransformKind::None)
      scale *= trig[d].mass * TrigTransformRoundTripScale(kind, shape[d]);
  }
  m_Scale = 1 / scale;
  m_Forward = std::make_unique<TrigTransformPlan<Scalar>>(shape, forward);
  m_Inverse = std::make_unique<TrigTransformPlan<Scalar>>(shape, inverse);
  m_Description = FastTransformDescription(trig);
}

template<typename Scalar>
void
FastTransformSolver<Scalar>::Solve(Scalar * u, const ParallelForFunction & loop) const
{
  const std::size_t dims = m_Shape.size();
  std::size_t stride[3] = { 1, 1, 1 };
  for (std::size_t d = 1; d < dims; ++d)
    stride[d] = stride[d - 1] * m_Shape[d - 1];
  const std::size_t count = stride[dims - 1] * m_Shape[dims - 1];
  m_Forward->Execute(u);

  // The transformed axes (T) index the modes, the others (R) the remainder.
  std::vector<std::size_t> T, R;
  for (std::size_t d = 0; d < dims; ++d)
    (m_Trig[d].kind == TrigTransformKind::None ? R : T).push_back(d);

  if (R.empty())
  {
    // Every axis transformed: a division, row by row (the slower axes'
    // eigenvalue sum is fixed within an x row).
    const std::size_t nx = m_Shape[0];
    const std::vector<double> & lx = m_Trig[0].eigenvalues;
    pscr::ForEachRange(&loop,
                       count / nx,
                       [&](std::size_t r0, std::size_t r1)
                       {
                         for (std::size_t row = r0; row < r1; ++row)
                         {
                           double outer = m_Shift;
                           std::size_t rest = row;
                           for (std::size_t d = 1; d < dims; ++d)
                           {
                             outer += m_Trig[d].eigenvalues[rest % m_Shape[d]];
                             rest /= m_Shape[d];
                           }
                           Scalar * line = u + row * nx;
                           for (std::size_t x = 0; x < nx; ++x)
                             line[x] = static_cast<Scalar>(double(line[x]) * m_Scale / (outer + lx[x]));
                         }
                       });
    if (m_SingularMode)
      u[0] = Scalar(0); // the null mode; the caller fixes the null component of the result
  }
  else
  {
    std::size_t modes = 1, block = 1;
    for (const std::size_t d : T)
      modes *= m_Shape[d];
    for (const std::size_t d : R)
      block *= m_Shape[d];
    // Offsets of mode t and of remainder entry r in u.
    auto offset = [&](const std::vector<std::size_t> & axes, std::size_t index)
    {
      std::size_t o = 0;
      for (const std::size_t d : axes)
      {
        o += (index % m_Shape[d]) * stride[d];
        index /= m_Shape[d];
      }
      return o;
    };
    std::vector<std::size_t> rOffset(block);
    for (std::size_t r = 0; r < block; ++r)
      rOffset[r] = offset(R, r);
    // When the remainder axes are the fastest ones, a mode's values are
    // contiguous and are solved where they are; otherwise a group of modes
    // consecutive in x is gathered (so each cache line is read once) and scattered back.
    const bool contiguous = R.back() + 1 == R.size();
    const std::size_t group = contiguous ? 1 : std::min<std::size_t>(16, m_Shape[T.front()]);
    const std::size_t groups = (modes + group - 1) / group;
    pscr::ForEachRange(&loop,
                       groups,
                       [&](std::size_t g0, std::size_t g1)
                       {
                         const RemainderSolve<Scalar> solve = m_Remainder();
                         std::vector<Scalar> buffer(contiguous ? 0 : group * block);
                         for (std::size_t g = g0; g < g1; ++g)
                         {
                           const std::size_t t0 = g * group, t1 = std::min(modes, t0 + group);
                           // Modes t0..t1-1 run along the fastest transformed axis
                           // (group divides nothing else: it is at most that axis' size,
                           // and t0 is a multiple of it or the groups start a new line).
                           std::size_t first[16];
                           for (std::size_t t = t0; t < t1; ++t)
                             first[t - t0] = offset(T, t);
                           for (std::size_t t = t0; t < t1; ++t)
                           {
                             double shift = m_Shift;
                             std::size_t rest = t;
                             bool nullMode = true;
                             for (const std::size_t d : T)
                             {
                               const std::size_t k = rest % m_Shape[d];
                               shift += m_Trig[d].eigenvalues[k];
                               nullMode = nullMode && k == 0;
                               rest /= m_Shape[d];
                             }
                             Scalar * x = contiguous ? u + first[t - t0] : buffer.data() + (t - t0) * block;
                             if (!contiguous && t == t0)
                             {
                               for (std::size_t r = 0; r < block; ++r)
                                 for (std::size_t s = t0; s < t1; ++s)
                                   buffer[(s - t0) * block + r] = u[first[s - t0] + rOffset[r]];
                             }
                             for (std::size_t r = 0; r < block; ++r)
                               x[r] = static_cast<Scalar>(double(x[r]) * m_Scale);
                             solve(static_cast<Scalar>(shift), x, m_SingularMode && nullMode);
                           }
                           if (!contiguous)
                           {
                             for (std::size_t r = 0; r < block; ++r)
                               for (std::size_t s = t0; s < t1; ++s)
                                 u[first[s - t0] + rOffset[r]] = buffer[(s - t0) * block + r];
                           }
                         }
                       });
  }
  m_Inverse->Execute(u);
}

template class FastTransformSolver<float>;
template class FastTransformSolver<double>;

} // namespace gpur
