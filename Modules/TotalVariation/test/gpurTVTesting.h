// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the TV module's tests.
#ifndef gpurTVTesting_h
#define gpurTVTesting_h

#include "gpurTVDenoiser.h"

namespace gpur
{
namespace testing
{

/** TV parameters with the given method, lambda, gap tolerance (0: run every iteration) and iteration budget. */
inline TVParameters
MakeTVParameters(TVAlgorithm algorithm, double lambda, double tolerance, unsigned maxIterations)
{
  TVParameters p;
  p.algorithm = algorithm;
  p.lambda = lambda;
  p.gapTolerance = tolerance;
  p.maxIterations = maxIterations;
  return p;
}

} // namespace testing
} // namespace gpur

#endif
