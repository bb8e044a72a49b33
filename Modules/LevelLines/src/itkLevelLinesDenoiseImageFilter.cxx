// SPDX-License-Identifier: Apache-2.0
// Explicit instantiation of the 2D and 3D filters for 8-bit, 16-bit and float input (see the header's extern
// templates).
#include "itkLevelLinesDenoiseImageFilter.h"

itkLevelLinesImageTypesMacro(template class, itk::LevelLinesDenoiseImageFilter);
