// SPDX-License-Identifier: Apache-2.0
// OpenCL backend of the L1-mean-curvature engine (work in progress on this branch).
#include "gpurL1MCStepper.h"

namespace gpur
{
namespace l1mc
{

template<typename Real>
std::unique_ptr<Stepper<Real>>
MakeStepperOpenCL(const Real *, const Constants &, const ResolvedBackend &, const ExecutionOptions &)
{
  throw InvalidArgument("L1-mean-curvature: the OpenCL backend is not built yet; use Backend::CPU");
}

template std::unique_ptr<Stepper<float>>
MakeStepperOpenCL(const float *, const Constants &, const ResolvedBackend &, const ExecutionOptions &);
template std::unique_ptr<Stepper<double>>
MakeStepperOpenCL(const double *, const Constants &, const ResolvedBackend &, const ExecutionOptions &);

} // namespace l1mc
} // namespace gpur
