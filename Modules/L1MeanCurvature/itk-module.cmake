# SPDX-License-Identifier: Apache-2.0
# L1-mean-curvature denoising by the augmented Lagrangian method, CPU and OpenCL.
# DEPENDS: checked by ItkModuleDepends.
itk_module(ITKGPURestorationL1MeanCurvature
  DEPENDS
    ITKGPURestoration
    ITKGPURestorationPSCR
    ITKGPURestorationTotalVariation
    ITKCommon
  TEST_DEPENDS
    ITKGPURestorationEvaluation
    ITKGoogleTest
  DESCRIPTION
    "L1-mean-curvature denoising (Zhu and Chan's model) by the augmented Lagrangian method of Myllykoski, Glowinski, Karkkainen and Rossi: linear finite elements on the pixel grid's triangulation, per-triangle Newton with a bisection fallback, conjugate gradients, shrinkage and a PSCR fast direct solver, 2D, CPU and OpenCL."
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED
)
