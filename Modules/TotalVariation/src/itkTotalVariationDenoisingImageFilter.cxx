// SPDX-License-Identifier: Apache-2.0
// Explicit instantiation of the common image types (see the header's extern templates).
#include "itkTotalVariationDenoisingImageFilter.h"

itkGPURestorationImageTypesMacro(template class, itk::TotalVariationDenoisingImageFilter);
