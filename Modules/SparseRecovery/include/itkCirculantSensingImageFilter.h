// SPDX-License-Identifier: Apache-2.0
#ifndef itkCirculantSensingImageFilter_h
#define itkCirculantSensingImageFilter_h

#include "itkCompressedSensingImageFilterBase.h"

namespace itk
{

/**
 * \class CirculantSensingImageFilter
 * \brief The forward operator of compressed sensing with partial circulant
 * matrices [Fiandrotti2018]: an image in, its zero-filled measurements y = P C B x out.
 *
 * Simulates what CompressedSensingRecoveryImageFilter and
 * CompressedSensingDeblurImageFilter recover from: the image x is blurred by
 * the optional point-spread function (named input "PSF", a periodic
 * convolution, centred at index size / 2 as ITK's convolution filters centre
 * their kernels; scaled to a unit sum unless NormalizePSF is off), correlated
 * with the generator (C) and sampled on the mask (P). Output 0 is the
 * measurement image: y on the mask, 0 elsewhere, with the input's geometry
 * and meta-data. Outputs 1 and 2 are the mask and the generator used (given,
 * or drawn from Seed and SamplingRatio: see CompressedSensingImageFilterBase),
 * so a drawn operator can be saved or passed on.
 *
 * One FFT pair per measurement (memory linear in the number of pixels), on
 * the CPU (FFTW) or OpenCL (VkFFT); backends, progress, abort and errors are
 * those of itk::GPURestorationImageFilter.
 *
 * \ingroup ITKGPURestorationSparseRecovery
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class CirculantSensingImageFilter : public CompressedSensingImageFilterBase<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CirculantSensingImageFilter);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = CirculantSensingImageFilter;
  using Superclass = CompressedSensingImageFilterBase<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkNewMacro(Self);
  itkTypeMacro(CirculantSensingImageFilter, CompressedSensingImageFilterBase);

  /** The types of the images (see CompressedSensingImageFilterBase). */
  /** @ITKStartGrouping */
  using typename Superclass::ImageType;
  using typename Superclass::MaskImageType;
  using typename Superclass::RealType;
  /** @ITKEndGrouping */

  /** The optional blur B (named input "PSF"), sampled at the image's spacing, each axis at most the image's. */
  /** @ITKStartGrouping */
  itkSetInputMacro(PSF, ImageType);
  itkGetInputMacro(PSF, ImageType);
  /** @ITKEndGrouping */
  /** Scale the PSF to a unit sum, so that the blur keeps the total flux (default on). */
  /** @ITKStartGrouping */
  itkSetMacro(NormalizePSF, bool);
  itkGetConstMacro(NormalizePSF, bool);
  itkBooleanMacro(NormalizePSF);
  /** @ITKEndGrouping */

  /** The mask of the last update (output 1): the Mask input, or the one drawn. */
  /** @ITKStartGrouping */
  MaskImageType *
  GetMaskOutput();
  const MaskImageType *
  GetMaskOutput() const;
  /** @ITKEndGrouping */
  /** The generator of the last update (output 2): the Generator input, or the one drawn. */
  /** @ITKStartGrouping */
  ImageType *
  GetGeneratorOutput();
  const ImageType *
  GetGeneratorOutput() const;
  /** @ITKEndGrouping */

protected:
  CirculantSensingImageFilter();
  ~CirculantSensingImageFilter() override = default;

  using Superclass::MakeOutput; // the overload by name stays visible
  /** Output 1 is the mask (MaskImageType), outputs 0 and 2 are ImageType. */
  DataObject::Pointer
  MakeOutput(ProcessObject::DataObjectPointerArraySizeType index) override;
  /** Runs gpur::CirculantOperator::Apply on the input into the outputs. */
  void
  EngineGenerateData() override;
  /** Prints the settings. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  bool m_NormalizePSF{ true };
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkCirculantSensingImageFilter.hxx"
#endif

// The common types are compiled once into ITKGPURestorationSparseRecovery.
itkCompressedSensingImageTypesMacro(extern template class, itk::CirculantSensingImageFilter);

#endif
