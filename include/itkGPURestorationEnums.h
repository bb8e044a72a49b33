// SPDX-License-Identifier: Apache-2.0
// The enum classes of the filters' ITK API (ITK 5 style, as itk::CommonEnums),
// each the twin of an engine enum, and the one place that converts between
// the two. A filter's Set/Get take these, never a gpur:: engine enum, so the
// ITK API is one style throughout and the engine can change without it.
#ifndef itkGPURestorationEnums_h
#define itkGPURestorationEnums_h

#include "gpurExecution.h"

#include <cstdint>
#include <ostream>

namespace itk
{

/**
 * \class GPURestorationEnums
 * \brief The enums that every filter of ITKGPURestoration shares.
 *
 * The enums of one module live next to its filters
 * (TotalVariationDenoisingImageFilterEnums, StatisticalTVImageFilterEnums,
 * PSCRPoissonSolverEnums), so the core does not depend on the modules.
 * \ingroup ITKGPURestoration
 */
class GPURestorationEnums
{
public:
  /** Which implementation runs (gpur::Backend). */
  enum class Backend : uint8_t
  {
    /** OpenCL when a suitable device exists, else the CPU. */
    Auto = static_cast<uint8_t>(gpur::Backend::Auto),
    /** The multithreaded CPU reference. */
    CPU = static_cast<uint8_t>(gpur::Backend::CPU),
    /** OpenCL; throws when no suitable device exists. */
    OpenCL = static_cast<uint8_t>(gpur::Backend::OpenCL)
  };
};

namespace GPURestoration
{

/**
 * The engine enum of an ITK enum (`Type`), declared by a specialisation next to
 * the ITK enum. The enumerators of a twin pair are defined by the engine's
 * values (as GPURestorationEnums::Backend above), so converting is a cast.
 */
template<typename TEnum>
struct EngineEnum
{
};

template<>
struct EngineEnum<GPURestorationEnums::Backend>
{
  using Type = gpur::Backend;
};

/** The engine's value of an ITK enum value. */
template<typename TEnum>
typename EngineEnum<TEnum>::Type
ToEngine(TEnum value)
{
  return static_cast<typename EngineEnum<TEnum>::Type>(value);
}

/** The ITK enum value of an engine value (e.g. one parsed by gpur::ParseBackend). */
template<typename TEnum>
TEnum
FromEngine(typename EngineEnum<TEnum>::Type value)
{
  return static_cast<TEnum>(value);
}

} // namespace GPURestoration

/** The name of an ITK enum value with an engine twin: the engine's (gpur::ToString), e.g. "OpenCL". */
template<typename TEnum, typename = typename GPURestoration::EngineEnum<TEnum>::Type>
std::ostream &
operator<<(std::ostream & out, TEnum value)
{
  using gpur::ToString; // the overload of a module's engine enum is found by ADL where the enum is used
  return out << ToString(GPURestoration::ToEngine(value));
}

} // namespace itk

#endif
