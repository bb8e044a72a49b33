// SPDX-License-Identifier: Apache-2.0
// Tests of the core OpenCL runtime. CTest runs them with POCL_DEVICES="pthread pthread",
// i.e. two PoCL CPU devices, so the multi-device paths are exercised.
#include "gpurBuffer.h"
#include "gpurContext.h"
#include "gpurDevice.h"
#include "gpurError.h"
#include "gpurExecution.h"
#include "gpurFiniteDifference.h"
#include "gpurLaunch.h"
#include "gpurParallel.h"
#include "gpurProgram.h"
#include "gpurReduce.h"
#include "gpurRegistryTestKernels.h" // generated from registry/broken.cl
#include "gpurValidate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

namespace
{

std::vector<float>
RandomFloats(std::size_t n, unsigned seed)
{
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto & x : v)
    x = d(rng);
  return v;
}

std::shared_ptr<gpur::DeviceContext>
FirstContext()
{
  return gpur::DeviceContext::Get(gpur::SelectDevices("0").front());
}

} // namespace

TEST(Devices, ListsTwoPoclDevicesWithProperties)
{
  const auto & devices = gpur::ListDevices();
  ASSERT_GE(devices.size(), 2u) << "CTest sets POCL_DEVICES='pthread pthread'";
  for (const auto & d : devices)
  {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.globalMemory, 0u);
    EXPECT_GT(d.maxAllocation, 0u);
    EXPECT_GT(d.computeUnits, 0u);
    EXPECT_GE(d.maxWorkGroupSize, 1u);
    EXPECT_NE(d.Describe().find("fp64"), std::string::npos);
  }
}

