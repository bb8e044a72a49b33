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
  return layout;
}

std::size_t
TVHalo(unsigned iterations)
{
  FieldLayout layout;
  layout.stencilRadius = kTVStencilRadius;
  return layout.Halo(iterations);
}

} // namespace gpur
