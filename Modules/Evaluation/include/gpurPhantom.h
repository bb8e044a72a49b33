// SPDX-License-Identifier: Apache-2.0
// Synthetic test data: CT-like phantoms and noise, deterministic by seed.
#ifndef gpurPhantom_h
#define gpurPhantom_h

#include "gpurGrid.h"

#include <cstdint>
#include <vector>

namespace gpur
{

/**
 * A 3D Shepp-Logan-like head phantom (10 ellipsoids, modified intensities so
 * that the contrast is visible, values in [0, 1]) sampled on the grid; for a
 * 2D grid the central z = 0 slice of the same phantom.
 */
std::vector<float>
SheppLoganPhantom(const Grid & grid);

/** f + N(0, sigma^2) noise, reproducible for a given seed. */
std::vector<float>
AddGaussianNoise(const std::vector<float> & f, double sigma, std::uint64_t seed);

} // namespace gpur

#endif
