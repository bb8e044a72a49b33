// SPDX-License-Identifier: Apache-2.0
// Helpers of the tests that check that an engine follows the rule of
// Backend::Auto (gpurExecution.h, gpurAutoBackend.h) on this machine.
#ifndef gpurAutoTesting_h
#define gpurAutoTesting_h

#include "gpurAutoBackend.h"
#include "gpurDevice.h"
#include "gpurExecution.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace gpur
{
namespace testing
{

/** Sets (or, with nullptr, unsets) an environment variable for a scope. */
class ScopedEnvironment
{
public:
  ScopedEnvironment(const char * name, const char * value)
    : m_Name(name)
  {
    const char * old = std::getenv(name);
    m_Had = old != nullptr;
    if (m_Had)
      m_Old = old;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnvironment()
  {
    if (m_Had)
      setenv(m_Name.c_str(), m_Old.c_str(), 1);
    else
      unsetenv(m_Name.c_str());
  }
  ScopedEnvironment(const ScopedEnvironment &) = delete;
  ScopedEnvironment &
  operator=(const ScopedEnvironment &) = delete;

private:
  std::string m_Name, m_Old;
  bool m_Had = false;
};

/** Auto follows its measuring rule within the scope: $ITKGPUR_AUTO and $ITKGPUR_DEVICE unset. */
class AutoRuleScope
{
private:
  ScopedEnvironment m_Auto{ AutoEnvironmentVariable(), nullptr };
  ScopedEnvironment m_Device{ DeviceEnvironmentVariable(), nullptr };
};

/** True when Auto measures here: the default OpenCL device is a CPU driver (PoCL on the test machines). */
inline bool
AutoMeasuresHere()
{
  return HaveOpenCLDevice() && SelectDevices("").front().type != DeviceType::GPU &&
         SelectDevices("").front().type != DeviceType::Accelerator;
}

/**
 * Auto measured both backends with the engine's probe (`probe`: the problem
 * as the reason names it, e.g. "TV 2D float32 on 64x48 voxels"), ran the
 * faster one and says so.
 */
inline void
ExpectMeasuredChoice(const ResolvedBackend & r, const std::string & probe)
{
  EXPECT_TRUE(r.Measured()) << r.reason;
  EXPECT_EQ(r.backend, r.openclVoxelsPerSecond > r.cpuVoxelsPerSecond ? Backend::OpenCL : Backend::CPU) << r.reason;
  EXPECT_EQ(r.reason.rfind("Auto: measured ", 0), 0u) << r.reason;
  EXPECT_NE(r.reason.find(probe), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find(" Mvox/s on the CPU reference"), std::string::npos) << r.reason;
}

} // namespace testing
} // namespace gpur

#define GPUR_REQUIRE_AUTO_MEASURING()                                                                                  \
  if (!gpur::testing::AutoMeasuresHere())                                                                              \
  GTEST_SKIP() << "Auto measures only when the default OpenCL device is a CPU driver"

#endif
