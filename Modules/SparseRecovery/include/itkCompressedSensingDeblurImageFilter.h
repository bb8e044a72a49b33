// SPDX-License-Identifier: Apache-2.0
#ifndef itkCompressedSensingDeblurImageFilter_h
#define itkCompressedSensingDeblurImageFilter_h

#include "itkCompressedSensingRecoveryImageFilter.h"

namespace itk
{

/**
 * \class CompressedSensingDeblurImageFilter
 * \brief Deblurs a sparse 2D image directly from compressed, blurred
 * measurements y = P C B x [Fiandrotti2018, §5]: recovery and deconvolution in one LASSO.
 *
 * The filter of CompressedSensingRecoveryImageFilter (same settings, same
 * sensing inputs, same solvers) with the blur B in the operator: the
 * required named input "PSF" is the point-spread function, sampled at the
 * measurement image's spacing, centred at index size / 2 per axis (ITK's
 * convention for convolution kernels), each axis at most the image's, with
 * a nonzero sum; it is applied as a periodic convolution and scaled to a
 * unit sum unless NormalizePSF is off. The output is the sparse image x
 * before the blur: for a field of stars, the stars as points.
 *
 * Choose it when the scene is sparse (a few bright sources on a dark
 * background) and the measurements are compressed or partial; for a fully
 * sampled image of an extended scene, ordinary deconvolution
 * (Richardson-Lucy, itk::RichardsonLucyDeconvolutionImageFilter) is the tool.
 * Nonnegative (off by default, as in the recovery filter) suits light.
 *
 * \ingroup ITKGPURestorationSparseRecovery
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class CompressedSensingDeblurImageFilter : public CompressedSensingRecoveryImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CompressedSensingDeblurImageFilter);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = CompressedSensingDeblurImageFilter;
  using Superclass = CompressedSensingRecoveryImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkNewMacro(Self);
  itkTypeMacro(CompressedSensingDeblurImageFilter, CompressedSensingRecoveryImageFilter);

  /** The image type (see CompressedSensingImageFilterBase). */
  using typename Superclass::ImageType;

  /** The blur B (required named input "PSF"), sampled at the image's spacing. */
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

protected:
  CompressedSensingDeblurImageFilter() { this->AddRequiredInputName("PSF"); }
  ~CompressedSensingDeblurImageFilter() override = default;

  /** The PSF input. */
  const ImageType *
  GetBlur() const override
  {
    return this->GetPSF();
  }
  /** NormalizePSF. */
  bool
  GetNormalizeBlur() const override
  {
    return m_NormalizePSF;
  }
  /** Prints the settings and the results of the last update. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "NormalizePSF: " << (m_NormalizePSF ? "On" : "Off") << std::endl;
  }

private:
  bool m_NormalizePSF{ true };
};

} // namespace itk

// The common types are compiled once into ITKGPURestorationSparseRecovery.
itkCompressedSensingImageTypesMacro(extern template class, itk::CompressedSensingDeblurImageFilter);

#endif
