// SPDX-License-Identifier: Apache-2.0
#ifndef itkTotalVariationDenoisingImageFilter_h
#define itkTotalVariationDenoisingImageFilter_h

#include "gpurTVDenoiser.h"
#include "itkGPURestorationImageFilter.h"

namespace itk
{

/**
 * \class TotalVariationDenoisingImageFilterEnums
 * \brief The methods of TotalVariationDenoisingImageFilter (twins of gpur::TVAlgorithm).
 * \ingroup ITKGPURestorationTotalVariation
 */
class TotalVariationDenoisingImageFilterEnums
{
public:
  /** The primal-dual method that solves ROF (SetAlgorithm). */
  enum class Algorithm : uint8_t
  {
    /** Chambolle-Pock [Chambolle2011, Alg. 1], constant steps. */
    ChambollePock = static_cast<uint8_t>(gpur::TVAlgorithm::ChambollePock),
    /** Chambolle-Pock [Chambolle2011, Alg. 2], O(1/k^2) for the strongly convex ROF; the default. */
    AcceleratedChambollePock = static_cast<uint8_t>(gpur::TVAlgorithm::AcceleratedChambollePock),
    /** PDU [Huang2023, Algorithm 1]: the PDHG of [Zhu2008] with the schedule of [Huang2023, eqs. (3.6)-(3.7)]. */
    PDU = static_cast<uint8_t>(gpur::TVAlgorithm::PDU)
  };
};

namespace GPURestoration
{
template<>
struct EngineEnum<TotalVariationDenoisingImageFilterEnums::Algorithm>
{
  using Type = gpur::TVAlgorithm;
};
} // namespace GPURestoration

/**
 * \class TotalVariationDenoisingImageFilter
 * \brief Total-variation (ROF) denoising of 2D and 3D images, on OpenCL or the CPU.
 *
 * Solves  min_u (lambda/2) ||u - f||^2 + TV(u)  with isotropic TV. The gradient
 * uses forward differences divided by the physical spacing (Neumann boundary),
 * so anisotropic voxels are handled; the divergence is its exact negative adjoint.
 * Larger Lambda keeps more of the input. Methods (SetAlgorithm):
 * accelerated Chambolle-Pock (default) and Chambolle-Pock [Chambolle2011,
 * Alg. 2 and 1], and PDU (the PDHG of [Zhu2008] with the schedule of
 * [Huang2023, eqs. (3.6)-(3.7)]).
 * Iterations stop when the relative primal-dual gap |(P - D)/P| falls below
 * GapTolerance, or after MaximumNumberOfIterations (default 2000, which meets
 * the default tolerance on the test volumes for lambda >= 2). A run with a
 * tolerance that ends above it reports GetConverged() false and issues an
 * itkWarningMacro saying so (GetReport().warnings holds the text).
 * GapTolerance must be 0 or at least gpur::TVGapFloor of the pixel type and
 * method (float: 2e-7, PDU 1e-6; double: 1e-12), where the rounding of the
 * gap starts to dominate it.
 *
 * The result does not depend on the intensity scale: scaling the input by s
 * and Lambda by 1/s scales the output by s, to rounding (the step balance of
 * the solvers is set by Lambda, and the engine solves on the input divided by
 * a power of two when its magnitude is outside [2^-20, 2^20]). A Lambda that
 * the pixel type cannot represent for the input's intensities (Lambda *
 * max|f| * voxel size above 1e12 in float, 1e100 in double, or below the
 * inverse with a gap tolerance) is refused with an exception.
 *
 * Backends (SetBackend, SetDevice, GetBackendUsed), progress, abort and errors
 * are those of the base class itk::GPURestorationImageFilter.
 *
 * The output keeps the input's origin, spacing and direction. Progress is
 * reported every iteration and AbortGenerateData is honoured between
 * iterations; on abort or error the output holds no partial result. On OpenCL
 * the host keeps at most about 0.2 s of iterations queued ahead of the device,
 * so progress follows the finished work and an abort takes effect within that.
 *
 * Streaming (volumes larger than memory): the filter produces any requested
 * output region, so reader -> filter -> writer with
 * writer->SetNumberOfStreamDivisions(n) processes the volume in n chunks
 * (ITK splits along the slowest axis). A chunk is solved on its requested
 * region padded by GetStreamingHalo() = MaximumNumberOfIterations + 1 voxels on
 * each side of every axis (clipped to the image), and only the requested part
 * is kept. Every iteration moves information by one voxel per axis, so with a
 * fixed iteration count the chunks are exactly the whole-volume result. The
 * gap stop cannot be exact: each chunk would stop at its own iteration, and its gap
 * is that of the chunk's problem, not of the volume's. So a request for a
 * proper part of the image (a chunk) runs exactly MaximumNumberOfIterations
 * with the gap stop off (GetStreamedChunk() tells; GapTolerance 0 gives the
 * same result without streaming). When the halo spans the image
 * (MaximumNumberOfIterations + 2 >= its size on every axis, e.g. the default
 * 2000 iterations on a 1024^3 volume) streaming cannot save memory: every request
 * is widened to the whole image, solved once with the gap stop, as without
 * streaming. The cost of streaming is 2 (MaximumNumberOfIterations + 1)
 * recomputed slices per chunk, so it pays off only when the chunks are much
 * thicker than that: few iterations (the accelerated method) or very large
 * volumes. The memory of a chunk is the engine's working set for the padded
 * chunk (about 7 values per voxel in 3D) instead of the whole volume's.
 * itk::StatisticalTVImageFilter does not stream (its weights are global).
 *
 * The algorithm lives in the ITK-free engine gpur::DenoiseTV; this class is a
 * thin adapter over it.
 *
 * \ingroup ITKGPURestorationTotalVariation
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class TotalVariationDenoisingImageFilter : public GPURestorationImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(TotalVariationDenoisingImageFilter);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = TotalVariationDenoisingImageFilter;
  using Superclass = GPURestorationImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkNewMacro(Self);
  itkTypeMacro(TotalVariationDenoisingImageFilter, GPURestorationImageFilter);

  /** The image types and their dimension, 2 or 3. */
  /** @ITKStartGrouping */
  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using OutputPixelType = typename TOutputImage::PixelType;
  /** @ITKEndGrouping */
  /** The engine computes in the output pixel type: float or double. */
  using RealType = OutputPixelType;
  /** The methods of SetAlgorithm. */
  using AlgorithmEnum = TotalVariationDenoisingImageFilterEnums::Algorithm;
  /** The name of earlier versions (then gpur::TVAlgorithm), kept for source compatibility. */
  using AlgorithmType = AlgorithmEnum;

