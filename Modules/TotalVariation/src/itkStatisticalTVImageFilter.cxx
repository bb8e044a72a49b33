// SPDX-License-Identifier: Apache-2.0
// Explicit instantiation of the common image types (see the header's extern templates).
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

} // namespace itk

itkGPURestorationImageTypesMacro(template class, itk::StatisticalTVImageFilter);
