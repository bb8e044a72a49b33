// Explicit instantiation of the common image types (see the header's extern templates).
#define itkPSCRPoissonSolver_cxx
#include "itkPSCRPoissonSolver.h"

namespace itk
{

template class PSCRPoissonSolver<Image<float, 2>>;
template class PSCRPoissonSolver<Image<float, 3>>;
template class PSCRPoissonSolver<Image<double, 2>>;
template class PSCRPoissonSolver<Image<double, 3>>;

} // namespace itk
