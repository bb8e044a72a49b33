// SPDX-License-Identifier: Apache-2.0
// Deliberately broken override of tv_rof.cl: with ITKGPUR_KERNEL_DIR pointing
// here the filter must throw an itk::ExceptionObject holding the build log.
__kernel void tv_dual(__global float * v)
{
  v[0] = broken_identifier_7;
}
