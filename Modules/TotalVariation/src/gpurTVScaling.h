// SPDX-License-Identifier: Apache-2.0
// Exact power-of-two rescaling of intensities, shared by the TV drivers (internal).
//
// Multiplying by 2^e is exact in binary floating point (no rounding, as long as
// nothing over- or underflows), and every step of the solvers commutes with it
// when their constants are rescaled alike. So a solve on f / 2^e gives, after
// multiplying back, bit for bit the result on f, but without the overflow of
// squares near FLT_MAX or the underflow below 1e-19 (float) on the way; and
// rounds or chunks that pick different exponents still agree bit for bit.
#ifndef gpurTVScaling_h
#define gpurTVScaling_h

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace gpur
{

/** max |values[i]| (0 for no values), in double. */
template<typename Real>
double
MaxAbs(const Real * values, std::size_t count)
{
  double m = 0.0;
  for (std::size_t i = 0; i < count; ++i)
    m = std::max(m, std::abs(static_cast<double>(values[i])));
  return m;
}

/** The e with 2^(e-1) < maxAbs <= 2^e (0 for maxAbs = 0): f / 2^e lies in [-1, 1]. */
inline int
UnitExponent(double maxAbs)
{
  if (!(maxAbs > 0.0))
    return 0;
  int e = 0;
  const double mantissa = std::frexp(maxAbs, &e); // maxAbs = mantissa 2^e, mantissa in [0.5, 1)
  return mantissa == 0.5 ? e - 1 : e;
}

/** values / 2^e: the values themselves for e = 0, else a copy held in storage. */
template<typename Real>
const Real *
ScaledByPowerOfTwo(const Real * values, std::size_t count, int e, std::vector<Real> & storage)
{
  if (e == 0 || values == nullptr)
    return values;
  storage.resize(count);
  std::transform(values, values + count, storage.begin(), [e](Real v) { return std::ldexp(v, -e); });
  return storage.data();
}

/** values[i] *= 2^e in place. */
template<typename Real>
void
MultiplyByPowerOfTwo(Real * values, std::size_t count, int e)
{
  if (e == 0 || values == nullptr)
    return;
  std::transform(values, values + count, values, [e](Real v) { return std::ldexp(v, e); });
}

} // namespace gpur

#endif
