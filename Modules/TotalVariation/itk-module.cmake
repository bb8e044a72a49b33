# SPDX-License-Identifier: Apache-2.0
# Total-variation (ROF) denoising, statistical TV and TV gradient descent with CPU and
# OpenCL backends, and the noise estimation they use. DEPENDS: checked by ItkModuleDepends.
itk_module(ITKGPURestorationTotalVariation
  DEPENDS
    ITKGPURestoration
    ITKCommon
  TEST_DEPENDS
    ITKGPURestorationEvaluation
    ITKGoogleTest
    ITKTestKernel
    ITKIOMeta
    ITKIONRRD
  DESCRIPTION
    "Total-variation (ROF) denoising by primal-dual methods (Chambolle-Pock, accelerated, PDU), statistical TV with noise estimated from the image, and TV gradient descent, 2D and 3D, CPU and OpenCL."
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED
)
