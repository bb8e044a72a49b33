// SPDX-License-Identifier: Apache-2.0
// The OpenCL backend of level-line denoising [Perrot2013]: the paper's two
// stages as two kernels (ll_precompute, ll_lengthen) and the hybrid decision
// as a third (ll_hybrid), over frames kept on the device.
//
// The frames go up in batches (all of them when they fit: device memory or
// ExecutionOptions::deviceMemoryLimit, the largest buffer), every frame's
// kernels run on the batch in place, and the batch comes down once. The
// run's modes are build defines (one cached program per option set); the
// pattern table is a __constant argument. Per work-group counters (stop
// reasons, lengths, classes) are summed on the host, in 64 bits.
#include "gpurBuffer.h"
#include "gpurLevelLinesEngine.h"
#include "gpurLevelLinesKernels.h" // generated from kernels/*.cl
#include "gpurProgram.h"
#include "gpurStopwatch.h"

#include <algorithm>

namespace gpur
{
namespace levellines
{
namespace
{

class Filter final : public OpenCLFilter
{
public:
  Filter(const Setup & setup, const ResolvedBackend & backend, const ExecutionOptions & execution)
    : m_Setup(setup)
    , m_Context(DeviceContext::Get(backend.device))
    , m_MemoryLimit(execution.deviceMemoryLimit)
  {
    const LevelLinesParameters & p = setup.parameters;
    // 16 x 16 tiles (256 work-items); 8 x 8 on a device that cannot run 256.
    m_Tile = m_Context->Info().maxWorkGroupSize >= 256 ? 16 : 8;
    ProgramSpec spec("level-line denoising", false);
    spec
      .Module(kernels::levellines::Find,
              { "levellines_common.cl", "levellines_precompute.cl", "levellines_lengthen.cl", "levellines_hybrid.cl" })
      .Define("LL_GLOBAL", "__global")
      .Define("LL_CONSTANT", "__constant")
      .Define("LL_TABLE", "__constant")
      .Define("LL_TILE", std::to_string(m_Tile))
      .Define("LL_HALO", std::to_string(setup.halo))
      .Define("LL_L", std::to_string(setup.l))
      .Define("LL_M", std::to_string(setup.m))
      .Define("LL_K", std::to_string(setup.segments))
      .Define("LL_CENTER", p.includeCenter)
      .Define("LL_BIDIR", p.bidirectional)
      .Define("LL_FLIP", p.turnBack == LevelLinesTurnBack::Flip)
      .Define("LL_TEST_SEPARATE", p.test == LevelLinesTest::SeparateVariances)
      .Define("LL_HYBRID", p.mode == LevelLinesMode::Hybrid)
      // The CPU reference divides correctly rounded; so must the kernels.
      .Option("-cl-fp32-correctly-rounded-divide-sqrt");
    const Program program = BuildProgram(*m_Context, spec);
    m_Precompute = program.MakeKernel("ll_precompute");
    m_Lengthen = program.MakeKernel("ll_lengthen");
    m_Hybrid = program.MakeKernel("ll_hybrid");
    m_Table = DeviceBuffer<cl_int>(*m_Context, setup.table.size(), CL_MEM_READ_ONLY);
    m_Table.Upload(m_Context->Queue(), setup.table);
    m_Bounds = DeviceBuffer<float>(*m_Context, setup.bounds.size(), CL_MEM_READ_ONLY);
    m_Bounds.Upload(m_Context->Queue(), setup.bounds);
  }

