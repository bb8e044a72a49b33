// SPDX-License-Identifier: Apache-2.0
#ifndef itkGraphFlowImageFilterBase_h
#define itkGraphFlowImageFilterBase_h

#include "gpurGraphFlow.h"
#include "itkGPURestorationImageFilter.h"

#include <type_traits>

namespace itk
{

/**
 * \class GraphFlowImageFilterEnums
 * \brief The choices of the curvature-flow filters (twin of gpur::GraphFlowBoundary).
 * \ingroup ITKGPURestorationCurvatureFlow
 */
class GraphFlowImageFilterEnums
{
public:
  /** What happens at the image border (SetBoundaryCondition). */
  enum class BoundaryCondition : uint8_t
  {
    /** The border pixels keep their values (Willmore: and zero curvature there) [Oberhuber2011, eqs. (18), (23)]. */
    Dirichlet = static_cast<uint8_t>(gpur::GraphFlowBoundary::Dirichlet),
    /** Zero normal derivative: each border pixel copies its inner neighbour [Oberhuber2011, eqs. (19)-(20)]; the
       default, as an image has no prescribed border values. */
    Neumann = static_cast<uint8_t>(gpur::GraphFlowBoundary::Neumann)
  };
};

namespace GPURestoration
{
template<>
struct EngineEnum<GraphFlowImageFilterEnums::BoundaryCondition>
{
  using Type = gpur::GraphFlowBoundary;
};
} // namespace GPURestoration

/**
 * \class GraphFlowImageFilterBase
 * \brief What the curvature flows of graphs share as image filters: the settings, the engine call
 * (gpur::GraphFlow), the results and the checks. GraphMeanCurvatureFlowImageFilter and WillmoreFlowImageFilter
 * differ only in the flow they ask the engine for.
 *
 * The image u is the surface z = u(x, y) over the image plane in physical
 * units (the spacing is used; origin and direction only travel with the
 * output). The flow runs from time 0 to FinalTime by the method of lines of
 * [Oberhuber2011]: complementary finite volumes in space, Runge-Kutta-Merson
 * with automatic step control in time (Algorithm 4.1 there): a step is
 * accepted when its error estimate is below Tolerance times Regularization.
 * The output is the surface at FinalTime, computed in the output pixel type
 * (float or double).
 *
 * Units. FinalTime is in physical length squared (mean curvature) or to the
 * fourth (Willmore). Regularization is the unit of height against the
 * spacing: the filter flows the graph of u / Regularization and scales the
 * result back, so intensities much larger than Regularization per pixel
 * spacing make steep graphs, whose flow moves edges slowly (it tends to the
 * level-set flow of the isolines), and small ones make flat graphs, whose
 * flow is close to linear diffusion (the heat equation for mean curvature).
 * Scaling the image, the spacing and the tolerance by s and the time by s^2
 * (mean curvature) scales the output by s.
 *
 * The filter needs the whole image (the flow is global in time): every
 * request is widened to the largest possible region. Progress is the
 * simulated time reached over FinalTime, reported after each accepted step;
 * AbortGenerateData is honoured between steps (no partial output). Backends
 * (SetBackend, SetDevice, GetBackendUsed), errors and progress are those of
 * the base class itk::GPURestorationImageFilter. The image must be 2D, at
 * least 3 x 3 pixels, with finite values.
 *
 * \ingroup ITKGPURestorationCurvatureFlow
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class GraphFlowImageFilterBase : public GPURestorationImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(GraphFlowImageFilterBase);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = GraphFlowImageFilterBase;
  using Superclass = GPURestorationImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkTypeMacro(GraphFlowImageFilterBase, GPURestorationImageFilter);

  /** The image types: 2D; the output pixels (float or double) are the arithmetic of the flow. */
  /** @ITKStartGrouping */
  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputImageType = TInputImage;
  using InputPixelType = typename TInputImage::PixelType;
  using OutputImageType = TOutputImage;
  using OutputPixelType = typename TOutputImage::PixelType;
  /** @ITKEndGrouping */
  /** The choices of SetBoundaryCondition. */
  using BoundaryConditionEnum = GraphFlowImageFilterEnums::BoundaryCondition;

  static_assert(ImageDimension == 2, "the curvature flows of graphs filter 2D images (graphs z = u(x, y))");
  static_assert(static_cast<unsigned>(TOutputImage::ImageDimension) == ImageDimension,
                "the output has the input's dimension");
  static_assert(std::is_same<OutputPixelType, float>::value || std::is_same<OutputPixelType, double>::value,
                "the output pixel type must be float or double");
  static_assert(std::is_arithmetic<InputPixelType>::value, "the input pixels must be scalars");

