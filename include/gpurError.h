// SPDX-License-Identifier: Apache-2.0
// Errors of the ITK-free engine layer. The ITK adapters translate them into
// itk::ExceptionObject (see itkGPURestorationExceptions.h).
#ifndef gpurError_h
#define gpurError_h

#include <stdexcept>
#include <string>

namespace gpur
{

/** Base class of every error thrown by the engines. */
class Error : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

/** A parameter or an input is outside what the algorithm allows. */
class InvalidArgument : public Error
{
public:
  using Error::Error;
};

/**
 * An OpenCL call failed; the message names the call and the error code, Code()
 * is the OpenCL error code (a cl_int, e.g. -5 for CL_OUT_OF_RESOURCES).
 */
class OpenCLError : public Error
{
public:
  /** The message, and the OpenCL error code. */
  OpenCLError(const std::string & message, int code)
    : Error(message)
    , m_Code(code)
  {
  }
  /** The OpenCL error code (a cl_int). */
  int
  Code() const
  {
    return m_Code;
  }

private:
  int m_Code;
};

/** The program did not compile; the message holds the full build log. */
class BuildError : public OpenCLError
{
public:
  using OpenCLError::OpenCLError;
};

/**
 * A computation could not reach the accuracy it promises (a solve whose
 * residual stays above its target); the message gives what was reached, the
 * target, and what to change. Thrown instead of returning a wrong answer.
 */
class NumericalError : public Error
{
public:
  using Error::Error;
};

/** The caller asked the computation to stop (progress callback returned false). */
class Aborted : public Error
{
public:
  Aborted()
    : Error("computation aborted by the caller")
  {
  }
};

/** Symbolic name of an OpenCL error code, e.g. "CL_OUT_OF_RESOURCES". */
const char *
CLErrorName(int code);

/** Throws OpenCLError("<what> failed: <NAME> (<code>)") when code != CL_SUCCESS (0). */
void
CheckCL(int code, const char * what);

} // namespace gpur

#endif
