// SPDX-License-Identifier: Apache-2.0
// Names and checks of the sparse-recovery parameters (gpurSparseRecovery.h).
#include "gpurSparseRecovery.h"
#include "gpurText.h"

#include <cmath>
#include <sstream>

namespace gpur
{

const char *
ToString(SparseSolver solver)
{
  switch (solver)
  {
    case SparseSolver::CPISTA:
      return "CPISTA";
    case SparseSolver::FISTA:
      return "FISTA";
    case SparseSolver::CPADMM:
      return "CPADMM";
  }
  return "unknown";
}

const char *
ToString(SparseThreshold threshold)
{
  return threshold == SparseThreshold::PaperLiteral ? "PaperLiteral" : "Proximal";
}

SparseSolver
ParseSparseSolver(const std::string & text)
{
  const std::string lower = ToLower(text);
  if (lower == "cpista" || lower == "ista")
    return SparseSolver::CPISTA;
  if (lower == "fista")
    return SparseSolver::FISTA;
  if (lower == "cpadmm" || lower == "admm")
    return SparseSolver::CPADMM;
  throw InvalidArgument("unknown sparse solver '" + text + "'; use cpista, fista or cpadmm");
}

SparseThreshold
ParseSparseThreshold(const std::string & text)
{
  const std::string lower = ToLower(text);
  if (lower == "proximal")
    return SparseThreshold::Proximal;
  if (lower == "paper" || lower == "paperliteral")
    return SparseThreshold::PaperLiteral;
  throw InvalidArgument("unknown sparse threshold '" + text + "'; use proximal or paper");
}

namespace
{

/** Throws InvalidArgument "sparse recovery: <name> is <value>; it must be <range>" unless `ok`. */
void
Require(bool ok, const char * name, double value, const char * range)
{
  if (!ok)
  {
    std::ostringstream message;
    message << "sparse recovery: " << name << " is " << value << "; it must be " << range;
    throw InvalidArgument(message.str());
  }
}

} // namespace

void
SparseRecoveryParameters::Validate() const
{
  if (solver != SparseSolver::CPISTA && solver != SparseSolver::FISTA && solver != SparseSolver::CPADMM)
    throw InvalidArgument("sparse recovery: unknown solver; use CPISTA, FISTA or CPADMM");
  if (threshold != SparseThreshold::Proximal && threshold != SparseThreshold::PaperLiteral)
    throw InvalidArgument("sparse recovery: unknown threshold; use Proximal or PaperLiteral");
  Require(std::isfinite(alpha) && alpha >= 0.0, "alpha", alpha, "finite and >= 0 (0: relativeAlpha * ||A^T y||_inf)");
  Require(std::isfinite(relativeAlpha) && relativeAlpha > 0.0 && relativeAlpha < 1.0,
          "relativeAlpha",
          relativeAlpha,
          "in (0, 1) (a fraction of ||A^T y||_inf, the smallest alpha whose solution is 0)");
  Require(std::isfinite(step) && step >= 0.0, "step", step, "finite and >= 0 (0: 1 / ||A||^2's bound)");
  Require(std::isfinite(rho) && rho >= 0.0, "rho", rho, "finite and >= 0 (0: 100 * alpha / alpha_max)");
  Require(std::isfinite(relativeSigma) && relativeSigma >= 0.0,
          "relativeSigma",
          relativeSigma,
          "finite and >= 0 (0: 10 * alpha / alpha_max)");
  Require(std::isfinite(dualStep) && dualStep > 0.0 && dualStep < 0.5 * (1.0 + std::sqrt(5.0)),
          "dualStep",
          dualStep,
          "in (0, (1 + sqrt 5) / 2) = (0, 1.618...)");
  Require(std::isfinite(tolerance) && tolerance > 0.0, "tolerance", tolerance, "finite and > 0");
  Require(std::isfinite(gapTolerance) && gapTolerance > 0.0, "gapTolerance", gapTolerance, "finite and > 0");
  Require(maximumIterations >= 1, "maximumIterations", maximumIterations, ">= 1");
  Require(checkInterval >= 1, "checkInterval", checkInterval, ">= 1");
}

} // namespace gpur
