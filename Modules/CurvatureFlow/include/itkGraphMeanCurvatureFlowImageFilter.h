// SPDX-License-Identifier: Apache-2.0
#ifndef itkGraphMeanCurvatureFlowImageFilter_h
#define itkGraphMeanCurvatureFlowImageFilter_h

#include "itkGraphFlowImageFilterBase.h"

namespace itk
{

/**
 * \class GraphMeanCurvatureFlowImageFilter
 * \brief Mean-curvature flow of the graph z = u(x, y) of a 2D image [Oberhuber2011, Scheme 3.1], on OpenCL or the
 * CPU.
 *
 * The surface moves with its mean curvature: ∂t u = Q ∇·(∇u / Q),
 * Q = sqrt(ε² + |∇u|²) with ε = Regularization. As a smoothing it flattens
 * bumps and ripples at a rate set by their curvature and keeps steep edges
 * longer than linear diffusion, though less than total variation does.
 * Unlike ITK's CurvatureFlowImageFilter (the level-set flow of the isolines,
 * ∂t u = κ |∇u|, with a fixed explicit step) it moves the graph itself, with
 * adaptive steps to a final time in physical units and a bound on the error
 * of each step. float or double images; the settings, units and results are
 * those of GraphFlowImageFilterBase.
 *
 * \ingroup ITKGPURestorationCurvatureFlow
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class GraphMeanCurvatureFlowImageFilter : public GraphFlowImageFilterBase<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(GraphMeanCurvatureFlowImageFilter);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = GraphMeanCurvatureFlowImageFilter;
  using Superclass = GraphFlowImageFilterBase<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkNewMacro(Self);
  itkTypeMacro(GraphMeanCurvatureFlowImageFilter, GraphFlowImageFilterBase);

protected:
  GraphMeanCurvatureFlowImageFilter()
    : Superclass(gpur::GraphFlowType::MeanCurvature)
  {
  }
  ~GraphMeanCurvatureFlowImageFilter() override = default;
};

} // namespace itk

// The common types are compiled once into ITKGPURestorationCurvatureFlow.
itkGraphFlowImageTypesMacro(extern template class, itk::GraphMeanCurvatureFlowImageFilter);

#endif
