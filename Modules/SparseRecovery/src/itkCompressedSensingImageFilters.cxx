// SPDX-License-Identifier: Apache-2.0
// Explicit instantiation of the 2D float and double compressed-sensing filters (see the headers' extern templates).
#include "itkCirculantSensingImageFilter.h"
#include "itkCompressedSensingDeblurImageFilter.h"

itkCompressedSensingImageTypesMacro(template class, itk::CompressedSensingImageFilterBase);
itkCompressedSensingImageTypesMacro(template class, itk::CirculantSensingImageFilter);
itkCompressedSensingImageTypesMacro(template class, itk::CompressedSensingRecoveryImageFilter);
itkCompressedSensingImageTypesMacro(template class, itk::CompressedSensingDeblurImageFilter);
