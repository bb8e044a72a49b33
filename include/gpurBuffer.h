// SPDX-License-Identifier: Apache-2.0
// RAII device buffers of a typed element and host <-> device transfers.
#ifndef gpurBuffer_h
#define gpurBuffer_h

#include "gpurContext.h"
#include "gpurError.h"

#include <cstddef>
#include <vector>

namespace gpur
{

/**
 * A typed buffer on one device. Released automatically; movable, not copyable.
 * Allocation is checked against CL_DEVICE_MAX_MEM_ALLOC_SIZE so an oversized
 * request fails with a clear message before any work is queued.
 */
template<typename T>
class DeviceBuffer
{
public:
  DeviceBuffer() = default;
  /** `count` elements on the context's device; throws InvalidArgument for 0 or more than the largest allocation. */
  DeviceBuffer(DeviceContext & context, std::size_t count, cl_mem_flags flags = CL_MEM_READ_WRITE)
    : m_Count(count)
  {
    if (count == 0)
    {
      throw InvalidArgument("DeviceBuffer: a buffer needs at least one element");
    }
    const std::uint64_t bytes = static_cast<std::uint64_t>(count) * sizeof(T);
    if (bytes > context.Info().maxAllocation)
    {
      throw InvalidArgument("DeviceBuffer: " + std::to_string(bytes) + " bytes exceed the largest allocation (" +
                            std::to_string(context.Info().maxAllocation) + " bytes) of " + context.Info().name);
    }
    cl_int err = CL_SUCCESS;
    m_Buffer = cl::Buffer(context.Context(), flags, bytes, nullptr, &err);
    CheckCL(err, "clCreateBuffer");
  }

  /** Number of elements. */
  std::size_t
  Size() const
  {
    return m_Count;
  }
  /** Size in bytes. */
  std::size_t
  Bytes() const
  {
    return m_Count * sizeof(T);
  }
  /** The OpenCL buffer, for kernel arguments. */
  const cl::Buffer &
  Get() const
  {
    return m_Buffer;
  }

  /** Copies `count` elements from host to the buffer at element `offset`. */
  void
  Upload(const cl::CommandQueue & queue,
         const T * host,
         std::size_t count,
         std::size_t offset = 0,
         bool blocking = true,
         cl::Event * event = nullptr) const
  {
    CheckRange(count, offset);
    queue.enqueueWriteBuffer(m_Buffer, blocking, offset * sizeof(T), count * sizeof(T), host, nullptr, event);
  }
  /** Copies all of `host` to the start of the buffer, blocking; throws InvalidArgument when it exceeds Size(). */
  void
  Upload(const cl::CommandQueue & queue, const std::vector<T> & host) const
  {
    Upload(queue, host.data(), host.size());
  }

  /** Copies `count` elements at element `offset` to the host. */
  void
  Download(const cl::CommandQueue & queue,
           T * host,
           std::size_t count,
           std::size_t offset = 0,
           bool blocking = true,
           cl::Event * event = nullptr) const
  {
    CheckRange(count, offset);
    queue.enqueueReadBuffer(m_Buffer, blocking, offset * sizeof(T), count * sizeof(T), host, nullptr, event);
  }
  /** The whole buffer, copied to the host (blocking). */
  std::vector<T>
  Download(const cl::CommandQueue & queue) const
  {
    std::vector<T> host(m_Count);
    Download(queue, host.data(), m_Count);
    return host;
  }

  /** Sets every element to value (asynchronous on the queue). */
  void
  Fill(const cl::CommandQueue & queue, T value) const
  {
    queue.enqueueFillBuffer(m_Buffer, value, 0, Bytes());
  }

  /** Device-side copy of the whole buffer from another of the same size. */
  void
  CopyFrom(const cl::CommandQueue & queue, const DeviceBuffer & source, cl::Event * event = nullptr) const
  {
    if (source.m_Count != m_Count)
    {
      throw InvalidArgument("DeviceBuffer::CopyFrom: sizes differ");
    }
    queue.enqueueCopyBuffer(source.m_Buffer, m_Buffer, 0, 0, Bytes(), nullptr, event);
  }

private:
  void
  CheckRange(std::size_t count, std::size_t offset) const
  {
    if (offset + count > m_Count)
    {
      throw InvalidArgument("DeviceBuffer: transfer of " + std::to_string(count) + " elements at " +
                            std::to_string(offset) + " is outside a buffer of " + std::to_string(m_Count));
    }
  }

  cl::Buffer m_Buffer;
  std::size_t m_Count = 0;
};

} // namespace gpur

#endif
