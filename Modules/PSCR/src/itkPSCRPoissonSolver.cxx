// Explicit instantiation of the common image types (see the header's extern templates).
#include "itkPSCRPoissonSolver.h"

itkGPURestorationImageTypesMacro(template class, itk::PSCRPoissonSolver);