  Counts
  Run(const Frames & frames, const ProgressCallback & progress, double * kernelSeconds) override
  {
    const std::size_t pixels = frames.nx * frames.ny;
    const std::size_t gx = (frames.nx + m_Tile - 1) / m_Tile, gy = (frames.ny + m_Tile - 1) / m_Tile;
    const std::size_t groups = gx * gy;
    // Device bytes per frame: f, u, the sums (float4), direction, length, class, the counters.
    const std::uint64_t perFrame = std::uint64_t(pixels) * (4 + 4 + 16 + 1 + 2 + 1) + 8 * 4 * std::uint64_t(groups);
    const DeviceInfo & info = m_Context->Info();
    const std::uint64_t memory = m_MemoryLimit > 0 ? m_MemoryLimit : info.globalMemory / 2;
    std::size_t batch = std::size_t(std::max<std::uint64_t>(1, memory / perFrame));
    batch = std::min<std::size_t>(batch, std::max<std::uint64_t>(1, info.maxAllocation / (16 * std::uint64_t(pixels))));
    batch = std::min(batch, frames.nz);
    m_Context->CheckMemory(perFrame * batch,
                           16 * std::uint64_t(pixels) * batch,
                           "level-line denoising of " + std::to_string(batch) + " frame(s) of " +
                             std::to_string(frames.nx) + "x" + std::to_string(frames.ny) + " pixels");
    const cl::CommandQueue & queue = m_Context->Queue();
    DeviceBuffer<float> f(*m_Context, batch * pixels, CL_MEM_READ_ONLY), u(*m_Context, batch * pixels);
    DeviceBuffer<float> sums(*m_Context, 4 * batch * pixels);
    DeviceBuffer<cl_uchar> dir(*m_Context, batch * pixels), pixelClass(*m_Context, batch * pixels);
    DeviceBuffer<cl_ushort> length(*m_Context, batch * pixels);
    DeviceBuffer<cl_uint> counters(*m_Context, 8 * groups * batch);
    std::vector<cl_uint> partial(8 * groups * batch);
    const bool hybrid = m_Setup.parameters.mode == LevelLinesMode::Hybrid;
    const cl::NDRange global(gx * m_Tile, gy * m_Tile), local(m_Tile, m_Tile);
    const cl_int nx = cl_int(frames.nx), ny = cl_int(frames.ny);
    const float fl = m_Setup.floor, tmax = float(m_Setup.parameters.lengtheningThreshold);
    Counts counts;
    for (std::size_t first = 0; first < frames.nz; first += batch)
    {
      const std::size_t count = std::min(batch, frames.nz - first), offset = first * pixels;
      f.Upload(queue, frames.f + offset, count * pixels);
      counters.Fill(queue, 0u);
      for (std::size_t k = 0; k < count; ++k)
      {
        const cl_ulong frame = cl_ulong(k * pixels);
        const cl_uint slot = cl_uint(k);
        std::vector<cl::Event> events(hybrid ? 3 : 2);
        m_Precompute.Set(f.Get(), dir.Get(), sums.Get(), m_Table.Get(), nx, ny, frame)
          .Enqueue(queue, global, local, &events[0]);
        m_Lengthen
          .Set(f.Get(),
               dir.Get(),
               sums.Get(),
               m_Table.Get(),
               u.Get(),
               length.Get(),
               counters.Get(),
               nx,
               ny,
               frame,
               slot,
               fl,
               tmax,
               m_Bounds.Get())
          .Enqueue(queue, global, local, &events[1]);
        if (hybrid)
        {
          m_Hybrid
            .Set(f.Get(),
                 u.Get(),
                 length.Get(),
                 pixelClass.Get(),
                 counters.Get(),
                 nx,
                 ny,
                 frame,
                 slot,
                 fl,
                 m_Setup.edgeBound)
            .Enqueue(queue, global, local, &events[2]);
        }
        cl::Event::waitForEvents(events);
        for (const cl::Event & event : events)
          *kernelSeconds += EventSeconds(event);
        ReportFrames(progress, first + k + 1, frames.nz);
      }
      u.Download(queue, frames.u + offset, count * pixels);
      if (frames.direction)
        dir.Download(queue, frames.direction + offset, count * pixels);
      if (frames.length)
        length.Download(queue, frames.length + offset, count * pixels);
      if (frames.pixelClass && hybrid)
        pixelClass.Download(queue, frames.pixelClass + offset, count * pixels);
      counters.Download(queue, partial.data(), 8 * groups * count);
      for (std::size_t g = 0; g < groups * count; ++g)
      {
        const cl_uint * c = partial.data() + 8 * g;
        for (std::size_t r = 0; r < 4; ++r)
          counts.stops[r] += c[r];
        counts.lengthSum += c[4];
        for (std::size_t k = 0; k < 3; ++k)
          counts.classes[k] += c[5 + k];
      }
    }
    return counts;
  }

private:
  Setup m_Setup;
  std::shared_ptr<DeviceContext> m_Context;
  std::uint64_t m_MemoryLimit = 0;
  std::size_t m_Tile = 16;
  Kernel m_Precompute, m_Lengthen, m_Hybrid;
  DeviceBuffer<cl_int> m_Table;
  DeviceBuffer<float> m_Bounds;
};

} // namespace

std::unique_ptr<OpenCLFilter>
MakeOpenCLFilter(const Setup & setup, const ResolvedBackend & backend, const ExecutionOptions & execution)
{
  return std::unique_ptr<OpenCLFilter>(new Filter(setup, backend, execution));
}

} // namespace levellines
} // namespace gpur
