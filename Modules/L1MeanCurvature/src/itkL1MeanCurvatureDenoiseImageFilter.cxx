// SPDX-License-Identifier: Apache-2.0
// Explicit instantiation of the 2D float and double filters (see the header's extern templates).
#include "itkL1MeanCurvatureDenoiseImageFilter.h"

itkL1MeanCurvatureImageTypesMacro(template class, itk::L1MeanCurvatureDenoiseImageFilter);
