# SPDX-License-Identifier: Apache-2.0
# A wrong itk-module.cmake for the test ItkModuleDependsDetectsMismatch: TotalVariation's
# with ITKCommon left out of DEPENDS and ITKIOMeta, which nothing of the module links, put in.
itk_module(ITKGPURestorationTotalVariation
  DEPENDS
    ITKGPURestoration
    ITKIOMeta
  TEST_DEPENDS
    ITKGoogleTest
  DESCRIPTION
    "Total-variation denoising (a deliberately wrong copy)."
)
