// SPDX-License-Identifier: Apache-2.0
// Test kernels of gpurL1MCTriangleTest: Sub #1 of l1mc_triangle.cl on a list
// of independent problems, split as the engine splits it on a GPU
// [Myllykoski2015b]: a Newton kernel over every problem that appends the
// failures to a compacted list (atomic counter), then a fallback kernel with
// a fixed launch size that reads the list's length from device memory.
// Requires gpur_common.cl, l1mc_newton.cl and l1mc_triangle.cl.

// problem: 8 values per draw (b1x, b1y, b2x, b2y, previous x, y, r1, r2);
// p: 2 per draw; accepted: 1 when Newton was accepted.
__kernel void l1mc_test_newton(__global const REAL * problem, __global REAL * p, __global int * accepted,
                               __global int * count, __global int * list, int draws, REAL tolerance,
                               int iterations)
{
  const int i = get_global_id(0);
  if (i >= draws)
    return;
  __global const REAL * q = problem + 8 * i;
  const L1MCNewton n = l1mc_newton_step(l1mc_vec(q[0], q[1]), l1mc_vec(q[2], q[3]), l1mc_vec(q[4], q[5]), q[6], q[7],
                                        tolerance, iterations);
  p[2 * i] = n.p.x;
  p[2 * i + 1] = n.p.y;
  accepted[i] = n.accepted;
  if (!n.accepted)
    list[atomic_inc(count)] = i;
}

// Over the list (grid-stride loop): Algorithm 2 and the choice (4.1); p holds
// Newton's last iterate on entry.
__kernel void l1mc_test_fallback(__global const REAL * problem, __global REAL * p, __global const int * count,
                                 __global const int * list, int eta, REAL coarse, REAL fine)
{
  const int total = *count;
  for (int k = get_global_id(0); k < total; k += get_global_size(0))
  {
    const int i = list[k];
    __global const REAL * q = problem + 8 * i;
    const L1MCVec r = l1mc_fallback(l1mc_vec(q[0], q[1]), l1mc_vec(q[2], q[3]), l1mc_vec(p[2 * i], p[2 * i + 1]),
                                    l1mc_vec(q[4], q[5]), q[6], q[7], eta, coarse, fine);
    p[2 * i] = r.x;
    p[2 * i + 1] = r.y;
  }
}
