// SPDX-License-Identifier: Apache-2.0
// Deliberately broken override of pscr_solve.cl: with ITKGPUR_KERNEL_DIR
// pointing here, building the PSCR program must throw gpur::BuildError
// carrying the compiler's build log (gpurPSCROpenCLTest).
__kernel void pscr_gather(__global float * x)
{
  x[0] = broken_identifier_5;
}