TEST(Devices, SelectionGrammar)
{
  EXPECT_EQ(gpur::SelectDevices("all").size(), gpur::ListDevices().size());
  EXPECT_EQ(gpur::SelectDevices("1").front().index, 1u);
  EXPECT_EQ(gpur::SelectDevices("1,0").size(), 2u);
  EXPECT_EQ(gpur::SelectDevices("1,0")[0].index, 1u);
  EXPECT_EQ(gpur::SelectDevices("0,0").size(), 1u) << "repeats are dropped";
  EXPECT_EQ(gpur::SelectDevices("cpu").size(), 1u);
  EXPECT_EQ(gpur::SelectDevices("all-cpu").size(), gpur::ListDevices().size());
  EXPECT_EQ(gpur::SelectDevices("pthread").size(), 1u) << "name substring";
  EXPECT_EQ(gpur::SelectDevices("").size(), 1u);
  try
  {
    gpur::SelectDevices("no-such-device-xyz");
    FAIL() << "expected InvalidArgument";
  }
  catch (const gpur::InvalidArgument & e)
  {
    EXPECT_NE(std::string(e.what()).find("available devices"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gpur::SelectDevices("99"), gpur::InvalidArgument);
}

TEST(Devices, EnvironmentVariableSelectsTheDefault)
{
  setenv(gpur::DeviceEnvironmentVariable(), "1", 1);
  const auto selected = gpur::SelectDevices("");
  unsetenv(gpur::DeviceEnvironmentVariable());
  ASSERT_EQ(selected.size(), 1u);
  EXPECT_EQ(selected.front().index, 1u);
}

TEST(Backend, ResolutionAndParsing)
{
  gpur::ExecutionOptions o;
  o.backend = gpur::Backend::CPU;
  EXPECT_EQ(gpur::ResolveBackend(o, false).backend, gpur::Backend::CPU);
  o.backend = gpur::Backend::OpenCL;
  EXPECT_EQ(gpur::ResolveBackend(o, false).backend, gpur::Backend::OpenCL) << "a PoCL device is present";
  o.device = "1";
  EXPECT_EQ(gpur::ResolveBackend(o, false).device.index, 1u);
  o.backend = gpur::Backend::Auto; // a named device: OpenCL on it (the rest of Auto: gpurAutoBackendTest)
  EXPECT_EQ(gpur::ResolveBackend(o, false).device.index, 1u);
  o.device = "no-such-device-xyz";
  EXPECT_THROW(gpur::ResolveBackend(o, false), gpur::InvalidArgument);
  EXPECT_EQ(gpur::ParseBackend("OpenCL"), gpur::Backend::OpenCL);
  EXPECT_THROW(gpur::ParseBackend("cuda"), gpur::InvalidArgument);
}

TEST(Backend, DoubleWithoutFp64IsRefusedClearly)
{
  gpur::DeviceInfo fake = gpur::ListDevices().front();
  fake.fp64 = false;
  try
  {
    gpur::RequireDouble(fake, "TV denoising");
    FAIL() << "expected InvalidArgument";
  }
  catch (const gpur::InvalidArgument & e)
  {
    EXPECT_NE(std::string(e.what()).find("fp64"), std::string::npos) << e.what();
  }
}

TEST(ProgramCache, BuildsOncePerSourceAndOptions)
{
  auto ctx = FirstContext();
  const std::vector<gpur::KernelSource> sources = { gpur::CoreKernel("gpur_common.cl"),
                                                    gpur::CoreKernel("gpur_reduce.cl") };
  const unsigned before = ctx->BuildCount();
  ctx->Program(sources, "-DREAL=float -DREAL3=float3 -DGPUR_CACHE_TEST=1");
  EXPECT_EQ(ctx->BuildCount(), before + 1);
  ctx->Program(sources, "-DREAL=float -DREAL3=float3 -DGPUR_CACHE_TEST=1");
  EXPECT_EQ(ctx->BuildCount(), before + 1) << "second request must be a cache hit";
  ctx->Program(sources, "-DREAL=float -DREAL3=float3 -DGPUR_CACHE_TEST=2");
  EXPECT_EQ(ctx->BuildCount(), before + 2) << "other options, other program";
  EXPECT_EQ(gpur::DeviceContext::Get(ctx->Info()).get(), ctx.get()) << "one context per device per process";
}

TEST(ProgramCache, BrokenKernelThrowsWithTheBuildLog)
{
  auto ctx = FirstContext();
  try
  {
    std::ifstream file(GPUR_TEST_KERNEL_DIR "/broken.cl");
    std::stringstream text;
    text << file.rdbuf();
    ASSERT_FALSE(text.str().empty());
    ctx->Program({ { "broken.cl", text.str() } });
    FAIL() << "expected BuildError";
  }
  catch (const gpur::BuildError & e)
  {
    const std::string m = e.what();
    EXPECT_NE(m.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << m;
    EXPECT_NE(m.find("broken.cl"), std::string::npos) << m;
    EXPECT_NE(m.find("build log"), std::string::npos) << m;
    EXPECT_NE(m.find("undeclared_symbol_42"), std::string::npos) << "the compiler's message: " << m;
  }
}

TEST(KernelRegistry, DefinesMakeSeparateCachedVariants)
{
  auto ctx = FirstContext();
  auto spec = [](bool flag)
  {
    return gpur::ProgramSpec("registry test", false)
      .Core({ "gpur_common.cl", "gpur_reduce.cl" })
      .Define("GPUR_REGISTRY_TEST", flag)
      .Define("GPUR_REGISTRY_VALUE", "3");
  };
  EXPECT_EQ(spec(true).Options(), "-DREAL=float -DREAL3=float3 -DGPUR_REGISTRY_TEST -DGPUR_REGISTRY_VALUE=3");
  EXPECT_EQ(spec(false).Options(), "-DREAL=float -DREAL3=float3 -DGPUR_REGISTRY_VALUE=3");
  EXPECT_EQ(gpur::ProgramSpec("x", true).Options(), "-DREAL=double -DREAL3=double3 -DGPUR_DOUBLE");
  const unsigned before = ctx->BuildCount();
  gpur::BuildProgram(*ctx, spec(true));
  gpur::BuildProgram(*ctx, spec(false));
  gpur::BuildProgram(*ctx, spec(true));
  EXPECT_EQ(ctx->BuildCount(), before + 2) << "one build per option set, then the cache";
}

TEST(KernelRegistry, MissingKernelAndWrongArgumentsAreNamed)
{
  auto ctx = FirstContext();
  const gpur::Program program =
    gpur::BuildProgram(*ctx, gpur::ProgramSpec("registry test", false).Core({ "gpur_common.cl", "gpur_reduce.cl" }));
  try
  {
    program.MakeKernel("gpur_no_such_kernel");
    FAIL() << "a missing kernel was created";
  }
  catch (const gpur::OpenCLError & e)
  {
    const std::string m = e.what();
    EXPECT_EQ(e.Code(), CL_INVALID_KERNEL_NAME);
    for (const char * part :
         { "gpur_no_such_kernel", "gpur_common.cl", "gpur_reduce.cl", "-DREAL=float", "registry test" })
      EXPECT_NE(m.find(part), std::string::npos) << part << " in: " << m;
  }
  gpur::Kernel sum = program.MakeKernel("gpur_reduce_sum");
  EXPECT_GE(sum.WorkGroupLimit(), 1u);
  gpur::DeviceBuffer<float> x(*ctx, 16);
  try
  {
    sum.Set(x.Get(), cl_long(16)); // gpur_reduce_sum takes 4
    FAIL() << "a short argument list was accepted";
  }
  catch (const gpur::InvalidArgument & e)
  {
    const std::string m = e.what();
    EXPECT_NE(m.find("'gpur_reduce_sum'"), std::string::npos) << m;
    EXPECT_NE(m.find("takes 4 arguments, the host gave 2"), std::string::npos) << m;
  }
  EXPECT_THROW(gpur::BuildProgram(*ctx, gpur::ProgramSpec("registry test", false).Core({ "nope.cl" })),
               gpur::InvalidArgument);
}

TEST(KernelRegistry, OverrideFolderReachesTheRegistryAndBrokenFilesGiveTheLog)
{
  auto ctx = FirstContext();
  // A module with one embedded file (test/registry/broken.cl, which builds); the
  // override folder replaces it by the broken file of the same name.
  const gpur::KernelLookup lookup = gpur::kernels::registry::Find;
  EXPECT_NO_THROW(gpur::BuildProgram(*ctx, gpur::ProgramSpec("registry test", false).Module(lookup, { "broken.cl" }))
                    .MakeKernel("fine"));
  setenv(gpur::KernelDirectoryEnvironmentVariable(), GPUR_TEST_KERNEL_DIR, 1);
  try
  {
    gpur::BuildProgram(*ctx, gpur::ProgramSpec("registry test", false).Module(lookup, { "broken.cl" }));
    unsetenv(gpur::KernelDirectoryEnvironmentVariable());
    FAIL() << "the broken override built";
  }
  catch (const gpur::BuildError & e)
  {
    unsetenv(gpur::KernelDirectoryEnvironmentVariable());
    const std::string m = e.what();
    EXPECT_NE(m.find("broken.cl"), std::string::npos) << m;
    EXPECT_NE(m.find("build log"), std::string::npos) << m;
    EXPECT_NE(m.find("undeclared_symbol_42"), std::string::npos) << m;
  }
  EXPECT_THROW(gpur::BuildProgram(*ctx, gpur::ProgramSpec("registry test", false).Module(lookup, { "other.cl" })),
               gpur::InvalidArgument);
}

TEST(KernelSources, EnvironmentOverrideWins)
{
  const std::string dir = testing::TempDir();
  std::ofstream(dir + "/override_test.cl") << "// overridden";
  setenv(gpur::KernelDirectoryEnvironmentVariable(), dir.c_str(), 1);
  const auto overridden = gpur::ResolveKernelSource("override_test.cl", "// embedded");
  const auto missing = gpur::ResolveKernelSource("not_there.cl", "// embedded");
  unsetenv(gpur::KernelDirectoryEnvironmentVariable());
  EXPECT_EQ(overridden.text, "// overridden");
  EXPECT_EQ(missing.text, "// embedded");
  EXPECT_NE(gpur::CoreKernel("gpur_stencils.cl").text.find("gpur_grad_fwd"), std::string::npos);
  EXPECT_THROW(gpur::CoreKernel("nope.cl"), gpur::InvalidArgument);
}

TEST(KernelSources, OverrideFolderThatIsNotADirectoryIsRefused)
{
  // A folder that does not exist, and a file where a folder is expected: both named in the error.
  const std::string file = testing::TempDir() + "/not_a_folder.cl";
  std::ofstream(file) << "// a file";
  for (const std::string & dir : { testing::TempDir() + "/no_such_kernel_folder", file })
  {
    setenv(gpur::KernelDirectoryEnvironmentVariable(), dir.c_str(), 1);
    try
    {
      gpur::ResolveKernelSource("override_test.cl", "// embedded");
      unsetenv(gpur::KernelDirectoryEnvironmentVariable());
      ADD_FAILURE() << "an override folder '" << dir << "' that is not a directory was accepted";
    }
    catch (const gpur::InvalidArgument & e)
    {
      unsetenv(gpur::KernelDirectoryEnvironmentVariable());
      const std::string what = e.what();
      EXPECT_NE(what.find("ITKGPUR_KERNEL_DIR"), std::string::npos) << what;
      EXPECT_NE(what.find("'" + dir + "'"), std::string::npos) << what;
      EXPECT_NE(what.find("not a readable directory"), std::string::npos) << what;
    }
  }
  // Set but empty: no override.
  setenv(gpur::KernelDirectoryEnvironmentVariable(), "", 1);
  EXPECT_EQ(gpur::ResolveKernelSource("override_test.cl", "// embedded").text, "// embedded");
  unsetenv(gpur::KernelDirectoryEnvironmentVariable());
}

TEST(Buffers, RoundTripFloatAndDouble)
{
  auto ctx = FirstContext();
  const auto host = RandomFloats(10007, 1);
  gpur::DeviceBuffer<float> b(*ctx, host.size());
  b.Upload(ctx->Queue(), host);
  EXPECT_EQ(b.Download(ctx->Queue()), host);
  std::vector<float> part(10);
  b.Download(ctx->Queue(), part.data(), 10, 500);
  EXPECT_EQ(part[3], host[503]);
  EXPECT_THROW(b.Download(ctx->Queue(), part.data(), 10, host.size() - 5), gpur::InvalidArgument);

  std::vector<double> hd(host.begin(), host.end());
  gpur::DeviceBuffer<double> bd(*ctx, hd.size());
  bd.Upload(ctx->Queue(), hd);
  EXPECT_EQ(bd.Download(ctx->Queue()), hd);
  EXPECT_THROW(gpur::DeviceBuffer<float>(*ctx, 0), gpur::InvalidArgument);
}

TEST(Buffers, OversizedAllocationIsRefusedClearly)
{
  auto ctx = FirstContext();
  const std::size_t tooMany = ctx->Info().maxAllocation / sizeof(float) + 1;
  try
  {
    gpur::DeviceBuffer<float> b(*ctx, tooMany);
    FAIL() << "expected InvalidArgument";
  }
  catch (const gpur::InvalidArgument & e)
  {
    EXPECT_NE(std::string(e.what()).find("largest allocation"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ctx->CheckMemory(ctx->Info().globalMemory + 1, 16, "test job"), gpur::InvalidArgument);
}

TEST(Reductions, MatchHostSumsInDouble)
{
  auto ctx = FirstContext();
  const std::size_t n = 1000003;
  const auto x = RandomFloats(n, 2), y = RandomFloats(n, 3);
  gpur::DeviceBuffer<float> bx(*ctx, n), by(*ctx, n);
  bx.Upload(ctx->Queue(), x);
  by.Upload(ctx->Queue(), y);
  double sum = 0, dot = 0, sq = 0, mx = -1e30;
  for (std::size_t i = 0; i < n; ++i)
  {
    sum += x[i];
    dot += double(x[i]) * y[i];
    sq += double(x[i]) * x[i];
    mx = std::max(mx, double(x[i]));
  }
  gpur::Reducer<float> r(*ctx);
  EXPECT_NEAR(r.Sum(bx, n), sum, 1e-6 * sq);
  EXPECT_NEAR(r.Dot(bx, by, n), dot, 1e-6 * sq);
  EXPECT_NEAR(r.SumOfSquares(bx, n), sq, 1e-6 * sq);
  EXPECT_EQ(r.Max(bx, n), mx);
  EXPECT_NEAR(r.Sum(bx, 7), std::accumulate(x.begin(), x.begin() + 7, 0.0), 1e-6) << "fewer items than a group";
}

TEST(Stencils, DeviceGradientAndDivergenceAreAdjointAndMatchTheCPU)
{
  // Non-cubic and anisotropic, to catch axis mix-ups.
  const gpur::Grid grid = gpur::MakeGrid3D(37, 23, 11, 0.7, 1.3, 2.1);
  const std::size_t n = grid.Count();
  auto ctx = FirstContext();
  const auto u = RandomFloats(n, 4), px = RandomFloats(n, 5), py = RandomFloats(n, 6), pz = RandomFloats(n, 7);
  const gpur::Program program =
    gpur::BuildProgram(*ctx, gpur::ProgramSpec("stencil test", false).Core({ "gpur_common.cl", "gpur_stencils.cl" }));
  gpur::DeviceBuffer<float> bu(*ctx, n), bpx(*ctx, n), bpy(*ctx, n), bpz(*ctx, n), gx(*ctx, n), gy(*ctx, n),
    gz(*ctx, n), div(*ctx, n);
  bu.Upload(ctx->Queue(), u);
  bpx.Upload(ctx->Queue(), px);
  bpy.Upload(ctx->Queue(), py);
  bpz.Upload(ctx->Queue(), pz);
  const auto range = gpur::MakeImageRange(grid, ctx->Info());
  const auto ih = gpur::InverseSpacing<float>(grid);
  const cl_int nx = 37, ny = 23, nz = 11;
  gpur::Kernel grad = program.MakeKernel("gpur_gradient");
  grad.Set(bu.Get(), gx.Get(), gy.Get(), gz.Get(), nx, ny, nz, ih);
  cl::Event gradEvent;
  grad.Enqueue(ctx->Queue(), range.global, range.local, &gradEvent);
  program.MakeKernel("gpur_divergence")
    .Launch(ctx->Queue(), range, bpx.Get(), bpy.Get(), bpz.Get(), div.Get(), nx, ny, nz, ih);
  const auto hgx = gx.Download(ctx->Queue()), hgy = gy.Download(ctx->Queue()), hgz = gz.Download(ctx->Queue());
  const auto hdiv = div.Download(ctx->Queue());
  EXPECT_GT(gpur::EventSeconds(gradEvent), 0.0) << "profiling events give kernel times";

  double lhs = 0, rhs = 0, scale = 0, cpuDiff = 0;
  const gpur::StencilGeometry<float> g(grid);
  for (std::size_t z = 0, i = 0; z < 11; ++z)
    for (std::size_t y = 0; y < 23; ++y)
      for (std::size_t x = 0; x < 37; ++x, ++i)
      {
        lhs += double(hgx[i]) * px[i] + double(hgy[i]) * py[i] + double(hgz[i]) * pz[i];
        rhs += double(u[i]) * hdiv[i];
        scale += std::abs(double(hgx[i]) * px[i]) + std::abs(double(u[i]) * hdiv[i]);
        const auto cg = gpur::ForwardGradient(u.data(), g, x, y, z, i);
        const float cd = gpur::BackwardDivergence(px.data(), py.data(), pz.data(), g, x, y, z, i);
        cpuDiff = std::max({ cpuDiff,
                             std::abs(double(cg[0]) - hgx[i]),
                             std::abs(double(cg[1]) - hgy[i]),
                             std::abs(double(cg[2]) - hgz[i]),
                             std::abs(double(cd) - hdiv[i]) });
      }
  EXPECT_LT(std::abs(lhs + rhs) / scale, 1e-5) << "<grad u, p> = -<u, div p>";
  EXPECT_LT(cpuDiff, 1e-6) << "device and CPU stencils agree";
}

TEST(Stencils, CPUAdjointnessInDoubleIncluding2D)
{
  for (const gpur::Grid & grid : { gpur::MakeGrid2D(31, 17, 0.5, 1.7), gpur::MakeGrid3D(9, 8, 7, 1.0, 0.3, 2.0) })
  {
    const std::size_t n = grid.Count();
    std::mt19937 rng(8);
    std::normal_distribution<double> d;
    std::vector<double> u(n), px(n), py(n), pz(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      u[i] = d(rng);
      px[i] = d(rng);
      py[i] = d(rng);
      pz[i] = d(rng);
    }
    const gpur::StencilGeometry<double> g(grid);
    double lhs = 0, rhs = 0;
    for (std::size_t z = 0, i = 0; z < grid.size[2]; ++z)
      for (std::size_t y = 0; y < grid.size[1]; ++y)
        for (std::size_t x = 0; x < grid.size[0]; ++x, ++i)
        {
          const auto gr = gpur::ForwardGradient(u.data(), g, x, y, z, i);
          lhs += gr[0] * px[i] + gr[1] * py[i] + gr[2] * pz[i];
          rhs += u[i] * gpur::BackwardDivergence(px.data(), py.data(), pz.data(), g, x, y, z, i);
        }
    EXPECT_NEAR(lhs, -rhs, 1e-10 * std::abs(lhs)) << grid.ToString();
  }
}

TEST(MultiDevice, TwoDevicesComputeAtOnce)
{
  const auto devices = gpur::SelectDevices("0,1");
  ASSERT_EQ(devices.size(), 2u);
  const std::size_t n = 2000000;
  const auto x = RandomFloats(n, 9);
  double expected = 0;
  for (float v : x)
    expected += v;
  double results[2] = { 0, 0 };
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k)
  {
    threads.emplace_back(
      [&, k]
      {
        auto ctx = gpur::DeviceContext::Get(devices[k]);
        gpur::DeviceBuffer<float> b(*ctx, n);
        b.Upload(ctx->Queue(1), x);
        gpur::Reducer<float> r(*ctx);
        for (int rep = 0; rep < 5; ++rep)
          results[k] = r.Sum(b, n);
      });
  }
  for (auto & t : threads)
    t.join();
  EXPECT_NE(gpur::DeviceContext::Get(devices[0]).get(), gpur::DeviceContext::Get(devices[1]).get());
  EXPECT_NEAR(results[0], expected, 1e-3);
  EXPECT_NEAR(results[1], expected, 1e-3);
}

TEST(Parallel, SumIsIndependentOfTheThreadCount)
{
  auto body = [](std::size_t b, std::size_t e, double * acc)
  {
    for (std::size_t i = b; i < e; ++i)
      acc[0] += 1.0 / (1.0 + double(i));
  };
  const auto one = gpur::ParallelSum(gpur::MakeThreadParallelFor(1), 100000, 1, body);
  const auto three = gpur::ParallelSum(gpur::MakeThreadParallelFor(3), 100000, 1, body);
  EXPECT_EQ(one[0], three[0]);
  EXPECT_NEAR(one[0], std::log(100000.0) + 0.5772156649, 1e-4);
}

TEST(Parallel, WorkerExceptionIsCarriedBackToTheCaller)
{
  // Chunk 2 of 4 runs on a worker thread or on the caller; either way the
  // exception must reach the caller (a worker's would otherwise end in std::terminate).
  for (unsigned threads : { 2u, 4u, 8u })
  {
    const auto loop = gpur::MakeThreadParallelFor(threads);
    EXPECT_THROW(loop(100,
                      [](std::size_t begin, std::size_t)
                      {
                        if (begin >= 50)
                          throw gpur::InvalidArgument("chunk at " + std::to_string(begin));
                      }),
                 gpur::InvalidArgument)
      << threads;
    std::atomic<std::size_t> covered{ 0 }; // the pool is still usable afterwards
    loop(100, [&](std::size_t b, std::size_t e) { covered += e - b; });
    EXPECT_EQ(covered.load(), 100u);
  }
}

TEST(Parallel, UserLoopExceptionsAreCarriedBackByResolveParallelFor)
{
  // A loop like ITK's that runs the body on its own threads and does not catch.
  const gpur::ParallelForFunction raw = [](std::size_t n, const gpur::RangeBody & body)
  {
    std::thread t([&] { body(n / 2, n); });
    body(0, n / 2);
    t.join();
  };
  const auto loop = gpur::ResolveParallelFor(raw);
  EXPECT_THROW(loop(10,
                    [](std::size_t begin, std::size_t)
                    {
                      if (begin > 0)
                        throw std::runtime_error("worker");
                    }),
               std::runtime_error);
  EXPECT_THROW(gpur::RunParallel(raw,
                                 10,
                                 [](std::size_t begin, std::size_t)
                                 {
                                   if (begin > 0)
                                     throw std::runtime_error("worker");
                                 }),
               std::runtime_error);
  EXPECT_TRUE(static_cast<bool>(gpur::ResolveParallelFor(gpur::ParallelForFunction())));
}

TEST(Parallel, NestedAndConcurrentLoopsCoverEveryIndexOnce)
{
  // Two callers (e.g. two engines run from two Python threads) each running
  // loops whose bodies run loops: every index is visited exactly once and
  // nothing deadlocks, whatever the pool's size.
  const std::size_t outer = 16, inner = 1000;
  std::vector<std::atomic<int>> hits[2] = { std::vector<std::atomic<int>>(outer * inner),
                                            std::vector<std::atomic<int>>(outer * inner) };
  auto run = [&](int k)
  {
    const auto loop = gpur::MakeThreadParallelFor(4);
    for (int rep = 0; rep < 20; ++rep)
      loop(outer,
           [&](std::size_t o0, std::size_t o1)
           {
             for (std::size_t o = o0; o < o1; ++o)
               loop(inner,
                    [&](std::size_t i0, std::size_t i1)
                    {
                      for (std::size_t i = i0; i < i1; ++i)
                        ++hits[k][o * inner + i];
                    });
           });
  };
  std::thread other(run, 1);
  run(0);
  other.join();
  for (int k = 0; k < 2; ++k)
    for (const auto & h : hits[k])
      ASSERT_EQ(h.load(), 20);
}

TEST(Parallel, ChunksDependOnTheThreadCountOnly)
{
  // The documented promise: min(threads, n) contiguous chunks, the same on any machine.
  for (unsigned threads : { 1u, 3u, 7u, 64u })
  {
    std::mutex mutex;
    std::vector<std::pair<std::size_t, std::size_t>> chunks;
    gpur::MakeThreadParallelFor(threads)(10,
                                         [&](std::size_t b, std::size_t e)
                                         {
                                           const std::lock_guard<std::mutex> lock(mutex);
                                           chunks.emplace_back(b, e);
                                         });
    std::sort(chunks.begin(), chunks.end());
    const std::size_t expected = std::min<std::size_t>(threads, 10);
    ASSERT_EQ(chunks.size(), expected) << threads;
    for (std::size_t c = 0; c < expected; ++c)
      EXPECT_EQ(chunks[c], std::make_pair(10 * c / expected, 10 * (c + 1) / expected)) << threads;
  }
}

TEST(Validation, GridsAndValues)
{
  EXPECT_THROW(gpur::MakeGrid2D(0, 5).Validate(), gpur::InvalidArgument);
  EXPECT_THROW(gpur::MakeGrid3D(1, 1, 1).Validate(), gpur::InvalidArgument);
  EXPECT_THROW(gpur::MakeGrid2D(4, 4, 0.0, 1.0).Validate(), gpur::InvalidArgument);
  EXPECT_THROW(gpur::MakeGrid2D(4, 4, -1.0, 1.0).Validate(), gpur::InvalidArgument);
  EXPECT_NO_THROW(gpur::MakeGrid2D(2, 1).Validate());
  const float bad[3] = { 1.0f, std::nanf(""), 2.0f };
  EXPECT_THROW(gpur::RequireFinite(bad, 3, "input"), gpur::InvalidArgument);
  EXPECT_NO_THROW(gpur::RequireFinite(bad, 1, "input"));
}

TEST(Errors, OpenCLCodesAreNamed)
{
  EXPECT_STREQ(gpur::CLErrorName(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  try
  {
    gpur::CheckCL(CL_INVALID_KERNEL_NAME, "clCreateKernel");
    FAIL();
  }
  catch (const gpur::OpenCLError & e)
  {
    EXPECT_EQ(std::string(e.what()), "clCreateKernel failed: CL_INVALID_KERNEL_NAME (-46)");
    EXPECT_EQ(e.Code(), CL_INVALID_KERNEL_NAME);
  }
}
