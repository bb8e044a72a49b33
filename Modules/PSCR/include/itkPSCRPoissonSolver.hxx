// SPDX-License-Identifier: Apache-2.0
#ifndef itkPSCRPoissonSolver_hxx
#define itkPSCRPoissonSolver_hxx

#include "itkPSCRPoissonSolver.h"

#include "gpurStopwatch.h"
#include "itkGPURestorationCommon.h"

#include <cmath>
#include <string>
#include <vector>

namespace itk
{

template<typename TInputImage, typename TOutputImage>
PSCRPoissonSolver<TInputImage, TOutputImage>::PSCRPoissonSolver()
{
  m_BoundaryConditions.Fill(BoundaryConditionEnum::Dirichlet);
}

template<typename TInputImage, typename TOutputImage>
void
PSCRPoissonSolver<TInputImage, TOutputImage>::SetBoundaryCondition(unsigned int axis, BoundaryConditionEnum condition)
{
  if (axis >= ImageDimension)
  {
    itkExceptionMacro(<< "SetBoundaryCondition: axis " << axis << " does not exist; a " << ImageDimension
                      << "D image has axes 0 to " << ImageDimension - 1);
  }
  if (m_BoundaryConditions[axis] != condition)
  {
    m_BoundaryConditions[axis] = condition;
    this->Modified();
  }
}

template<typename TInputImage, typename TOutputImage>
void
PSCRPoissonSolver<TInputImage, TOutputImage>::SetBoundaryCondition(BoundaryConditionEnum condition)
{
  BoundaryConditionArrayType all;
  all.Fill(condition);
  this->SetBoundaryConditions(all);
}

template<typename TInputImage, typename TOutputImage>
auto
PSCRPoissonSolver<TInputImage, TOutputImage>::GetBoundaryCondition(unsigned int axis) const -> BoundaryConditionEnum
{
  if (axis >= ImageDimension)
  {
    itkExceptionMacro(<< "GetBoundaryCondition: axis " << axis << " does not exist; a " << ImageDimension
                      << "D image has axes 0 to " << ImageDimension - 1);
  }
  return m_BoundaryConditions[axis];
}

template<typename TInputImage, typename TOutputImage>
void
PSCRPoissonSolver<TInputImage, TOutputImage>::SetBoundaryConditions(const BoundaryConditionArrayType & conditions)
{
  if (m_BoundaryConditions != conditions)
  {
    m_BoundaryConditions = conditions;
    this->Modified();
  }
}

template<typename TInputImage, typename TOutputImage>
std::string
PSCRPoissonSolver<TInputImage, TOutputImage>::DescribeEngineError(const gpur::Error & error) const
{
  std::string message = error.what();
  // The engine's messages name gpur::PSCROptions; a user of this filter sets them here.
  static const char * const terms[][2] = {
    { "PSCROptions::residualTolerance", "ResidualTolerance" },
    { "raise residualTolerance", "raise ResidualTolerance (SetResidualTolerance)" },
    { "use PSCRPrecision::Automatic or Double, or double data",
      "use SetPrecision(PrecisionEnum::Automatic) or SetPrecision(PrecisionEnum::Double), or a double output image" },
    { "allow more refinement steps", "allow more refinement steps (SetMaximumNumberOfRefinementSteps)" }
  };
  for (const auto & term : terms)
  {
    const std::size_t at = message.find(term[0]);
    if (at != std::string::npos)
    {
      message.replace(at, std::string(term[0]).size(), term[1]);
    }
  }
  if (dynamic_cast<const gpur::IncompatibleRightHandSide *>(&error) != nullptr)
  {
    message = std::string("the problem is singular (") +
              (m_Shift == 0.0 ? "Neumann on every axis and Shift 0: a solution exists only when the sum of the input "
                                "is 0"
                              : "Shift is minus an eigenvalue of the Laplacian") +
              ") and the input does not satisfy that: " + message +
              ". Call ProjectRightHandSideOn() to subtract that component (for Neumann Poisson, the mean)";
  }
  return message;
}

template<typename TInputImage, typename TOutputImage>
bool
PSCRPoissonSolver<TInputImage, TOutputImage>::PlanKey::operator==(const PlanKey & other) const
{
  return grid.size == other.grid.size && grid.spacing == other.grid.spacing && conditions == other.conditions &&
         shift == other.shift && radix == other.radix && fastTransforms == other.fastTransforms &&
         project == other.project && residualTolerance == other.residualTolerance && precision == other.precision &&
         refinementSteps == other.refinementSteps && workUnits == other.workUnits && backend == other.backend &&
         device == other.device;
}

template<typename TInputImage, typename TOutputImage>
void
PSCRPoissonSolver<TInputImage, TOutputImage>::PreparePlan(const PlanKey & key)
{
  m_PlanReused = m_Plan != nullptr && m_PlanKey == key;
  if (m_PlanReused)
  {
    return;
  }
  m_Plan.reset(); // a failed build leaves no stale plan behind
  const gpur::SeparableOperator<double> op = gpur::MakePoissonOperator(key.grid, key.conditions, key.shift);
  gpur::PSCROptions options;
  options.radix = key.radix;
  options.fastTransforms = key.fastTransforms;
  // 1 accepts any right-hand side and projects it; 0 the engine's default (sqrt(epsilon)).
  options.compatibilityTolerance = key.project ? 1.0 : 0.0;
  options.residualTolerance = key.residualTolerance;
  options.precision = GPURestoration::ToEngine(key.precision);
  options.refinementSteps = key.refinementSteps;
  options.execution = this->MakeExecutionOptions(); // the key's backend, device and work units
  m_Plan = std::make_unique<gpur::PSCRSolver<RealType>>(gpur::CastOperator<RealType>(op), options);
  m_PlanKey = key;
  m_SetupSeconds = m_Plan->SetupSeconds();
  ++m_NumberOfPlanBuilds;
}

template<typename TInputImage, typename TOutputImage>
void
PSCRPoissonSolver<TInputImage, TOutputImage>::EngineGenerateData()
{
  const TInputImage * input = this->GetInput();
  TOutputImage * output = this->GetOutput();
  m_SetupSeconds = 0.0;
  m_SolveSeconds = 0.0;
  m_PlanReused = false;
  m_Singular = false;
  m_RelativeResidual = 0.0;
  m_ResidualTarget = 0.0;
  m_RoundingFloor = 0.0;
  m_NumberOfRefinementSteps = 0;
  m_ComputedInDouble = false;
  m_SolvePath.clear();

  const typename TInputImage::RegionType region = input->GetLargestPossibleRegion();
  if (input->GetBufferedRegion() != region)
  {
    itkExceptionMacro(<< "the input holds " << input->GetBufferedRegion() << " but the solver needs the whole image "
                      << region << "; the upstream filter did not provide its requested region");
  }
  const gpur::Grid grid = GPURestoration::MakeGrid(input);
  grid.Validate();
  if (!std::isfinite(m_Shift))
  {
    itkExceptionMacro(<< "Shift is " << m_Shift << "; it must be finite (0 Poisson, > 0 modified Helmholtz, < 0 "
                      << "Helmholtz)");
  }
  if (!std::isfinite(m_ResidualTolerance) || m_ResidualTolerance < 0.0)
  {
    itkExceptionMacro(<< "ResidualTolerance is " << m_ResidualTolerance
                      << "; it must be finite and >= 0 (0: automatic, 8x the rounding floor of the solution)");
  }
  if (m_MaximumNumberOfRefinementSteps < -1 || m_MaximumNumberOfRefinementSteps > 16)
  {
    itkExceptionMacro(<< "MaximumNumberOfRefinementSteps is " << m_MaximumNumberOfRefinementSteps
                      << "; it must be -1 (automatic: 8) or 0 to 16");
  }

  PlanKey key;
  key.grid = grid;
  for (const BoundaryConditionEnum condition : m_BoundaryConditions)
  {
    key.conditions.push_back(GPURestoration::ToEngine(condition));
  }
  key.shift = m_Shift;
  key.radix = m_Radix;
  key.fastTransforms = m_UseFastTransforms;
  key.project = m_ProjectRightHandSide;
  key.residualTolerance = m_ResidualTolerance;
  key.precision = m_Precision;
  key.refinementSteps = m_MaximumNumberOfRefinementSteps;
  key.workUnits = this->GetNumberOfWorkUnits();
  key.backend = this->GetBackend();
  key.device = this->GetDevice();

  this->PreparePlan(key);
  m_Singular = m_Plan->IsSingular();
  this->UpdateProgress(0.5f);
  this->CheckAbort();

  std::vector<RealType> converted;
  const RealType * f = GPURestoration::PixelsAs<RealType>(input, converted);
  // The output keeps the input's geometry (done by the superclass' GenerateOutputInformation).
  output->SetBufferedRegion(output->GetRequestedRegion());
  output->Allocate();
  const gpur::Stopwatch watch;
  const gpur::PSCRSolveReport report = m_Plan->Solve(f, output->GetBufferPointer());
  m_SolveSeconds = watch.Seconds();
  m_RelativeResidual = report.relativeResidual;
  m_ResidualTarget = report.residualTarget;
  m_RoundingFloor = report.roundingFloor;
  m_NumberOfRefinementSteps = report.refinementSteps;
  m_ComputedInDouble = report.computedInDouble;
  m_SolvePath = report.path;
  this->SetBackendUsed(m_Plan->BackendUsed());
}

template<typename TInputImage, typename TOutputImage>
void
PSCRPoissonSolver<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Shift: " << m_Shift << std::endl;
  os << indent << "BoundaryConditions:";
  for (unsigned d = 0; d < ImageDimension; ++d)
  {
    os << (d ? ", " : " ") << m_BoundaryConditions[d];
  }
  os << std::endl;
  os << indent << "Radix: " << m_Radix << std::endl;
  os << indent << "UseFastTransforms: " << (m_UseFastTransforms ? "On" : "Off") << std::endl;
  os << indent << "ProjectRightHandSide: " << (m_ProjectRightHandSide ? "On" : "Off") << std::endl;
  os << indent << "ResidualTolerance: " << m_ResidualTolerance
     << (m_ResidualTolerance == 0.0 ? " (automatic: 8x the rounding floor)" : "") << std::endl;
  os << indent << "Precision: " << m_Precision << std::endl;
  os << indent << "MaximumNumberOfRefinementSteps: " << m_MaximumNumberOfRefinementSteps
     << (m_MaximumNumberOfRefinementSteps < 0 ? " (automatic: 8)" : "") << std::endl;
  os << indent << "Singular: " << (m_Singular ? "yes" : "no") << std::endl;
  os << indent << "PlanReused: " << (m_PlanReused ? "yes" : "no") << std::endl;
  os << indent << "NumberOfPlanBuilds: " << m_NumberOfPlanBuilds << std::endl;
  os << indent << "SetupSeconds: " << m_SetupSeconds << std::endl;
  os << indent << "SolveSeconds: " << m_SolveSeconds << std::endl;
  os << indent << "RelativeResidual: " << m_RelativeResidual << std::endl;
  os << indent << "ResidualTarget: " << m_ResidualTarget << std::endl;
  os << indent << "RoundingFloor: " << m_RoundingFloor << std::endl;
  os << indent << "NumberOfRefinementSteps: " << m_NumberOfRefinementSteps << std::endl;
  os << indent << "ComputedInDouble: " << (m_ComputedInDouble ? "yes" : "no") << std::endl;
  os << indent << "SolvePath: " << m_SolvePath << std::endl;
}

} // namespace itk

#endif
