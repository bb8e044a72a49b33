# SPDX-License-Identifier: Apache-2.0
# TVDenoisePhantom: denoises a noisy 3D Shepp-Logan phantom and reports PSNR
# (see the program's header comment); fails when TV does not improve the PSNR.
add_executable(TVDenoisePhantom TVDenoisePhantom.cxx)
target_link_libraries(TVDenoisePhantom PRIVATE ITKGPURestorationTotalVariation GPUREvaluation GPURCommandLine ${ITK_LIBRARIES})
gpur_warnings(TVDenoisePhantom)
