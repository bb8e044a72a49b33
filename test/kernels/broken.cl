// SPDX-License-Identifier: Apache-2.0
// Deliberately broken kernel: the core test checks that building it raises
// gpur::BuildError carrying the compiler's log (which names the symbol below).
__kernel void broken(__global float * x)
{
  x[0] = undeclared_symbol_42;
}
