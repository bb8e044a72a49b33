// SPDX-License-Identifier: Apache-2.0
// CPU reference of one outer iteration of [Myllykoski2015a, Algorithm 1].
// Loops run over rows on the engine's parallel loop; every reduction is a
// ParallelSum over rows with a fixed chunking, so results do not depend on the
// thread count.
#include "gpurL1MCStepper.h"
#include "gpurL1MCSub2.h"
#include "gpurL1MCSub4.h"
#include "gpurL1MCTriangle.h"
#include "gpurL1MCTriangleBatch.h"
#include "gpurStopwatch.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpur
{
namespace l1mc
{
namespace
{

template<typename Real>
class StepperCPU : public Stepper<Real>
{
public:
  StepperCPU(const Real * f, const Constants & constants, const ExecutionOptions & execution)
    : m_C(constants)
    , m_Mesh(constants.mesh)
    , m_N(constants.mesh.Count())
    , m_For(ResolveParallelFor(execution.parallelFor))
    , m_Sub4(constants, CPUBackend(), execution)
    , m_Sub2(constants.sub2Solver == L1MCSub2Solver::Direct ? MakeSub2Solver<Real>(constants, CPUBackend(), execution)
                                                            : nullptr)
    , m_F(f, f + m_N)
    , m_U(m_N)
    , m_Psi(m_N)
    , m_L3(m_N)
    , m_V(m_N)
    , m_Rhs(m_N)
    , m_P1(4 * m_N)
    , m_P2(4 * m_N)
    , m_P3(4 * m_N)
    , m_L1(4 * m_N)
    , m_L2(4 * m_N)
    , m_R(4 * m_N)
    , m_D(constants.sub2Solver == L1MCSub2Solver::Direct ? 0 : 4 * m_N) // CG's alone
    , m_Ad(4 * m_N)
    , m_T(m_Sub2 ? m_Sub2->Count() : 0)
    , m_Newton(m_Mesh.ny, 0.0)
    , m_Ihx(Real(1.0 / m_Mesh.hx))
    , m_Ihy(Real(1.0 / m_Mesh.hy))
  {
  }

  Sums
  Initialize() override
  {
    std::fill(m_U.begin(), m_U.end(), Real(0));
    for (auto * v : { &m_P1, &m_P2, &m_P3, &m_L1, &m_L2 })
      std::fill(v->begin(), v->end(), Real(0));
    std::fill(m_Psi.begin(), m_Psi.end(), Real(0));
    std::fill(m_L3.begin(), m_L3.end(), Real(0));
    if (m_C.initialization == L1MCInitialization::Data)
    {
      // [Myllykoski2015a, eq. (4.2)]: u = f, q1 = grad f, q2 = q3 = q1 / sqrt(1 + |q1|^2), psi = div_h q3.
      m_U = m_F;
      Squares(m_U,
              [&](std::size_t v, const Real * g)
              {
                for (unsigned t = 0; t < 2; ++t)
                {
                  const Real gx = g[2 * t], gy = g[2 * t + 1];
                  const Real s = Real(1) / std::sqrt(Real(1) + gx * gx + gy * gy);
                  Set(m_P1, v, 2 * t, gx, gy);
                  Set(m_P2, v, 2 * t, gx * s, gy * s);
                  Set(m_P3, v, 2 * t, gx * s, gy * s);
                }
              });
      Divergence(m_P3, m_Psi);
    }
    return Measure();
  }

  Sums
  Iterate() override
  {
    const Stopwatch clock;
    double mark = 0.0;
    const auto lap = [&clock, &mark]
    {
      const double now = clock.Seconds(), seconds = now - mark;
      mark = now;
      return seconds;
    };
    const double newton = SubProblem1();
    m_Timings.sub1 += lap();
    unsigned cgIterations = 0;
    const double cgResidual = m_Sub2 ? SubProblem2Direct() : SubProblem2(cgIterations);
    m_Timings.sub2 += lap();
    SubProblem3();
    m_Timings.sub3 += lap();
    const double sub4Residual = SubProblem4();
    m_Timings.sub4 += lap();
    Multipliers();
    Sums sums = Measure();
    m_Timings.misc += lap();
    sums.newtonAccepted = newton;
    sums.cgIterations = cgIterations;
    sums.cgResidual = cgResidual;
    sums.sub4Residual = sub4Residual;
    return sums;
  }

  void
  Store(Real * u) const override
  {
    std::copy(m_U.begin(), m_U.end(), u);
  }

  L1MCTimings
  Timings() const override
  {
    return m_Timings;
  }

private:
  static ResolvedBackend
  CPUBackend()
  {
    ResolvedBackend cpu;
    cpu.backend = Backend::CPU;
    return cpu;
  }
  std::size_t
  Plane() const
  {
    return m_N;
  }
  void
  Set(std::vector<Real> & q, std::size_t v, unsigned component, Real x, Real y) const
  {
    q[component * m_N + v] = x;
    q[(component + 1) * m_N + v] = y;
  }
  /** Runs body(y) for rows y = 0..rows-1 in parallel. */
  template<typename Body>
  void
  Rows(std::size_t rows, const Body & body) const
  {
    RunParallel(m_For,
                rows,
                [&](std::size_t begin, std::size_t end)
                {
                  for (std::size_t y = begin; y < end; ++y)
                    body(y);
                });
  }
  /** Runs body(v, g) in parallel for every square v (its lower-left vertex), g the gradients of w on its two triangles.
   */
  template<typename Body>
  void
  Squares(const std::vector<Real> & w, const Body & body) const
  {
    Rows(m_Mesh.ny - 1,
         [&](std::size_t y)
         {
           for (std::size_t x = 0; x + 1 < m_Mesh.nx; ++x)
           {
             const std::size_t v = y * m_Mesh.nx + x;
             Real g[4];
             TriangleGradients(w.data(), m_Mesh.nx, v, m_Ihx, m_Ihy, g);
             body(v, g);
           }
         });
  }
  /** Sums body(y, acc) over rows in double (fixed chunking). */
  template<typename Body>
  std::vector<double>
  RowSums(std::size_t rows, unsigned width, const Body & body) const
  {
    return ParallelSum(m_For,
                       rows,
                       width,
                       [&](std::size_t begin, std::size_t end, double * acc)
                       {
                         for (std::size_t y = begin; y < end; ++y)
                           body(y, acc);
                       });
  }
  /** div_h q at the interior vertices into `out` (0 on the boundary): -(G^T M_Q q)_v / m_v = -TG / 2. */
  void
  Divergence(const std::vector<Real> & q, std::vector<Real> & out) const
  {
    Rows(m_Mesh.ny,
         [&](std::size_t y)
         {
           for (std::size_t x = 0; x < m_Mesh.nx; ++x)
           {
             out[y * m_Mesh.nx + x] = m_Mesh.Interior(x, y)
                                        ? Real(-0.5) * TransposedGradient(q.data(), m_N, m_Mesh, x, y, m_Ihx, m_Ihy)
                                        : Real(0);
           }
         });
  }

  /**
   * Sub #1 [Myllykoski2015a, eqs. (3.17)-(3.25), §4.1] per triangle:
   * b1 = r1 grad u + lambda1, b2 = r2 p3 - lambda2; p1 from the triangle
   * solver (kernels/l1mc_triangle.cl), a row of triangles at a time as one
   * vectorised batch (gpurL1MCTriangleBatch.h); p2 = p1 / sqrt(1 + |p1|^2).
   * Returns the triangles on which Newton's candidate was accepted.
   */
  double
  SubProblem1()
  {
    const Real r1 = Real(m_C.r1), r2 = Real(m_C.r2);
    L1MCTriangleSettings<Real> settings;
    settings.eta = m_C.eta;
    const std::size_t squares = m_Mesh.nx - 1;
    RunParallel(m_For,
                m_Mesh.ny - 1,
                [&](std::size_t begin, std::size_t end)
                {
                  // Lane 2 x + t is triangle t of square x of the row.
                  L1MCTriangleBatch<Real> batch;
                  batch.Resize(2 * squares);
                  for (std::size_t y = begin; y < end; ++y)
                  {
                    for (std::size_t x = 0; x < squares; ++x)
                    {
                      const std::size_t v = y * m_Mesh.nx + x;
                      Real g[4];
                      TriangleGradients(m_U.data(), m_Mesh.nx, v, m_Ihx, m_Ihy, g);
                      for (unsigned t = 0; t < 2; ++t)
                      {
                        const std::size_t ix = (2 * t) * m_N + v, iy = (2 * t + 1) * m_N + v, lane = 2 * x + t;
                        batch.b1x[lane] = r1 * g[2 * t] + m_L1[ix];
                        batch.b1y[lane] = r1 * g[2 * t + 1] + m_L1[iy];
                        batch.b2x[lane] = r2 * m_P3[ix] - m_L2[ix];
                        batch.b2y[lane] = r2 * m_P3[iy] - m_L2[iy];
                        batch.px[lane] = m_P1[ix];
                        batch.py[lane] = m_P1[iy];
                      }
                    }
                    m_Newton[y] = double(batch.Solve(r1, r2, settings));
                    for (std::size_t x = 0; x < squares; ++x)
                    {
                      const std::size_t v = y * m_Mesh.nx + x;
                      for (unsigned t = 0; t < 2; ++t)
                      {
                        const std::size_t ix = (2 * t) * m_N + v, iy = (2 * t + 1) * m_N + v, lane = 2 * x + t;
                        const Real px = batch.px[lane], py = batch.py[lane];
                        const Real s = Real(1) / std::sqrt(Real(1) + px * px + py * py);
                        m_P1[ix] = px;
                        m_P1[iy] = py;
                        m_P2[ix] = px * s;
                        m_P2[iy] = py * s;
                      }
                    }
                  }
                });
    double accepted = 0.0;
    for (std::size_t y = 0; y + 1 < m_Mesh.ny; ++y)
      accepted += m_Newton[y];
    return accepted;
  }

  /** out = r2 q - r3 grad0(div_h q) on the triangles (the operator of Sub #2); m_V holds div_h q. */
  void
  ApplySub2(const std::vector<Real> & q, std::vector<Real> & out)
  {
    Divergence(q, m_V);
    const Real r2 = Real(m_C.r2), r3 = Real(m_C.r3);
    Squares(m_V,
            [&](std::size_t v, const Real * g)
            {
              for (unsigned c = 0; c < 4; ++c)
                out[c * m_N + v] = r2 * q[c * m_N + v] - r3 * g[c];
            });
  }
  /** Sum over the triangle entries of a b (double). */
  double
  Dot(const std::vector<Real> & a, const std::vector<Real> & b) const
  {
    return RowSums(m_Mesh.ny - 1,
                   1,
                   [&](std::size_t y, double * acc)
                   {
                     for (unsigned c = 0; c < 4; ++c)
                       for (std::size_t x = 0; x + 1 < m_Mesh.nx; ++x)
                       {
                         const std::size_t i = c * m_N + y * m_Mesh.nx + x;
                         acc[0] += double(a[i]) * double(b[i]);
                       }
                   })[0];
  }

  /** Sub #2's right-hand side b = r2 p2 + lambda2 - grad0(r3 psi - lambda3) into m_R; returns ||b||^2. */
  double
  Sub2RightHandSide()
  {
    const Real r2 = Real(m_C.r2), r3 = Real(m_C.r3);
    for (std::size_t i = 0; i < m_N; ++i)
      m_V[i] = r3 * m_Psi[i] - m_L3[i]; // 0 on the boundary
    Squares(m_V,
            [&](std::size_t v, const Real * g)
            {
              for (unsigned c = 0; c < 4; ++c)
                m_R[c * m_N + v] = r2 * m_P2[c * m_N + v] + m_L2[c * m_N + v] - g[c];
            });
    return Dot(m_R, m_R);
  }

  /**
   * Sub #2 solved directly (gpurL1MCSub2.h): t from (r2 I + r3 L) t = div_h b
   * on the interior vertices, p3 = (b + r3 grad0 t) / r2; then the residual
   * ||b - A p3|| / ||b|| of the triangle system, which it returns.
   */
  double
  SubProblem2Direct()
  {
    const double bb = Sub2RightHandSide();
    const std::size_t nx = m_Mesh.nx, inner = nx - 2;
    const Real scale = Real(Sub2RhsScale(m_C)), r2 = Real(m_C.r2), r3 = Real(m_C.r3);
    Rows(m_Mesh.ny - 2,
         [&](std::size_t j)
         {
           for (std::size_t x = 1; x + 1 < nx; ++x)
             m_T[j * inner + x - 1] =
               scale * (Real(-0.5) * TransposedGradient(m_R.data(), m_N, m_Mesh, x, j + 1, m_Ihx, m_Ihy));
         });
    // Unchecked: the residual of the triangle system, measured below, covers this solve.
    m_Sub2->SolveUnchecked(m_T.data(), m_T.data());
    Rows(m_Mesh.ny,
         [&](std::size_t y)
         {
           for (std::size_t x = 0; x < nx; ++x)
             m_V[y * nx + x] = m_Mesh.Interior(x, y) ? m_T[(y - 1) * inner + x - 1] : Real(0);
         });
    Squares(m_V,
            [&](std::size_t v, const Real * g)
            {
              for (unsigned c = 0; c < 4; ++c)
                m_P3[c * m_N + v] = (m_R[c * m_N + v] + r3 * g[c]) / r2;
            });
    ApplySub2(m_P3, m_Ad);
    const double rr = RowSums(m_Mesh.ny - 1,
                              1,
                              [&](std::size_t y, double * acc)
                              {
                                for (unsigned c = 0; c < 4; ++c)
                                  for (std::size_t x = 0; x + 1 < nx; ++x)
                                  {
                                    const std::size_t i = c * m_N + y * nx + x;
                                    const double r = double(m_R[i]) - double(m_Ad[i]);
                                    acc[0] += r * r;
                                  }
                              })[0];
    return bb > 0.0 ? std::sqrt(rr / bb) : std::sqrt(rr);
  }

  /**
   * Sub #2 [Myllykoski2015a, eq. (3.26)]: (r2 I - r3 grad0 div_h) p3 =
   * r2 p2 + lambda2 - grad0(r3 psi - lambda3), SPD in the Euclidean product
   * (|T| is the same on every triangle); conjugate gradients without a
   * preconditioner, warm-started from p3 (the paper's choice: with r3 = h^2 r2
   * the operator is r2 (I + O(1)) and CG needs a few tens of steps at most).
   * Returns the final relative residual and sets the steps taken.
   */
  double
  SubProblem2(unsigned & iterations)
  {
    const double bb = Sub2RightHandSide();
    ApplySub2(m_P3, m_Ad);
    // r = b - A p3 and d = r (the unused entries of every triangle field stay 0).
    double rr = RowSums(m_Mesh.ny - 1,
                        1,
                        [&](std::size_t y, double * acc)
                        {
                          for (unsigned c = 0; c < 4; ++c)
                            for (std::size_t x = 0; x + 1 < m_Mesh.nx; ++x)
                            {
                              const std::size_t i = c * m_N + y * m_Mesh.nx + x;
                              m_R[i] -= m_Ad[i];
                              m_D[i] = m_R[i];
                              acc[0] += double(m_R[i]) * double(m_R[i]);
                            }
                        })[0];
    const double target = m_C.cgTolerance * m_C.cgTolerance * bb;
    iterations = 0;
    const unsigned budget = CGBudget(m_C, m_CGPrevious);
    while (rr > target && iterations < budget)
    {
      ApplySub2(m_D, m_Ad);
      const double dAd = Dot(m_D, m_Ad);
      if (!(dAd > 0.0))
        break;
      const Real alpha = Real(rr / dAd);
      const double rrNew = RowSums(m_Mesh.ny - 1,
                                   1,
                                   [&](std::size_t y, double * acc)
                                   {
                                     for (unsigned c = 0; c < 4; ++c)
                                       for (std::size_t x = 0; x + 1 < m_Mesh.nx; ++x)
                                       {
                                         const std::size_t i = c * m_N + y * m_Mesh.nx + x;
                                         m_P3[i] += alpha * m_D[i];
                                         m_R[i] -= alpha * m_Ad[i];
                                         acc[0] += double(m_R[i]) * double(m_R[i]);
                                       }
                                   })[0];
      const Real beta = Real(rrNew / rr);
      rr = rrNew;
      Rows(m_Mesh.ny - 1,
           [&](std::size_t y)
           {
             for (unsigned c = 0; c < 4; ++c)
               for (std::size_t x = 0; x + 1 < m_Mesh.nx; ++x)
               {
                 const std::size_t i = c * m_N + y * m_Mesh.nx + x;
                 m_D[i] = m_R[i] + beta * m_D[i];
               }
           });
      ++iterations;
    }
    m_CGPrevious = iterations;
    return bb > 0.0 ? std::sqrt(rr / bb) : std::sqrt(rr);
  }
  /** Sub #3 [Myllykoski2015a, eqs. (3.27)-(3.28)]: psi = sgn(X) max(0, |X| - eps) / r3, X = r3 div_h p3 + lambda3. */
  void
  SubProblem3()
  {
    Divergence(m_P3, m_V);
    const Real r3 = Real(m_C.r3), eps = Real(m_C.epsilon);
    for (std::size_t i = 0; i < m_N; ++i)
      m_Psi[i] = ShrinkPsi(r3 * m_V[i] + m_L3[i], eps, r3);
  }

  /** Sub #4 (gpurL1MCSub4.h): (K + c M_L) u = c M_L f + G^T M_Q (p1 - lambda1 / r1). Returns its residual. */
  double
  SubProblem4()
  {
    const Real c = Real(1.0 / m_C.r1), ir1 = Real(1.0 / m_C.r1), area = Real(m_Mesh.TriangleArea());
    // m_Ad = p1 - lambda1 / r1
    RunParallel(m_For,
                4 * m_N,
                [&](std::size_t begin, std::size_t end)
                {
                  for (std::size_t i = begin; i < end; ++i)
                    m_Ad[i] = m_P1[i] - ir1 * m_L1[i];
                });
    Rows(m_Mesh.ny,
         [&](std::size_t y)
         {
           for (std::size_t x = 0; x < m_Mesh.nx; ++x)
           {
             const std::size_t v = y * m_Mesh.nx + x;
             m_Rhs[v] = c * Real(m_Sub4.Mass(x, y)) * m_F[v] +
                        area * TransposedGradient(m_Ad.data(), m_N, m_Mesh, x, y, m_Ihx, m_Ihy);
           }
         });
    return m_Sub4.Solve(m_Rhs.data(), m_U.data(), m_For);
  }

  /** The multiplier updates, step 5 of [Myllykoski2015a, Algorithm 1]. */
  void
  Multipliers()
  {
    const Real r1 = Real(m_C.r1), r2 = Real(m_C.r2), r3 = Real(m_C.r3);
    Squares(m_U,
            [&](std::size_t v, const Real * g)
            {
              for (unsigned c = 0; c < 4; ++c)
              {
                const std::size_t i = c * m_N + v;
                m_L1[i] += r1 * (g[c] - m_P1[i]);
                m_L2[i] += r2 * (m_P2[i] - m_P3[i]);
              }
            });
    Divergence(m_P3, m_V);
    const std::size_t nx = m_Mesh.nx;
    Rows(m_Mesh.ny,
         [&](std::size_t y)
         {
           for (std::size_t i = y * nx; i < (y + 1) * nx; ++i)
             m_L3[i] += r3 * (m_V[i] - m_Psi[i]); // stays 0 on the boundary, where V and psi are 0
         });
  }

  /** The sums of the current state (see Sums). */
  Sums
  Measure() const
  {
    enum
    {
      PsiMass,
      Fidelity,
      PenaltyQ,
      PenaltyV,
      Curvature,
      GradMinusP1,
      Grad,
      P1,
      P2MinusP3,
      P2,
      P3,
      DivMinusPsi,
      Div,
      Psi,
      Width
    };
    const double r1 = m_C.r1, r2 = m_C.r2, r3 = m_C.r3, area = m_Mesh.TriangleArea();
    const std::size_t nx = m_Mesh.nx;
    const std::vector<double> s =
      RowSums(m_Mesh.ny,
              Width,
              [&](std::size_t y, double * sums)
              {
                // The row's sums in a local array the compiler can keep in registers (stores through `sums` might
                // alias the fields, so every update would go through memory).
                double acc[Width] = {};
                RowCurvature curvature;
                for (std::size_t x = 0; x < nx; ++x)
                {
                  const std::size_t v = y * nx + x;
                  const double m = m_Mesh.LumpedMass(x, y);
                  const double du = double(m_F[v]) - double(m_U[v]);
                  acc[Fidelity] += 0.5 * m * du * du;
                  if (m_Mesh.Interior(x, y))
                  {
                    const double psi = m_Psi[v];
                    const double div = -0.5 * double(TransposedGradient(m_P3.data(), m_N, m_Mesh, x, y, m_Ihx, m_Ihy));
                    const double d = div - psi;
                    acc[PsiMass] += m * std::abs(psi);
                    acc[PenaltyV] += m * (0.5 * r3 * d * d + double(m_L3[v]) * d);
                    acc[DivMinusPsi] += m * d * d;
                    acc[Div] += m * div * div;
                    acc[Psi] += m * psi * psi;
                    acc[Curvature] += m * std::abs(curvature.At(m_U.data(), m_Mesh, x, y));
                  }
                  if (x + 1 < nx && y + 1 < m_Mesh.ny)
                  {
                    Real g[4];
                    TriangleGradients(m_U.data(), nx, v, m_Ihx, m_Ihy, g);
                    for (unsigned c = 0; c < 4; ++c)
                    {
                      const std::size_t i = c * m_N + v;
                      const double a = double(g[c]) - double(m_P1[i]), b = double(m_P2[i]) - double(m_P3[i]);
                      acc[PenaltyQ] +=
                        area * (0.5 * r1 * a * a + double(m_L1[i]) * a + 0.5 * r2 * b * b + double(m_L2[i]) * b);
                      acc[GradMinusP1] += a * a;
                      acc[Grad] += double(g[c]) * double(g[c]);
                      acc[P1] += double(m_P1[i]) * double(m_P1[i]);
                      acc[P2MinusP3] += b * b;
                      acc[P2] += double(m_P2[i]) * double(m_P2[i]);
                      acc[P3] += double(m_P3[i]) * double(m_P3[i]);
                    }
                  }
                }
                for (unsigned c = 0; c < Width; ++c)
                  sums[c] += acc[c];
              });
    Sums sums;
    sums.psiMass = s[PsiMass];
    sums.fidelity = s[Fidelity];
    sums.penaltyQ = s[PenaltyQ];
    sums.penaltyV = s[PenaltyV];
    sums.curvatureMass = s[Curvature];
    sums.gradMinusP1 = s[GradMinusP1];
    sums.grad = s[Grad];
    sums.p1 = s[P1];
    sums.p2MinusP3 = s[P2MinusP3];
    sums.p2 = s[P2];
    sums.p3 = s[P3];
    sums.divMinusPsi = s[DivMinusPsi];
    sums.div = s[Div];
    sums.psi = s[Psi];
    return sums;
  }

  const Constants m_C;
  const Mesh m_Mesh;
  const std::size_t m_N;
  const ParallelForFunction m_For;
  Sub4<Real> m_Sub4;
  std::unique_ptr<PSCRSolver<Real>> m_Sub2; ///< the direct Sub #2 (null: CG)
  std::vector<Real> m_F, m_U, m_Psi, m_L3, m_V, m_Rhs;
  std::vector<Real> m_P1, m_P2, m_P3, m_L1, m_L2, m_R, m_D, m_Ad;
  std::vector<Real> m_T; ///< the direct Sub #2's interior vertex field
  std::vector<double> m_Newton;
  const Real m_Ihx, m_Ihy;
  L1MCTimings m_Timings;
  unsigned m_CGPrevious = 0; ///< CG steps of the previous outer iteration (CGBudget)
};

} // namespace

template<typename Real>
std::unique_ptr<Stepper<Real>>
MakeStepperCPU(const Real * f, const Constants & constants, const ExecutionOptions & execution)
{
  return std::unique_ptr<Stepper<Real>>(new StepperCPU<Real>(f, constants, execution));
}

template std::unique_ptr<Stepper<float>>
MakeStepperCPU(const float *, const Constants &, const ExecutionOptions &);
template std::unique_ptr<Stepper<double>>
MakeStepperCPU(const double *, const Constants &, const ExecutionOptions &);

} // namespace l1mc
} // namespace gpur
