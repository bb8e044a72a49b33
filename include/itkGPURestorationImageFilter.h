// SPDX-License-Identifier: Apache-2.0
#ifndef itkGPURestorationImageFilter_h
#define itkGPURestorationImageFilter_h

#include "itkGPURestorationEnums.h"

#include "gpurError.h"
#include "gpurExecution.h"
#include "itkImageToImageFilter.h"

#include <string>

namespace itk
{

/**
 * \class GPURestorationImageFilter
 * \brief Base class of the filters that run an ITKGPURestoration engine: what
 * every such filter does around the engine call, written once.
 *
 * In the spirit of RTK's CudaImageToImageFilter (the base class owns the
 * device side, a subclass only the computation):
 * - Backend (Auto, CPU or OpenCL) and Device (the OpenCL device selection
 *   string, see gpur::SelectDevices; "" = $ITKGPUR_DEVICE, else the first
 *   GPU, else the first device), and BackendUsed: what ran in the last update.
 * - GenerateData() calls the subclass' EngineGenerateData() and maps the
 *   engine's typed errors, in this one place: gpur::Aborted (the progress
 *   callback saw AbortGenerateData) becomes itk::ProcessAborted, every other
 *   error an itk::ExceptionObject from this filter with the engine's message
 *   (OpenCL build failures: with the full build log), which a subclass may
 *   put in its own terms (DescribeEngineError).
 * - No partial output: on any failure the outputs are released, so a failed or
 *   aborted update never leaves a half-written image behind.
 * - Progress 0 at the start and 1 at the end; MakeProgressCallback() turns the
 *   engine's gpur::Progress into UpdateProgress and reports AbortGenerateData.
 * - The engines' CPU loop runs on ITK's thread pool with
 *   GetNumberOfWorkUnits() work units (MakeExecutionOptions()).
 *
 * \ingroup ITKGPURestoration
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class GPURestorationImageFilter : public ImageToImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(GPURestorationImageFilter);

  /** Standard class type aliases. */
  /** @ITKStartGrouping */
  using Self = GPURestorationImageFilter;
  using Superclass = ImageToImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  /** @ITKEndGrouping */

  itkTypeMacro(GPURestorationImageFilter, ImageToImageFilter);

  /** Auto, CPU or OpenCL. */
  using BackendEnum = GPURestorationEnums::Backend;
  /** The name of earlier versions (then gpur::Backend), kept for source compatibility. */
  using BackendType = BackendEnum;

  /**
   * Auto (default): a GPU (or accelerator) OpenCL device when there is one;
   * OpenCL on the device that Device or $ITKGPUR_DEVICE names; otherwise the
   * faster of the CPU reference and a CPU OpenCL driver (PoCL) as measured on
   * this machine, and the CPU reference for double images on devices without
   * fp64 (the rule: gpur::ResolveBackend). CPU: the multithreaded reference;
   * OpenCL: throws at the update when no suitable device exists.
   * GetBackendUsed() and GetBackendReason() say what ran and why.
   */
  /** @ITKStartGrouping */
  itkSetEnumMacro(Backend, BackendEnum);
  itkGetEnumMacro(Backend, BackendEnum);
  /** @ITKEndGrouping */
  /** OpenCL device selection string; "" = default device. */
  /** @ITKStartGrouping */
  itkSetStringMacro(Device);
  itkGetStringMacro(Device);
  /** @ITKEndGrouping */
  /** "CPU", "OpenCL: <device name>" or "OpenCL: N devices (...)" of the last update; "" before and after a failure. */
  itkGetStringMacro(BackendUsed);
  /**
   * Why that backend ran, e.g. "backend CPU requested", "Auto: a GPU", or Auto's
   * measurement: "Auto: measured 52.5 Mvox/s on the CPU reference vs 13.9 Mvox/s
   * on OpenCL (<device>), TV 2D float32 on 512x512 voxels"; "" as BackendUsed.
   */
  itkGetStringMacro(BackendReason);

protected:
  GPURestorationImageFilter() = default;
  ~GPURestorationImageFilter() override = default;

  /** EngineGenerateData() with progress, the engine errors mapped and no partial output (see the class). */
  void
  GenerateData() override;

  /**
   * Whether one engine call needs the whole input and produces the whole
   * output (a global solve, a noise estimate over the image): then the input's
   * requested region is its largest one, and so is the output's. The default;
   * a filter that streams (TV) returns false and sets its regions itself.
   */
  virtual bool
  ProcessesWholeImage() const
  {
    return true;
  }

  /** The whole input when ProcessesWholeImage(). */
  void
  GenerateInputRequestedRegion() override;

  /** The whole output when ProcessesWholeImage(). */
  void
  EnlargeOutputRequestedRegion(DataObject * output) override;

  /**
   * The subclass' computation: allocate the output, run the engine, keep its
   * report. Throws what the engine throws (gpur::Error subclasses) or
   * itk::ExceptionObject; GenerateData maps and cleans up.
   */
  virtual void
  EngineGenerateData() = 0;

  /** The engine message of a failed update as this filter's exception shows it; default: unchanged. */
  virtual std::string
  DescribeEngineError(const gpur::Error & error) const;

  /** Backend, device and the engines' CPU loop on ITK's thread pool (GetNumberOfWorkUnits()). */
  gpur::ExecutionOptions
  MakeExecutionOptions() const;

  /** The engine's progress as UpdateProgress; false (stop: the engine throws gpur::Aborted) once abort is set. */
  gpur::ProgressCallback
  MakeProgressCallback();

  /**
   * The input's largest possible region, on which a filter that processes the whole image runs its engine;
   * throws an itk::ExceptionObject when the input does not hold all of it (an upstream filter that did not
   * provide its requested region).
   */
  typename TInputImage::RegionType
  WholeInputRegion() const;

  /** Between engine calls: throws (to ProcessAborted) when AbortGenerateData is set. */
  void
  CheckAbort() const;

  /** Records what ran (from the engine's report). */
  void
  SetBackendUsed(const gpur::ResolvedBackend & used);

  /** Prints the settings and BackendUsed. */
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  BackendEnum m_Backend{ BackendEnum::Auto };
  std::string m_Device;
  std::string m_BackendUsed;
  std::string m_BackendReason;
};

} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#include "itkGPURestorationImageFilter.hxx"
#endif

/**
 * `declaration Filter<Image>;` for the image types the module libraries compile
 * every filter for (2D and 3D, float and double). A filter's header declares
 * them `extern template class` so its users do not compile them again, its
 * library's source defines them with `template class`.
 */
#define itkGPURestorationImageTypesMacro(declaration, Filter)                                                          \
  declaration Filter<::itk::Image<float, 2>>;                                                                          \
  declaration Filter<::itk::Image<float, 3>>;                                                                          \
  declaration Filter<::itk::Image<double, 2>>;                                                                         \
  declaration Filter<::itk::Image<double, 3>>

#endif
