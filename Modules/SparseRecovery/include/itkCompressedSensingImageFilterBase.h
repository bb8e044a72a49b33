// SPDX-License-Identifier: Apache-2.0
#ifndef itkCompressedSensingImageFilterBase_h
#define itkCompressedSensingImageFilterBase_h

#include "gpurSparseRecovery.h"
#include "itkGPURestorationImageFilter.h"

#include <cstdint>
#include <type_traits>

namespace itk
{

/**
 * \class CompressedSensingImageFilterBase
 * \brief The sensing description shared by the compressed-sensing filters: the
 * partial circulant operator A = P C (B) of [Fiandrotti2018] as ITK inputs or a seed.
 *
 * The sensing matrix C is circulant per axis (block circulant with circulant
 * blocks on an image), given by its first row v, the "Generator" image:
 * C_ij = v_(j - i) mod n, so C x is the periodic cross-correlation of x with
 * v. The sampling set Omega (P) is the "Mask" image: 1 where a measurement
 * is taken, 0 elsewhere. Measurements travel zero-filled: a measurement image
 * of the unknown's size holding y_i on the mask and 0 elsewhere.
 *
 * Either input may instead be drawn from a seed, reproducibly on every
 * platform and identical to what Python's circulant_sensing and the tool
 * itkgpurestoration-sparse draw (gpur::MakeGaussianCirculantSensing: a
 * Gaussian generator and round(SamplingRatio * n) positions drawn uniformly
 * without replacement):
 * - Mask and Generator given: they are the operator (SamplingRatio must be 0);
 * - no Mask: SamplingRatio (in (0, 1]) and Seed draw it;
 * - no Generator: Seed draws it (with the mask's ratio when a Mask is given).
 *
 * Both inputs must lie on the grid of input 0 (same size, origin, spacing and
 * direction within ITK's tolerances); the mask holds only 0 and 1, at least
 * one 1. The operator acts on the pixel lattice: the spacing enters only
 * through the point-spread function of the subclasses, which must be sampled
 * at the image's spacing. Every input is used whole (the operator is global).
 *
 * \ingroup ITKGPURestorationSparseRecovery
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class CompressedSensingImageFilterBase : public GPURestorationImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CompressedSensingImageFilterBase);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = CompressedSensingImageFilterBase;
  using Superclass = GPURestorationImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkTypeMacro(CompressedSensingImageFilterBase, GPURestorationImageFilter);

  /** The image types: the unknown, the measurements, the generator and the PSF share one type (TOutputImage is
   * TInputImage). */
  /** @ITKStartGrouping */
  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using ImageType = TInputImage;
  using RealType = typename TInputImage::PixelType;
  /** @ITKEndGrouping */
  /** The sampling set: 1 where a measurement is taken, 0 elsewhere. */
  using MaskImageType = Image<uint8_t, ImageDimension>;

  static_assert(ImageDimension == 2, "the compressed-sensing filters take 2D images");
  static_assert(std::is_same<TInputImage, TOutputImage>::value, "the output has the input's type");
  static_assert(std::is_same<RealType, float>::value || std::is_same<RealType, double>::value,
                "the pixel type must be float or double");

  /** The sampling set Omega (named input "Mask"), on the grid of input 0; optional when SamplingRatio draws it. */
  /** @ITKStartGrouping */
  itkSetInputMacro(Mask, MaskImageType);
  itkGetInputMacro(Mask, MaskImageType);
  /** @ITKEndGrouping */
  /** The first row v of C (named input "Generator"), on the grid of input 0; optional: drawn from Seed. */
  /** @ITKStartGrouping */
  itkSetInputMacro(Generator, ImageType);
  itkGetInputMacro(Generator, ImageType);
  /** @ITKEndGrouping */
  /** m / n of a mask drawn from Seed, in (0, 1], when no Mask input is given; 0 (default): the Mask input. */
  /** @ITKStartGrouping */
  itkSetMacro(SamplingRatio, double);
  itkGetConstMacro(SamplingRatio, double);
  /** @ITKEndGrouping */
  /** The seed of the drawn generator and mask (default 0); the same seed draws the same operator everywhere. */
  /** @ITKStartGrouping */
  itkSetMacro(Seed, uint64_t);
  itkGetConstMacro(Seed, uint64_t);
  /** @ITKEndGrouping */

  /** The number of measurements m (ones of the mask) of the last update. */
  itkGetConstMacro(NumberOfMeasurements, SizeValueType);

protected:
  CompressedSensingImageFilterBase();
  ~CompressedSensingImageFilterBase() override = default;

  /** Every input whole: the operator is global, and the PSF has its own size. */
  void
  GenerateInputRequestedRegion() override;
  /** The Mask and Generator on the grid of input 0, the PSF at its spacing (the base checks all inputs alike). */
  void
  VerifyInputInformation() ITKv5_CONST override;

  /**
   * The engine's sensing operator from the inputs and settings (drawing what is
   * not given), with an optional point-spread function (null: none); throws
   * itk::ExceptionObject naming a bad mask or a missing or ambiguous sensing.
   */
  gpur::CirculantSensing
  MakeSensing(const ImageType * psf, bool normalizePSF);

  /** Prints the settings. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  double m_SamplingRatio{ 0.0 };
  uint64_t m_Seed{ 0 };
  SizeValueType m_NumberOfMeasurements{ 0 };
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkCompressedSensingImageFilterBase.hxx"
#endif

/**
 * `declaration Filter<Image>;` for the image types the module's library compiles the compressed-sensing filters
 * for: 2D float and double.
 */
#define itkCompressedSensingImageTypesMacro(declaration, Filter)                                                       \
  declaration Filter<::itk::Image<float, 2>>;                                                                          \
  declaration Filter<::itk::Image<double, 2>>

// The common types are compiled once into ITKGPURestorationSparseRecovery.
itkCompressedSensingImageTypesMacro(extern template class, itk::CompressedSensingImageFilterBase);

#endif
