// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the modules' ITK filter tests: cancelling a filter from an
// observer, as a GUI's cancel button does, and checking what it leaves behind.
#ifndef itkGPURFilterTesting_h
#define itkGPURFilterTesting_h

#include "itkEventObject.h"
#include "itkMacro.h"

#include <gtest/gtest.h>

namespace gpur
{
namespace testing
{

/** Makes `filter` call AbortGenerateDataOn() from an observer of `event` once when(*filter) holds. */
template<typename TFilter, typename TPredicate>
void
AbortWhen(TFilter * filter, const itk::EventObject & event, TPredicate when)
{
  filter->AddObserver(event,
                      [filter, when](const itk::EventObject &)
                      {
                        if (when(*filter))
                        {
                          filter->AbortGenerateDataOn();
                        }
                      });
}

/** Update() throws ProcessAborted and leaves no output image (no partial result). */
template<typename TFilter>
void
ExpectAbortedWithoutOutput(TFilter * filter)
{
  EXPECT_THROW(filter->Update(), itk::ProcessAborted);
  EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), nullptr) << "no partial output";
}

} // namespace testing
} // namespace gpur

#endif
