// SPDX-License-Identifier: Apache-2.0
// Input checks shared by every engine.
#ifndef gpurValidate_h
#define gpurValidate_h

#include "gpurError.h"

#include <cmath>
#include <cstddef>
#include <string>

namespace gpur
{

/** Throws InvalidArgument when any value is NaN or infinite (`what` names the array). */
template<typename Real>
void
RequireFinite(const Real * values, std::size_t count, const std::string & what)
{
  for (std::size_t i = 0; i < count; ++i)
  {
    if (!std::isfinite(values[i]))
    {
      throw InvalidArgument(what + " holds a non-finite value (" + std::to_string(static_cast<double>(values[i])) +
                            ") at index " + std::to_string(i) + "; NaN and Inf are not allowed");
    }
  }
}

/** Throws InvalidArgument unless every value is finite and > 0 (weights, variances). */
template<typename Real>
void
RequirePositiveFinite(const Real * values, std::size_t count, const std::string & what)
{
  RequireFinite(values, count, what);
  for (std::size_t i = 0; i < count; ++i)
  {
    if (!(values[i] > 0))
    {
      throw InvalidArgument(what + " is " + std::to_string(static_cast<double>(values[i])) + " at index " +
                            std::to_string(i) + "; it must be > 0 everywhere");
    }
  }
}

} // namespace gpur

#endif
