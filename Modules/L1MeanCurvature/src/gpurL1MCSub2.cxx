// SPDX-License-Identifier: Apache-2.0
#include "gpurL1MCSub2.h"

#include "gpurSeparableProblems.h"

#include <string>

namespace gpur
{
namespace l1mc
{

PSCROptions
SubproblemSolverOptions(const ResolvedBackend & backend, const ExecutionOptions & execution)
{
  PSCROptions options;
  options.execution = execution;
  options.execution.backend = backend.backend;
  if (backend.backend == Backend::OpenCL)
    options.execution.device = std::to_string(backend.device.index);
  return options;
}

template<typename Real>
std::unique_ptr<PSCRSolver<Real>>
MakeSub2Solver(const Constants & constants, const ResolvedBackend & backend, const ExecutionOptions & execution)
{
  const Mesh & mesh = constants.mesh;
  SeparableOperator<double> op;
  op.axes.push_back(
    MakeSecondDifferenceAxis(mesh.nx - 2, mesh.hx, BoundaryCondition::Dirichlet, BoundaryCondition::Dirichlet));
  op.axes.push_back(
    MakeSecondDifferenceAxis(mesh.ny - 2, mesh.hy, BoundaryCondition::Dirichlet, BoundaryCondition::Dirichlet));
  op.shift = constants.r2 / constants.r3;
  return std::unique_ptr<PSCRSolver<Real>>(
    new PSCRSolver<Real>(CastOperator<Real>(op), SubproblemSolverOptions(backend, execution)));
}

template std::unique_ptr<PSCRSolver<float>>
MakeSub2Solver(const Constants &, const ResolvedBackend &, const ExecutionOptions &);
template std::unique_ptr<PSCRSolver<double>>
MakeSub2Solver(const Constants &, const ResolvedBackend &, const ExecutionOptions &);

} // namespace l1mc
} // namespace gpur
