// SPDX-License-Identifier: Apache-2.0
#ifndef itkLevelLinesDenoiseImageFilter_h
#define itkLevelLinesDenoiseImageFilter_h

#include "gpurLevelLines.h"
#include "itkGPURestorationImageFilter.h"

#include <array>
#include <type_traits>

namespace itk
{

/**
 * \class LevelLinesDenoiseImageFilterEnums
 * \brief The choices of LevelLinesDenoiseImageFilter (twins of gpur::LevelLinesMode, gpur::LevelLinesTest and
 * gpur::LevelLinesTurnBack).
 * \ingroup ITKGPURestorationLevelLines
 */
class LevelLinesDenoiseImageFilterEnums
{
public:
  /** What a pixel's output is (SetMode). */
  enum class Mode : uint8_t
  {
    /** The mean along the pixel's poly-isoline, everywhere [Perrot2013, Algorithm 2]: the default. */
    PIPD = static_cast<uint8_t>(gpur::LevelLinesMode::PIPD),
    /** Classify first [Perrot2013, Algorithm 3]: star mean, half-plane mean or the PI-PD value. */
    Hybrid = static_cast<uint8_t>(gpur::LevelLinesMode::Hybrid)
  };
  /** The variance model of the lengthening test [Perrot2013, eq. (8)] (SetLengtheningTest). */
  enum class Test : uint8_t
  {
    /** The pooled two-mean variance against the one-mean variance: the default. */
    Pooled = static_cast<uint8_t>(gpur::LevelLinesTest::Pooled),
    /** Separate variances of the line so far and of the candidate segment. */
    SeparateVariances = static_cast<uint8_t>(gpur::LevelLinesTest::SeparateVariances)
  };
  /** What happens when the direction found at a segment's end points back (SetTurnBack). */
  enum class TurnBack : uint8_t
  {
    /** Continue along the opposite direction: the default. */
    Flip = static_cast<uint8_t>(gpur::LevelLinesTurnBack::Flip),
    /** Stop the line there. */
    Stop = static_cast<uint8_t>(gpur::LevelLinesTurnBack::Stop)
  };
};

namespace GPURestoration
{
template<>
struct EngineEnum<LevelLinesDenoiseImageFilterEnums::Mode>
{
  using Type = gpur::LevelLinesMode;
};
template<>
struct EngineEnum<LevelLinesDenoiseImageFilterEnums::Test>
{
  using Type = gpur::LevelLinesTest;
};
template<>
struct EngineEnum<LevelLinesDenoiseImageFilterEnums::TurnBack>
{
  using Type = gpur::LevelLinesTurnBack;
};
} // namespace GPURestoration

/**
 * \class LevelLinesDenoiseImageFilter
 * \brief Level-line (isoline) denoising, "PI-PD" [Perrot2013], of 2D images and of stacks of 2D frames, on OpenCL
 * or the CPU.
 *
 * Each output pixel is the mean grey level along an estimated level line
 * through it: a poly-line of straight segments of SegmentLength pixels in 32
 * directions, chosen per pixel as the direction of least variance and
 * lengthened, segment by segment, while a generalised likelihood-ratio test
 * accepts the merge [Perrot2013, Algorithms 1 and 2, eq. (8)], up to
 * MaximumLength pixels per arm. Averaging along level lines, not across
 * them, removes noise while edges stay sharp. Mode Hybrid classifies each
 * pixel first [Perrot2013, Algorithm 3] (a second output holds the classes).
 * The engine gpur::DenoiseLevelLines documents the details and the choices
 * where the paper is silent (IncludeCenter, Bidirectional, TurnBack,
 * VarianceFloor).
 *
 * Images. A 2D image is one frame. A 3D image is a stack of independent 2D
 * frames (the slices along z: video frames, or the slices of a volume),
 * filtered in one engine call with the stack kept on the device. Input
 * pixels may be unsigned char, unsigned short or float (any scalar type
 * compiles); they are cast to float, and the output is float. The method
 * works on the pixel lattice (the patterns are pixel offsets): the spacing is
 * not used, and the output keeps the input's origin, spacing, direction and
 * meta-data dictionary.
 *
 * Noise. NoiseSigma 0 (the default) estimates the noise level from the
 * image (the median of the frames' estimates); it sets the variance floor
 * of the tests (VarianceFloor * sigma^2). Every decision compares variances
 * of the same data, so scaling the image scales the output.
 *
 * The filter needs the whole image (the noise estimate is global): every
 * request is widened to the largest possible region. Progress is reported
 * per frame and stage, AbortGenerateData is honoured (no partial output).
 * Backends (SetBackend, SetDevice, GetBackendUsed), progress, abort and
 * errors are those of the base class itk::GPURestorationImageFilter.
 *
 * \ingroup ITKGPURestorationLevelLines
 */
template<typename TInputImage, typename TOutputImage = Image<float, TInputImage::ImageDimension>>
class LevelLinesDenoiseImageFilter : public GPURestorationImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(LevelLinesDenoiseImageFilter);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = LevelLinesDenoiseImageFilter;
  using Superclass = GPURestorationImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkNewMacro(Self);
  itkTypeMacro(LevelLinesDenoiseImageFilter, GPURestorationImageFilter);

