// Explicit instantiation of the common image types (see the header's extern templates).
#define itkTotalVariationDenoisingImageFilter_cxx
#include "itkTotalVariationDenoisingImageFilter.h"

namespace itk
{

template class TotalVariationDenoisingImageFilter<Image<float, 2>>;
template class TotalVariationDenoisingImageFilter<Image<float, 3>>;
template class TotalVariationDenoisingImageFilter<Image<double, 2>>;
template class TotalVariationDenoisingImageFilter<Image<double, 3>>;

} // namespace itk
