// Explicit instantiation of the common image types (see the header's extern templates).
#define itkStatisticalTVImageFilter_cxx
#include "itkStatisticalTVImageFilter.h"

namespace itk
{

std::ostream &
operator<<(std::ostream & out, StatisticalTVImageFilterEnums::Method value)
{
  switch (value)
  {
    case StatisticalTVImageFilterEnums::Method::PrimalDual:
      return out << "PrimalDual";
    case StatisticalTVImageFilterEnums::Method::GradientDescent:
      return out << "GradientDescent";
    case StatisticalTVImageFilterEnums::Method::AdaptiveWeightedGradientDescent:
      return out << "AdaptiveWeightedGradientDescent";
  }
  return out << "Method(" << static_cast<int>(value) << ")";
}

template class StatisticalTVImageFilter<Image<float, 2>>;
template class StatisticalTVImageFilter<Image<float, 3>>;
template class StatisticalTVImageFilter<Image<double, 2>>;
template class StatisticalTVImageFilter<Image<double, 3>>;

} // namespace itk