  /**
   * The time T the flow runs to, > 0 (default 1): physical length squared for mean curvature, to the fourth for
   * Willmore; T = 1 at unit spacing smooths about one pixel.
   */
  /** @ITKStartGrouping */
  itkSetMacro(FinalTime, double);
  itkGetConstMacro(FinalTime, double);
  /** @ITKEndGrouping */
  /** ε of the step control [Oberhuber2011, Algorithm 4.1], > 0 (default 1e-5), relative to Regularization. */
  /** @ITKStartGrouping */
  itkSetMacro(Tolerance, double);
  itkGetConstMacro(Tolerance, double);
  /** @ITKEndGrouping */
  /** ε of Q = sqrt(ε² + |∇u|²), > 0 (default 1): the unit of height in intensity units (see the class). */
  /** @ITKStartGrouping */
  itkSetMacro(Regularization, double);
  itkGetConstMacro(Regularization, double);
  /** @ITKEndGrouping */
  /** Neumann (default) or Dirichlet. */
  /** @ITKStartGrouping */
  itkSetEnumMacro(BoundaryCondition, BoundaryConditionEnum);
  itkGetEnumMacro(BoundaryCondition, BoundaryConditionEnum);
  /** @ITKEndGrouping */
  /** τ of the first step, >= 0; 0 (default): h²/4 (Willmore h⁴/16) with h the smaller spacing. */
  /** @ITKStartGrouping */
  itkSetMacro(InitialTimeStep, double);
  itkGetConstMacro(InitialTimeStep, double);
  /** @ITKEndGrouping */
  /** Accepted steps at most, >= 1 (default 10000000); an update that needs more fails. */
  /** @ITKStartGrouping */
  itkSetMacro(MaximumNumberOfSteps, unsigned int);
  itkGetConstMacro(MaximumNumberOfSteps, unsigned int);
  /** @ITKEndGrouping */

  /** Accepted and rejected steps of the last update (a rejected step was retried with a shorter one). */
  /** @ITKStartGrouping */
  itkGetConstMacro(NumberOfAcceptedSteps, unsigned int);
  itkGetConstMacro(NumberOfRejectedSteps, unsigned int);
  /** @ITKEndGrouping */
  /** The simulated time the last update reached (FinalTime after a successful one). */
  itkGetConstMacro(TimeReached, double);
  /** The step control's report of the last update: also the error estimate of the last step and the next step proposed.
   */
  const gpur::MersonReport &
  GetReport() const
  {
    return m_Report;
  }

protected:
  /** A filter of the flow `flow`. */
  explicit GraphFlowImageFilterBase(gpur::GraphFlowType flow);
  ~GraphFlowImageFilterBase() override = default;

  /** Runs the engine's flow of the input to FinalTime into the output. */
  void
  EngineGenerateData() override;
  /** Prints the settings and the results of the last update. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  /** The engine parameters from the filter's settings. */
  gpur::GraphFlowParameters
  MakeParameters() const;

private:
  gpur::GraphFlowType m_Flow;
  double m_FinalTime{ 1.0 };
  double m_Tolerance{ gpur::GraphFlowParameters().tolerance };
  double m_Regularization{ gpur::GraphFlowParameters().regularization };
  BoundaryConditionEnum m_BoundaryCondition{ BoundaryConditionEnum::Neumann };
  double m_InitialTimeStep{ gpur::GraphFlowParameters().initialStep };
  unsigned int m_MaximumNumberOfSteps{ gpur::GraphFlowParameters().maximumSteps };

  unsigned int m_NumberOfAcceptedSteps{ 0 };
  unsigned int m_NumberOfRejectedSteps{ 0 };
  double m_TimeReached{ 0.0 };
  gpur::MersonReport m_Report;
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkGraphFlowImageFilterBase.hxx"
#endif

/**
 * `declaration Filter<Image>;` for the image types the module's library compiles the curvature-flow filters for:
 * 2D float and double.
 */
#define itkGraphFlowImageTypesMacro(declaration, Filter)                                                               \
  declaration Filter<::itk::Image<float, 2>>;                                                                          \
  declaration Filter<::itk::Image<double, 2>>

// The common types are compiled once into ITKGPURestorationCurvatureFlow.
itkGraphFlowImageTypesMacro(extern template class, itk::GraphFlowImageFilterBase);

#endif
