// SPDX-License-Identifier: Apache-2.0
// Explicit instantiation of the curvature-flow filters for 2D float and double images (see the headers' extern
// templates).
#include "itkGraphMeanCurvatureFlowImageFilter.h"
#include "itkWillmoreFlowImageFilter.h"

itkGraphFlowImageTypesMacro(template class, itk::GraphFlowImageFilterBase);
itkGraphFlowImageTypesMacro(template class, itk::GraphMeanCurvatureFlowImageFilter);
itkGraphFlowImageTypesMacro(template class, itk::WillmoreFlowImageFilter);
