// SPDX-License-Identifier: Apache-2.0
// The per-pixel arithmetic of PI-PD level-line denoising for the CPU
// reference: the very functions of kernels/levellines_common.cl (the
// likelihood-ratio tests [Perrot2013, eq. (8)], the lengthening of
// [Perrot2013, Algorithm 2], the hybrid decision of [Perrot2013,
// Algorithm 3]), compiled as C++, so the CPU and OpenCL backends share one
// source and do the same float operations in the same order.
#ifndef gpurLevelLinesArithmetic_h
#define gpurLevelLinesArithmetic_h

#include <cmath>

namespace gpur
{
namespace levellines
{

using std::log;
using uchar = unsigned char;
#define LL_GLOBAL
#define LL_CONSTANT
#define LL_TABLE static const
#include "../kernels/levellines_common.cl"
#undef LL_GLOBAL
#undef LL_CONSTANT
#undef LL_TABLE

} // namespace levellines
} // namespace gpur

#endif
