# SPDX-License-Identifier: Apache-2.0
# PI-PD level-line (isoline) denoising, CPU and OpenCL.
# DEPENDS: checked by ItkModuleDepends.
itk_module(ITKGPURestorationLevelLines
  DEPENDS
    ITKGPURestoration
    ITKGPURestorationTotalVariation
    ITKCommon
  TEST_DEPENDS
    ITKGPURestorationEvaluation
    ITKGoogleTest
  DESCRIPTION
    "Level-line (isoline) denoising by the PI-PD filter of Perrot, Domas, Couturier and Bertaux: per pixel, the mean along a poly-line of precomputed straight segments in 32 directions lengthened while a generalised likelihood-ratio test accepts it, with a hybrid low-slope / edge classifier, optional 3-pixel-thick lines, 2D images and stacks of frames, CPU and OpenCL."
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED
)
