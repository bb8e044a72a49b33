# SPDX-License-Identifier: Apache-2.0
# Fast direct solvers for separable block-tridiagonal systems (PSCR, BCR). DEPENDS: checked by ItkModuleDepends.
itk_module(ITKGPURestorationPSCR
  DEPENDS
    ITKGPURestoration
    ITKCommon
  TEST_DEPENDS
    ITKGoogleTest
  DESCRIPTION
    "PSCR (partial solution variant of cyclic reduction) fast direct solver for separable block-tridiagonal systems, 2D and 3D, real and complex: Poisson and Helmholtz; batched tridiagonal solvers (Thomas, CR, PCR, hybrid) and radix-2 BCR."
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED
)
