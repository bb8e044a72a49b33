// SPDX-License-Identifier: Apache-2.0
// Explicit instantiation of the common image types (see the header's extern templates).
#include "itkPSCRPoissonSolver.h"

itkGPURestorationImageTypesMacro(template class, itk::PSCRPoissonSolver);
