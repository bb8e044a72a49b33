// SPDX-License-Identifier: Apache-2.0
#include "gpurTVDenoiser.h"
#include "gpurTVStepper.h"

namespace gpur
{

namespace
{

/** An iteration reaches one voxel in each direction (MakeTVLayout). */
constexpr std::size_t kTVStencilRadius = 1;

} // namespace

FieldLayout
MakeTVLayout(const Grid & grid, bool weighted, bool usesBar, std::size_t realSize)
{
  FieldLayout layout;
  layout.method = "TV denoising";
  layout.elementSize = realSize;
  layout.stencilRadius = kTVStencilRadius;
  layout.decomposable = true;
  layout.fields = { { "f", FieldRole::Input, 1 },
                    { "w", FieldRole::Input, weighted ? 1u : 0u },
                    { "u", FieldRole::State, 1, kTVF },
                    { "ubar", FieldRole::State, usesBar ? 1u : 0u, kTVF },
                    { "p", FieldRole::State, grid.size[2] > 1 ? 3u : 2u } };
  // The device program's ping-pong pairs (gpurTVDeviceKernels.h): 2 u and 2d p
  // arrays hold the fields u, ubar (CP only) and p, so d more arrays (d + 1 for PDU).
  layout.deviceWorkVolumes = layout.fields[kTVP].components + (usesBar ? 0 : 1);
  return layout;
}

std::size_t
TVHalo(unsigned iterations)
{
  FieldLayout layout;
  layout.stencilRadius = kTVStencilRadius;
  return layout.Halo(iterations);
}

std::size_t
TVMinimalBytesPerVoxel(TVAlgorithm /*algorithm*/,
                       unsigned dimension,
                       bool weighted,
                       std::size_t realSize,
                       bool halfPrecisionDual)
{
  // Every method iterates the state (u, p): u and each p component read and
  // written once, f (and w) read once. The algorithm is a parameter so that a
  // method with more state would state its own figure here.
  const std::size_t dualBytes = halfPrecisionDual ? 2 : realSize;
  return (3 + (weighted ? 1 : 0)) * realSize + 2 * dimension * dualBytes;
}

} // namespace gpur
