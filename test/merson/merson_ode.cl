// SPDX-License-Identifier: Apache-2.0
// The test system of gpurRungeKuttaMersonTest on the device (its CPU twin is
// OdeSystem there): u_i' = (λ_i + cos t) u_i with λ_i = -(i mod 7)/2, whose
// solution is u_i(0) exp(λ_i t + sin t); with `pin`, unknown 0 is held at
// its exact value exp(sin t) (a Dirichlet-like constraint).

__kernel void ode_rhs(__global const REAL * u, __global REAL * f, REAL t, long n)
{
  const long i = get_global_id(0);
  if (i < n)
    f[i] = (-(REAL)(i % 7) / 2 + cos(t)) * u[i];
}

__kernel void ode_pin(__global REAL * u, REAL t)
{
  if (get_global_id(0) == 0)
    u[0] = exp(sin(t));
}
