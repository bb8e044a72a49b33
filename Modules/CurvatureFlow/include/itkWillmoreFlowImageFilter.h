// SPDX-License-Identifier: Apache-2.0
#ifndef itkWillmoreFlowImageFilter_h
#define itkWillmoreFlowImageFilter_h

#include "itkGraphFlowImageFilterBase.h"

namespace itk
{

/**
 * \class WillmoreFlowImageFilter
 * \brief Willmore flow of the graph z = u(x, y) of a 2D image [Oberhuber2011, Scheme 3.2], on OpenCL or the CPU.
 *
 * The surface moves down the gradient of its Willmore energy ∫ H² dS (H the
 * mean curvature): a fourth-order flow that fairs a height map towards a
 * surface of least bending, keeping slopes where mean-curvature flow would
 * flatten them (a spherical cap is stationary). FinalTime is in physical
 * length to the fourth, so T = 1 at unit spacing smooths about one pixel.
 *
 * Double images only: in float the rounding of the fourth-order scheme
 * swamps the flow ([Oberhuber2011, §5] found float runs unusable), so a
 * float output is refused by an itk::ExceptionObject at the update. The
 * settings, units and results are those of GraphFlowImageFilterBase.
 *
 * \ingroup ITKGPURestorationCurvatureFlow
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class WillmoreFlowImageFilter : public GraphFlowImageFilterBase<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(WillmoreFlowImageFilter);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = WillmoreFlowImageFilter;
  using Superclass = GraphFlowImageFilterBase<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkNewMacro(Self);
  itkTypeMacro(WillmoreFlowImageFilter, GraphFlowImageFilterBase);

protected:
  WillmoreFlowImageFilter()
    : Superclass(gpur::GraphFlowType::Willmore)
  {
  }
  ~WillmoreFlowImageFilter() override = default;

  /** Refuses an output pixel type other than double, before anything is allocated. */
  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
    if (!std::is_same<typename Superclass::OutputPixelType, double>::value)
    {
      itkExceptionMacro(<< "Willmore flow needs double precision: in float the rounding of its fourth-order scheme "
                           "swamps the flow; use a double output image, e.g. WillmoreFlowImageFilter<itk::Image<"
                           "double, 2>> (cast a float image with itk::CastImageFilter)");
    }
  }
};

} // namespace itk

// The common types are compiled once into ITKGPURestorationCurvatureFlow (float: to refuse it with the reason).
itkGraphFlowImageTypesMacro(extern template class, itk::WillmoreFlowImageFilter);

#endif