  /** The image types: 2D (one frame) or 3D (a stack of frames along z). */
  /** @ITKStartGrouping */
  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputImageType = TInputImage;
  using InputPixelType = typename TInputImage::PixelType;
  using OutputImageType = TOutputImage;
  using OutputPixelType = typename TOutputImage::PixelType;
  /** @ITKEndGrouping */
  /** The second output: the hybrid class of each pixel (gpur::LevelLinesClass: 0 low slope, 1 single edge, 2
   * complex). */
  using ClassImageType = Image<uint8_t, ImageDimension>;
  /** The choices of SetMode, SetLengtheningTest and SetTurnBack. */
  /** @ITKStartGrouping */
  using ModeEnum = LevelLinesDenoiseImageFilterEnums::Mode;
  using TestEnum = LevelLinesDenoiseImageFilterEnums::Test;
  using TurnBackEnum = LevelLinesDenoiseImageFilterEnums::TurnBack;
  /** @ITKEndGrouping */

  static_assert(ImageDimension == 2 || ImageDimension == 3,
                "LevelLinesDenoiseImageFilter filters 2D images and stacks of 2D frames (3D)");
  static_assert(static_cast<unsigned>(TOutputImage::ImageDimension) == ImageDimension,
                "the output has the input's dimension");
  static_assert(std::is_same<OutputPixelType, float>::value, "the output pixel type must be float");
  static_assert(std::is_arithmetic<InputPixelType>::value, "the input pixels must be scalars (e.g. uchar, ushort)");

