# SPDX-License-Identifier: Apache-2.0
# Curvature flows of graphs (mean-curvature and Willmore flows), CPU and OpenCL.
# DEPENDS: checked by ItkModuleDepends.
itk_module(ITKGPURestorationCurvatureFlow
  DEPENDS
    ITKGPURestoration
    ITKCommon
  TEST_DEPENDS
    ITKGoogleTest
  DESCRIPTION
    "Curvature flows of graphs z = u(x, y) by the method of lines of Oberhuber, Suzuki and Zabka: complementary finite volumes in space, Runge-Kutta-Merson with automatic step control in time; mean-curvature and Willmore flows with Dirichlet or Neumann boundaries, CPU and OpenCL; the ITK filters GraphMeanCurvatureFlowImageFilter and WillmoreFlowImageFilter."
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED
)
