// Explicit instantiation of the common image types (see the header's extern templates).
#define itkStatisticalTVImageFilter_cxx
#include "itkStatisticalTVImageFilter.h"

namespace itk
{

template class StatisticalTVImageFilter<Image<float, 2>>;
template class StatisticalTVImageFilter<Image<float, 3>>;
template class StatisticalTVImageFilter<Image<double, 2>>;
template class StatisticalTVImageFilter<Image<double, 3>>;

} // namespace itk
