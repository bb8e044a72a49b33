// SPDX-License-Identifier: Apache-2.0
// The Runge-Kutta-Merson combinations of kernels/gpur_merson.cl compiled as
// C++ for the CPU backend, once per precision (float and double overloads of
// each function), so that both backends do the same operations in the same
// order.
#ifndef gpurMersonArithmetic_h
#define gpurMersonArithmetic_h

#include <cmath>

namespace gpur
{
namespace merson
{
using std::fabs;
#define REAL float
#include "../kernels/gpur_merson.cl"
#undef REAL
#define REAL double
#include "../kernels/gpur_merson.cl"
#undef REAL
} // namespace merson
} // namespace gpur

#endif
