// Errors of the ITK-free engine layer. The ITK adapters translate them into
// itk::ExceptionObject (see itkGPURestorationExceptions.h).
#ifndef gpurError_h
#define gpurError_h

#include "gpurOpenCL.h"

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

/** An OpenCL call failed; the message names the call and the error code. */
class OpenCLError : public Error
{
public:
  OpenCLError(const std::string & message, cl_int code)
    : Error(message)
    , m_Code(code)
  {
  }
  cl_int
  Code() const
  {
    return m_Code;
  }

private:
  cl_int m_Code;
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
CLErrorName(cl_int code);

/** Throws OpenCLError("<what> failed: <NAME> (<code>)") when code != CL_SUCCESS. */
void
CheckCL(cl_int code, const char * what);

/** Turns a cl::Error thrown by the C++ bindings into an OpenCLError with the code's name. */
[[noreturn]] void
RethrowCL(const cl::Error & e);

/**
 * Runs f and converts the bindings' cl::Error into gpur::OpenCLError, so that
 * callers of the engines only ever see gpur::Error.
 */
template<typename F>
auto
TranslateCLErrors(F && f) -> decltype(f())
{
  try
  {
    return f();
  }
  catch (const cl::Error & e)
  {
    RethrowCL(e);
  }
}

} // namespace gpur

#endif