  /** Segment length l in pixels, 2 to 12 (default 5, the paper's [Perrot2013, Fig. 10]). */
  /** @ITKStartGrouping */
  itkSetMacro(SegmentLength, unsigned int);
  itkGetConstMacro(SegmentLength, unsigned int);
  /** @ITKEndGrouping */
  /** Maximum poly-isoline length n in pixels per arm, SegmentLength to 64 (default 25). */
  /** @ITKStartGrouping */
  itkSetMacro(MaximumLength, unsigned int);
  itkGetConstMacro(MaximumLength, unsigned int);
  /** @ITKEndGrouping */
  /** T_max of the lengthening test [Perrot2013, eq. (8)], > 0: a segment is added while the statistic is below it
   * (default 1). */
  /** @ITKStartGrouping */
  itkSetMacro(LengtheningThreshold, double);
  itkGetConstMacro(LengtheningThreshold, double);
  /** @ITKEndGrouping */
  /** T2_max of the hybrid edge test, > 0: an edge along a direction when the statistic exceeds it (default 2). */
  /** @ITKStartGrouping */
  itkSetMacro(EdgeThreshold, double);
  itkGetConstMacro(EdgeThreshold, double);
  /** @ITKEndGrouping */
  /** PI-PD everywhere (default) or the hybrid classifier. */
  /** @ITKStartGrouping */
  itkSetEnumMacro(Mode, ModeEnum);
  itkGetEnumMacro(Mode, ModeEnum);
  /** @ITKEndGrouping */
  /** The variance model of the lengthening test (default Pooled). */
  /** @ITKStartGrouping */
  itkSetEnumMacro(LengtheningTest, TestEnum);
  itkGetEnumMacro(LengtheningTest, TestEnum);
  /** @ITKEndGrouping */
  /** The turn-back rule (default Flip). */
  /** @ITKStartGrouping */
  itkSetEnumMacro(TurnBack, TurnBackEnum);
  itkGetEnumMacro(TurnBack, TurnBackEnum);
  /** @ITKEndGrouping */
  /** Thicken the lines from 1 to 3 pixels [Perrot2013, §VI]: more smoothing, finer details lost (default off). */
  /** @ITKStartGrouping */
  itkSetMacro(Thick, bool);
  itkGetConstMacro(Thick, bool);
  itkBooleanMacro(Thick);
  /** @ITKEndGrouping */
  /** Count the pixel itself in the first segment's variance and in the mean (default on). */
  /** @ITKStartGrouping */
  itkSetMacro(IncludeCenter, bool);
  itkGetConstMacro(IncludeCenter, bool);
  itkBooleanMacro(IncludeCenter);
  /** @ITKEndGrouping */
  /** Grow the line both ways from the pixel (default on; the paper grows one arm). */
  /** @ITKStartGrouping */
  itkSetMacro(Bidirectional, bool);
  itkGetConstMacro(Bidirectional, bool);
  itkBooleanMacro(Bidirectional);
  /** @ITKEndGrouping */
  /** The tests' variances are floored at VarianceFloor * sigma^2, 0 < VarianceFloor <= 4 (default 1). */
  /** @ITKStartGrouping */
  itkSetMacro(VarianceFloor, double);
  itkGetConstMacro(VarianceFloor, double);
  /** @ITKEndGrouping */
  /** The noise standard deviation in the image's intensity units, >= 0; 0 (default): estimated. */
  /** @ITKStartGrouping */
  itkSetMacro(NoiseSigma, double);
  itkGetConstMacro(NoiseSigma, double);
  /** @ITKEndGrouping */
  /**
   * OpenCL: the device memory a stack may use, in bytes; a larger stack is filtered in batches of frames.
   * 0 (default): 90 % of the device.
   */
  /** @ITKStartGrouping */
  itkSetMacro(DeviceMemoryLimit, SizeValueType);
  itkGetConstMacro(DeviceMemoryLimit, SizeValueType);
  /** @ITKEndGrouping */

  /** The hybrid class map of the last update (output 1); every pixel Complex (the PI-PD value) in mode PIPD. */
  /** @ITKStartGrouping */
  ClassImageType *
  GetClassOutput();
  const ClassImageType *
  GetClassOutput() const;
  /** @ITKEndGrouping */

  /** The noise sigma the last update used, and whether it was estimated (the median of the frames' estimates). */
  /** @ITKStartGrouping */
  itkGetConstMacro(NoiseSigmaUsed, double);
  itkGetConstMacro(NoiseSigmaEstimated, bool);
  /** @ITKEndGrouping */
  /** Mean number of pixels averaged per output pixel in the last update (centre, both arms, thickening). */
  itkGetConstMacro(MeanLength, double);
  /** Shares of the lengthening attempts ended by the test, the turn-back rule (Stop), the frame border, the length
   * cap. */
  /** @ITKStartGrouping */
  itkGetConstMacro(StoppedByTest, double);
  itkGetConstMacro(StoppedByTurnBack, double);
  itkGetConstMacro(StoppedByBorder, double);
  itkGetConstMacro(StoppedByLength, double);
  /** @ITKEndGrouping */
  /** Hybrid: the shares of low-slope, single-edge and complex pixels (0 in mode PIPD). */
  /** @ITKStartGrouping */
  itkGetConstMacro(LowSlopeShare, double);
  itkGetConstMacro(SingleEdgeShare, double);
  itkGetConstMacro(ComplexShare, double);
  /** @ITKEndGrouping */
  /** The frames filtered, the wall seconds (upload to download) and the kernel seconds (OpenCL events; CPU:
   * compute) of the last update. */
  /** @ITKStartGrouping */
  itkGetConstMacro(NumberOfFrames, SizeValueType);
  itkGetConstMacro(ElapsedSeconds, double);
  itkGetConstMacro(KernelSeconds, double);
  /** @ITKEndGrouping */
  /** The full engine report of the last update (also its warnings). */
  const gpur::LevelLinesReport &
  GetReport() const
  {
    return m_Report;
  }

protected:
  LevelLinesDenoiseImageFilter();
  ~LevelLinesDenoiseImageFilter() override = default;

