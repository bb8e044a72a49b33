#ifndef itkTotalVariationDenoisingImageFilter_h
#define itkTotalVariationDenoisingImageFilter_h

#include "gpurTVDenoiser.h"
#include "itkImageToImageFilter.h"

#include <string>

namespace itk
{

/**
 * \class TotalVariationDenoisingImageFilter
 * \brief Total-variation (ROF) denoising of 2D and 3D images, on OpenCL or the CPU.
 *
 * Solves  min_u (lambda/2) ||u - f||^2 + TV(u)  with isotropic TV. The gradient
 * uses forward differences divided by the physical spacing (Neumann boundary),
 * so anisotropic voxels are handled; the divergence is its exact negative adjoint.
 * Larger Lambda keeps more of the input. Methods (SetAlgorithm):
 * accelerated Chambolle-Pock (default), Chambolle-Pock, and the thesis' PDU.
 * Iterations stop when the relative primal-dual gap (P - D)/P falls below
 * GapTolerance, or after MaximumNumberOfIterations.
 *
 * Backends (SetBackend): CPU is the multithreaded reference; OpenCL runs on the
 * device selected by SetDevice (see gpur::SelectDevices; "" = $ITKGPUR_DEVICE,
 * else the first GPU, else the first device); Auto uses OpenCL when a device is
 * present, falling back to the CPU for double images on devices without fp64.
 * GetBackendUsed() tells which one ran.
 *
 * The output keeps the input's origin, spacing and direction. Progress is
 * reported every iteration and AbortGenerateData is honoured between
 * iterations; on abort or error the output holds no partial result.
 *
 * The algorithm lives in the ITK-free engine gpur::DenoiseTV; this class is a
 * thin adapter over it.
 *
 * \ingroup ITKGPURestorationTotalVariation
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class TotalVariationDenoisingImageFilter : public ImageToImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(TotalVariationDenoisingImageFilter);

  using Self = TotalVariationDenoisingImageFilter;
  using Superclass = ImageToImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkTypeMacro(TotalVariationDenoisingImageFilter, ImageToImageFilter);

  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using OutputPixelType = typename TOutputImage::PixelType;
  /** The engine computes in the output pixel type: float or double. */
  using RealType = OutputPixelType;
  using BackendType = gpur::Backend;
  using AlgorithmType = gpur::TVAlgorithm;

  static_assert(ImageDimension == 2 || ImageDimension == 3, "TotalVariationDenoisingImageFilter supports 2D and 3D");
  static_assert(std::is_same<RealType, float>::value || std::is_same<RealType, double>::value,
                "the output pixel type must be float or double");

  /** Fidelity weight lambda > 0 (units 1/(intensity * length)). Default 8. */
  itkSetMacro(Lambda, double);
  itkGetConstMacro(Lambda, double);
  /** Default AcceleratedChambollePock. */
  itkSetEnumMacro(Algorithm, AlgorithmType);
  itkGetEnumMacro(Algorithm, AlgorithmType);
  /** Default 500. */
  itkSetMacro(MaximumNumberOfIterations, unsigned int);
  itkGetConstMacro(MaximumNumberOfIterations, unsigned int);
  /** Relative primal-dual gap at which to stop; 0 runs all iterations. Default 1e-4. */
  itkSetMacro(GapTolerance, double);
  itkGetConstMacro(GapTolerance, double);
  /** Iterations between gap evaluations. Default 10. */
  itkSetMacro(GapCheckInterval, unsigned int);
  itkGetConstMacro(GapCheckInterval, unsigned int);
  /** k0 of the PDU schedule; 0 is the thesis' literal schedule. Default 15. */
  itkSetMacro(PDUOffset, unsigned int);
  itkGetConstMacro(PDUOffset, unsigned int);
  /**
   * With several OpenCL devices (SetDevice("all"), or a list), a 3D volume is
   * cut into z-slabs, one per device, whose halos of ExchangeInterval + 1
   * slices are refreshed every ExchangeInterval iterations; the result equals a
   * single-device run. Default 8.
   */
  itkSetMacro(ExchangeInterval, unsigned int);
  itkGetConstMacro(ExchangeInterval, unsigned int);
  /** Auto (default), CPU or OpenCL. */
  itkSetEnumMacro(Backend, BackendType);
  itkGetEnumMacro(Backend, BackendType);
  /** OpenCL device selection string; "" = default device. */
  itkSetStringMacro(Device);
  itkGetStringMacro(Device);

  /** Results of the last update. */
  itkGetConstMacro(NumberOfIterations, unsigned int);
  itkGetConstMacro(RelativeGap, double);
  itkGetConstMacro(PrimalEnergy, double);
  itkGetConstMacro(DualEnergy, double);
  itkGetConstMacro(Converged, bool);
  itkGetConstMacro(ElapsedSeconds, double);
  /** "CPU", "OpenCL: <device name>" or "OpenCL: N devices (...)" of the last update; "" before. */
  itkGetStringMacro(BackendUsed);
  /** Full engine report of the last update (gap history included). */
  const gpur::TVReport &
  GetReport() const
  {
    return m_Report;
  }

protected:
  TotalVariationDenoisingImageFilter() = default;
  ~TotalVariationDenoisingImageFilter() override = default;

  /** TV couples all voxels: the whole input is needed and the whole output produced. */
  void
  GenerateInputRequestedRegion() override;
  void
  EnlargeOutputRequestedRegion(DataObject * output) override;
  void
  GenerateData() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  /** The engine parameters from the filter's settings. */
  gpur::TVParameters
  MakeParameters() const;
  /**
   * Runs the engine on the input pixels f into the output buffer u (the
   * subclasses' hook: RTK style, they change only this step). Throws the
   * engine's exceptions; GenerateData translates them.
   */
  virtual gpur::TVReport
  Solve(const RealType * f,
        RealType * u,
        const gpur::Grid & grid,
        const gpur::ExecutionOptions & execution,
        const gpur::IterationCallback & progress);

private:
  double m_Lambda{ 8.0 };
  AlgorithmType m_Algorithm{ AlgorithmType::AcceleratedChambollePock };
  unsigned int m_MaximumNumberOfIterations{ 500 };
  double m_GapTolerance{ 1e-4 };
  unsigned int m_GapCheckInterval{ 10 };
  unsigned int m_PDUOffset{ 15 };
  unsigned int m_ExchangeInterval{ 8 };
  BackendType m_Backend{ BackendType::Auto };
  std::string m_Device;

  unsigned int m_NumberOfIterations{ 0 };
  double m_RelativeGap{ 0.0 };
  double m_PrimalEnergy{ 0.0 };
  double m_DualEnergy{ 0.0 };
  bool m_Converged{ false };
  double m_ElapsedSeconds{ 0.0 };
  std::string m_BackendUsed;
  gpur::TVReport m_Report;
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkTotalVariationDenoisingImageFilter.hxx"
#endif

// The common types are compiled once into ITKGPURestorationTotalVariation.
#ifndef itkTotalVariationDenoisingImageFilter_cxx
namespace itk
{
extern template class TotalVariationDenoisingImageFilter<Image<float, 2>>;
extern template class TotalVariationDenoisingImageFilter<Image<float, 3>>;
extern template class TotalVariationDenoisingImageFilter<Image<double, 2>>;
extern template class TotalVariationDenoisingImageFilter<Image<double, 3>>;
} // namespace itk
#endif

#endif
