// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the TV module's tests.
#ifndef gpurTVTesting_h
#define gpurTVTesting_h

#include "gpurPhantom.h"
#include "gpurTVDenoiser.h"

#include <cstdint>
#include <vector>

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

/** The Shepp-Logan phantom of a grid with Gaussian noise (sigma 0.1, the given seed), in Real. */
template<typename Real>
std::vector<Real>
NoisyPhantom(const Grid & grid, std::uint64_t seed)
{
  const std::vector<float> f = AddGaussianNoise(SheppLoganPhantom(grid), 0.1, seed);
  return std::vector<Real>(f.begin(), f.end());
}

/** A positive weight (or variance) image that varies along the voxels: 0.5 + (i mod period) / scale. */
template<typename Real>
std::vector<Real>
PeriodicWeights(std::size_t n, unsigned period, Real scale)
{
  std::vector<Real> w(n);
  for (std::size_t i = 0; i < n; ++i)
    w[i] = Real(0.5) + Real(i % period) / scale;
  return w;
}

} // namespace testing
} // namespace gpur

#endif