  static_assert(ImageDimension == 2 || ImageDimension == 3, "TotalVariationDenoisingImageFilter supports 2D and 3D");
  static_assert(std::is_same<RealType, float>::value || std::is_same<RealType, double>::value,
                "the output pixel type must be float or double");

  /** Fidelity weight lambda > 0 (units 1/(intensity * length)). Default 8. */
  /** @ITKStartGrouping */
  itkSetMacro(Lambda, double);
  itkGetConstMacro(Lambda, double);
  /** @ITKEndGrouping */
  /** Default AcceleratedChambollePock. */
  /** @ITKStartGrouping */
  itkSetEnumMacro(Algorithm, AlgorithmEnum);
  itkGetEnumMacro(Algorithm, AlgorithmEnum);
  /** @ITKEndGrouping */
  /** The iteration budget; the gap stop usually ends a run earlier. Default 2000 (see the class documentation). */
  /** @ITKStartGrouping */
  itkSetMacro(MaximumNumberOfIterations, unsigned int);
  itkGetConstMacro(MaximumNumberOfIterations, unsigned int);
  /** @ITKEndGrouping */
  /**
   * Relative primal-dual gap at which to stop; 0 runs all iterations. Default
   * 1e-4; otherwise at least gpur::TVGapFloor (float 2e-7, PDU 1e-6; double 1e-12).
   */
  /** @ITKStartGrouping */
  itkSetMacro(GapTolerance, double);
  itkGetConstMacro(GapTolerance, double);
  /** @ITKEndGrouping */
  /** Iterations between gap evaluations. Default 10. */
  /** @ITKStartGrouping */
  itkSetMacro(GapCheckInterval, unsigned int);
  itkGetConstMacro(GapCheckInterval, unsigned int);
  /** @ITKEndGrouping */
  /** k0 of the PDU schedule; 0 is the literal schedule of [Huang2023, eqs. (3.6)-(3.7)]. Default 15. */
  /** @ITKStartGrouping */
  itkSetMacro(PDUOffset, unsigned int);
  itkGetConstMacro(PDUOffset, unsigned int);
  /** @ITKEndGrouping */
  /**
   * With several OpenCL devices (SetDevice("all"), or a list), a 3D volume is
   * cut into z-slabs, one per device, whose halos of ExchangeInterval + 1
   * slices are refreshed every ExchangeInterval iterations; the result equals a
   * single-device run. Default 8.
   */
  /** @ITKStartGrouping */
  itkSetMacro(ExchangeInterval, unsigned int);
  itkGetConstMacro(ExchangeInterval, unsigned int);
  /** @ITKEndGrouping */
  /**
   * Bytes of memory the filter may use on each OpenCL device; 0 (default):
   * 90 % of the device's memory. A 3D volume whose state does not fit streams
   * through host memory in z-regions padded by ExchangeInterval + 1 slices; the
   * result equals the in-memory run (GetStreamRegions() tells how many regions).
   */
  /** @ITKStartGrouping */
  itkSetMacro(DeviceMemoryLimit, SizeValueType);
  itkGetConstMacro(DeviceMemoryLimit, SizeValueType);
  /** @ITKEndGrouping */
  /**
   * Results of the last update: the iterations run, the relative gap |(P - D)/P|, the primal and dual
   * energies P and D, whether the gap met GapTolerance, and the seconds taken.
   */
  /** @ITKStartGrouping */
  itkGetConstMacro(NumberOfIterations, unsigned int);
  itkGetConstMacro(RelativeGap, double);
  itkGetConstMacro(PrimalEnergy, double);
  itkGetConstMacro(DualEnergy, double);
  itkGetConstMacro(Converged, bool);
  itkGetConstMacro(ElapsedSeconds, double);
  /** @ITKEndGrouping */
  /** z-regions per device of the last update when the volume streamed through host memory; 0 when it did not. */
  SizeValueType
  GetStreamRegions() const
  {
    return static_cast<SizeValueType>(m_Report.streamRegions);
  }
  /** The input region the last update solved on: the requested output region padded by the halo. */
  itkGetConstReferenceMacro(SolvedRegion, typename TInputImage::RegionType);
  /** The last update produced a proper part of the image (a streamed chunk): fixed iterations, no gap stop. */
  itkGetConstMacro(StreamedChunk, bool);
  /** Full engine report of the last update (gap history included). */
  const gpur::TVReport &
  GetReport() const
  {
    return m_Report;
  }

