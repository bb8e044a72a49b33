// SPDX-License-Identifier: Apache-2.0
#ifndef itkGPURestorationImageFilter_hxx
#define itkGPURestorationImageFilter_hxx

#include "itkGPURestorationImageFilter.h"

#include "itkGPURestorationCommon.h"

#include <algorithm>

namespace itk
{

template<typename TInputImage, typename TOutputImage>
void
GPURestorationImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  auto * input = const_cast<TInputImage *>(this->GetInput());
  if (input != nullptr && this->ProcessesWholeImage())
  {
    input->SetRequestedRegionToLargestPossibleRegion();
  }
}

template<typename TInputImage, typename TOutputImage>
void
GPURestorationImageFilter<TInputImage, TOutputImage>::EnlargeOutputRequestedRegion(DataObject * output)
{
  Superclass::EnlargeOutputRequestedRegion(output);
  if (this->ProcessesWholeImage())
  {
    output->SetRequestedRegionToLargestPossibleRegion();
  }
}

template<typename TInputImage, typename TOutputImage>
void
GPURestorationImageFilter<TInputImage, TOutputImage>::GenerateData()
{
  m_BackendUsed.clear();
  m_BackendReason.clear();
  this->UpdateProgress(0.0f);
  try
  {
    try
    {
      this->EngineGenerateData();
    }
    catch (const ExceptionObject &)
    {
      throw; // already in ITK's terms (ProcessAborted included)
    }
    catch (const gpur::Aborted &)
    {
      ProcessAborted e(__FILE__, __LINE__);
      e.SetDescription("Filter execution was aborted by the user.");
      throw e;
    }
    catch (const gpur::Error & error)
    {
      itkExceptionMacro(<< this->DescribeEngineError(error));
    }
    catch (const std::exception & error) // e.g. std::bad_alloc for a volume too large for the host
    {
      itkExceptionMacro(<< error.what());
    }
  }
  catch (...)
  {
    m_BackendUsed.clear();
    m_BackendReason.clear();
    for (const auto & output : this->GetOutputs())
    {
      if (output)
      {
        output->Initialize(); // no partial result is left behind
      }
    }
    throw;
  }
  this->UpdateProgress(1.0f);
}

template<typename TInputImage, typename TOutputImage>
std::string
GPURestorationImageFilter<TInputImage, TOutputImage>::DescribeEngineError(const gpur::Error & error) const
{
  return error.what();
}

template<typename TInputImage, typename TOutputImage>
gpur::ExecutionOptions
GPURestorationImageFilter<TInputImage, TOutputImage>::MakeExecutionOptions() const
{
  gpur::ExecutionOptions execution;
  execution.backend = GPURestoration::ToEngine(m_Backend);
  execution.device = m_Device;
  execution.parallelFor = GPURestoration::MakeParallelFor(this->GetNumberOfWorkUnits());
  // The threads that run them (ITK's pool may have fewer than the work units): Auto's CPU speed depends on them.
  execution.threads = std::min(this->GetNumberOfWorkUnits(), this->GetMultiThreader()->GetMaximumNumberOfThreads());
  return execution;
}

template<typename TInputImage, typename TOutputImage>
gpur::ProgressCallback
GPURestorationImageFilter<TInputImage, TOutputImage>::MakeProgressCallback()
{
  return [this](const gpur::Progress & p)
  {
    this->UpdateProgress(static_cast<float>(p.fraction));
    return !this->GetAbortGenerateData();
  };
}

template<typename TInputImage, typename TOutputImage>
typename TInputImage::RegionType
GPURestorationImageFilter<TInputImage, TOutputImage>::WholeInputRegion() const
{
  const TInputImage * input = this->GetInput();
  const typename TInputImage::RegionType region = input->GetLargestPossibleRegion();
  if (input->GetBufferedRegion() != region)
  {
    itkExceptionMacro(<< "the input holds " << input->GetBufferedRegion() << " but the filter needs the whole image "
                      << region << "; the upstream filter did not provide its requested region");
  }
  return region;
}

template<typename TInputImage, typename TOutputImage>
void
GPURestorationImageFilter<TInputImage, TOutputImage>::CheckAbort() const
{
  if (this->GetAbortGenerateData())
  {
    throw gpur::Aborted(); // mapped to ProcessAborted with the engines' aborts, in GenerateData
  }
}

template<typename TInputImage, typename TOutputImage>
void
GPURestorationImageFilter<TInputImage, TOutputImage>::SetBackendUsed(const gpur::ResolvedBackend & used)
{
  m_BackendUsed = used.Describe();
  m_BackendReason = used.reason;
}

template<typename TInputImage, typename TOutputImage>
void
GPURestorationImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Backend: " << m_Backend << std::endl;
  os << indent << "Device: " << (m_Device.empty() ? "(default)" : m_Device) << std::endl;
  os << indent << "BackendUsed: " << (m_BackendUsed.empty() ? "(not run)" : m_BackendUsed) << std::endl;
  os << indent << "BackendReason: " << (m_BackendReason.empty() ? "(not run)" : m_BackendReason) << std::endl;
}

} // namespace itk

#endif
