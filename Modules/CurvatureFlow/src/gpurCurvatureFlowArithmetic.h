// SPDX-License-Identifier: Apache-2.0
// The per-node functions of kernels/curvatureflow_mcf.cl (the scheme's
// speed Q H [Oberhuber2011, eqs. (36)-(50)], the exact solutions, the
// forcing, the Neumann copies) compiled as C++ for the CPU reference, once
// per precision (float and double overloads), and those of
// kernels/curvatureflow_willmore.cl (Scheme 3.2) in double, so that both
// backends do the same operations in the same order.
#ifndef gpurCurvatureFlowArithmetic_h
#define gpurCurvatureFlowArithmetic_h

#include <cmath>

namespace gpur
{
namespace curvatureflow
{
using std::cos;
using std::exp;
using std::log;
using std::sin;
using std::sqrt;
#define MCF_GLOBAL
#define REAL float
#include "../kernels/curvatureflow_mcf.cl"
#undef MCF_PI
#undef REAL
#define REAL double
#include "../kernels/curvatureflow_mcf.cl"
#include "../kernels/curvatureflow_willmore.cl"
#undef MCF_PI
#undef REAL
#undef MCF_GLOBAL
} // namespace curvatureflow
} // namespace gpur

#endif