  /** Voxels by which a streamed request is padded on each side of every axis: the engine's gpur::TVHalo,
   * MaximumNumberOfIterations + 1. */
  SizeValueType
  GetStreamingHalo() const
  {
    return static_cast<SizeValueType>(gpur::TVHalo(m_MaximumNumberOfIterations));
  }

protected:
  TotalVariationDenoisingImageFilter() = default;
  ~TotalVariationDenoisingImageFilter() override = default;

  /** The requested output region padded by the streaming halo (see the class documentation). */
  void
  GenerateInputRequestedRegion() override;
  /** Widens every request to the whole image when the halo spans the image (one solve, not one per chunk). */
  void
  EnlargeOutputRequestedRegion(DataObject * output) override;
  /** Solves the requested region padded by the halo (see the class documentation). */
  void
  EngineGenerateData() override;
  /** Prints the settings and the results of the last update. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  /** The engine parameters from the filter's settings (no gap stop while solving a streamed chunk). */
  gpur::TVParameters
  MakeParameters() const;
  /**
   * Runs the engine on the input pixels f into the output buffer u (the
   * subclasses' hook: RTK style, they change only this step). Throws the
   * engine's exceptions; the base class' GenerateData translates them.
   */
  virtual gpur::TVReport
  Solve(const RealType * f,
        RealType * u,
        const gpur::Grid & grid,
        const gpur::ExecutionOptions & execution,
        const gpur::ProgressCallback & progress);

private:
  double m_Lambda{ 8.0 };
  AlgorithmEnum m_Algorithm{ AlgorithmEnum::AcceleratedChambollePock };
  unsigned int m_MaximumNumberOfIterations{ gpur::TVParameters().maxIterations };
  double m_GapTolerance{ 1e-4 };
  unsigned int m_GapCheckInterval{ 10 };
  unsigned int m_PDUOffset{ 15 };
  unsigned int m_ExchangeInterval{ 8 };
  SizeValueType m_DeviceMemoryLimit{ 0 };

  unsigned int m_NumberOfIterations{ 0 };
  double m_RelativeGap{ 0.0 };
  double m_PrimalEnergy{ 0.0 };
  double m_DualEnergy{ 0.0 };
  bool m_Converged{ false };
  double m_ElapsedSeconds{ 0.0 };
  typename TInputImage::RegionType m_SolvedRegion;
  bool m_StreamedChunk{ false };
  gpur::TVReport m_Report;

  /** The region a request is solved on: padded by the halo, clipped to the image. */
  typename TInputImage::RegionType
  PaddedRegion(const typename TOutputImage::RegionType & request) const;
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkTotalVariationDenoisingImageFilter.hxx"
#endif

// The common types are compiled once into ITKGPURestorationTotalVariation.
itkGPURestorationImageTypesMacro(extern template class, itk::TotalVariationDenoisingImageFilter);

#endif
