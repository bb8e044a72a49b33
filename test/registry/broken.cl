// SPDX-License-Identifier: Apache-2.0
// The embedded twin of test/kernels/broken.cl, under the same name: this one
// builds. The core test's registry case embeds it as a module file, then points
// the override folder at test/kernels so that the broken file replaces it.
__kernel void fine(__global float * x)
{
  x[0] = 1;
}
