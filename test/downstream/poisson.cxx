// SPDX-License-Identifier: Apache-2.0
// Uses the installed package: solves -Lap u = f with itk::PSCRPoissonSolver on
// the CPU backend for a discrete eigenvector of the Dirichlet Laplacian, whose
// exact discrete solution is known, and succeeds only when it comes back to rounding.
#include "itkPSCRPoissonSolver.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <vector>

int
main()
{
  using ImageType = itk::Image<double, 2>;
  const unsigned n = 63;
  const double h = 1.0 / (n + 1), pi = std::acos(-1.0);
  // u(x, y) = sin(pi x) sin(pi y) at x = (i + 1) h: -Lap_h u = mu u with mu = 2 (4 / h^2) sin^2(pi h / 2).
  const double mu = 8.0 / (h * h) * std::pow(std::sin(0.5 * pi * h), 2);

  auto rhs = ImageType::New();
  ImageType::SizeType size;
  size.Fill(n);
  rhs->SetRegions(size);
  ImageType::SpacingType spacing;
  spacing.Fill(h);
  rhs->SetSpacing(spacing);
  rhs->Allocate();
  std::vector<double> exact(n * n);
  for (unsigned j = 0; j < n; ++j)
    for (unsigned i = 0; i < n; ++i)
    {
      exact[j * n + i] = std::sin(pi * (i + 1) * h) * std::sin(pi * (j + 1) * h);
      rhs->GetBufferPointer()[j * n + i] = mu * exact[j * n + i];
    }

  auto solver = itk::PSCRPoissonSolver<ImageType>::New();
  solver->SetInput(rhs);
  solver->SetBackend(itk::GPURestorationEnums::Backend::CPU);
  try
  {
    solver->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "poisson_downstream: " << e.GetDescription() << "\n";
    return EXIT_FAILURE;
  }
  double error = 0.0;
  for (std::size_t k = 0; k < exact.size(); ++k)
    error = std::max(error, std::abs(solver->GetOutput()->GetBufferPointer()[k] - exact[k]));
  std::cout << solver->GetBackendUsed() << ": max |u - u_exact| = " << error << "\n";
  return error <= 1e-10 ? EXIT_SUCCESS : EXIT_FAILURE;
}
