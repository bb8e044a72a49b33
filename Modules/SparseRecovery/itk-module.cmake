# SPDX-License-Identifier: Apache-2.0
# Sparse recovery from partial circulant measurements, CPU and OpenCL.
# DEPENDS: checked by ItkModuleDepends.
itk_module(ITKGPURestorationSparseRecovery
  DEPENDS
    ITKGPURestoration
    ITKCommon
  TEST_DEPENDS
    ITKGoogleTest
  DESCRIPTION
    "Sparse recovery from partial circulant (compressed) measurements and deblurring in the compressed domain, after Fiandrotti, Fosson, Ravazzi and Magli: the LASSO by CPISTA, FISTA and CPADMM with every product by the circulant sensing matrix, its transpose and the shifted inverse as FFTs (memory linear in the signal size), 1D signals and 2D images, CPU (FFTW) and OpenCL (VkFFT)."
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED
)
