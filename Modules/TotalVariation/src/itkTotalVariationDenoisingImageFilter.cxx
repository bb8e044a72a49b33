// Explicit instantiation of the common image types (see the header's extern templates).
#include "itkTotalVariationDenoisingImageFilter.h"

itkGPURestorationImageTypesMacro(template class, itk::TotalVariationDenoisingImageFilter);