  using Superclass::MakeOutput; // the overload by name stays visible
  /** Output 1 is the class map (ClassImageType), output 0 the denoised image. */
  DataObject::Pointer
  MakeOutput(ProcessObject::DataObjectPointerArraySizeType index) override;
  /** Runs gpur::DenoiseLevelLines on the input into the outputs. */
  void
  EngineGenerateData() override;
  /** Prints the settings and the results of the last update. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  /** The engine parameters from the filter's settings. */
  gpur::LevelLinesParameters
  MakeParameters() const;

private:
  unsigned int m_SegmentLength{ gpur::LevelLinesParameters().segmentLength };
  unsigned int m_MaximumLength{ gpur::LevelLinesParameters().maximumLength };
  double m_LengtheningThreshold{ gpur::LevelLinesParameters().lengtheningThreshold };
  double m_EdgeThreshold{ gpur::LevelLinesParameters().edgeThreshold };
  ModeEnum m_Mode{ ModeEnum::PIPD };
  TestEnum m_LengtheningTest{ TestEnum::Pooled };
  TurnBackEnum m_TurnBack{ TurnBackEnum::Flip };
  bool m_Thick{ gpur::LevelLinesParameters().thick };
  bool m_IncludeCenter{ gpur::LevelLinesParameters().includeCenter };
  bool m_Bidirectional{ gpur::LevelLinesParameters().bidirectional };
  double m_VarianceFloor{ gpur::LevelLinesParameters().varianceFloor };
  double m_NoiseSigma{ gpur::LevelLinesParameters().noiseSigma };
  SizeValueType m_DeviceMemoryLimit{ 0 };

  double m_NoiseSigmaUsed{ 0.0 };
  bool m_NoiseSigmaEstimated{ false };
  double m_MeanLength{ 0.0 };
  double m_StoppedByTest{ 0.0 };
  double m_StoppedByTurnBack{ 0.0 };
  double m_StoppedByBorder{ 0.0 };
  double m_StoppedByLength{ 0.0 };
  double m_LowSlopeShare{ 0.0 };
  double m_SingleEdgeShare{ 0.0 };
  double m_ComplexShare{ 0.0 };
  SizeValueType m_NumberOfFrames{ 0 };
  double m_ElapsedSeconds{ 0.0 };
  double m_KernelSeconds{ 0.0 };
  gpur::LevelLinesReport m_Report;
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkLevelLinesDenoiseImageFilter.hxx"
#endif

/**
 * `declaration Filter<Image>;` for the input types the module's library compiles the filter for: unsigned char,
 * unsigned short and float pixels, 2D images and 3D stacks, each with the float output of the same dimension.
 */
#define itkLevelLinesImageTypesMacro(declaration, Filter)                                                              \
  declaration Filter<::itk::Image<unsigned char, 2>>;                                                                  \
  declaration Filter<::itk::Image<unsigned short, 2>>;                                                                 \
  declaration Filter<::itk::Image<float, 2>>;                                                                          \
  declaration Filter<::itk::Image<unsigned char, 3>>;                                                                  \
  declaration Filter<::itk::Image<unsigned short, 3>>;                                                                 \
  declaration Filter<::itk::Image<float, 3>>

// The common types are compiled once into ITKGPURestorationLevelLines.
itkLevelLinesImageTypesMacro(extern template class, itk::LevelLinesDenoiseImageFilter);

#endif
