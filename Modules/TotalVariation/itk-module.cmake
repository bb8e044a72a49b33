# Total-variation (ROF) denoising with CPU and OpenCL backends.
itk_module(ITKGPURestorationTotalVariation
  DEPENDS
    ITKGPURestoration
    ITKCommon
  COMPILE_DEPENDS
    ITKImageFilterBase
  TEST_DEPENDS
    ITKTestKernel
    ITKIOMeta
    ITKGoogleTest
  DESCRIPTION
    "Total-variation (ROF) denoising by primal-dual methods (Chambolle-Pock, accelerated, PDU), 2D and 3D, CPU and OpenCL."
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED
)
