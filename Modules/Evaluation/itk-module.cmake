# SPDX-License-Identifier: Apache-2.0
# Image-quality metrics, phantoms and CT simulation (ITK-free library GPUREvaluation).
itk_module(ITKGPURestorationEvaluation
  DEPENDS
    ITKGPURestoration
  TEST_DEPENDS
    ITKGoogleTest
  DESCRIPTION
    "Evaluation of restorations: PSNR, SSIM and ROI SNR, 2D/3D Shepp-Logan phantoms, and a CT simulator (parallel-beam FBP and cone-beam FDK scans with Poisson and electronic noise and the analytic noise variance of every voxel)."
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED
)
