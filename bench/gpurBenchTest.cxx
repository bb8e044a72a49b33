// SPDX-License-Identifier: Apache-2.0
// gpur::bench::TimeIterations on stand-in runs of known cost: the per-iteration
// time from t(2N) - t(N), and what it does when 2N is timed no slower than N;
// gpur::bench::OutputFile: a file appears under its final name only complete.
#include "gpurBench.h"
#include "gpurError.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace
{

namespace fs = std::filesystem;
using gpur::bench::OnUntimed;
using gpur::bench::OutputFile;
using gpur::bench::TimeIterations;

/** A fresh folder for one test, removed with its files at the end. */
class BenchOutput : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    const auto * test = ::testing::UnitTest::GetInstance()->current_test_info();
    m_Folder =
      fs::temp_directory_path() / ("gpurBenchTest-" + std::string(test->name()) + "-" + std::to_string(getpid()));
    fs::remove_all(m_Folder);
    fs::create_directories(m_Folder);
  }

  void
  TearDown() override
  {
    fs::remove_all(m_Folder);
  }

  /** The names of the files in the folder, sorted, joined by spaces. */
  std::string
  Listing() const
  {
    std::vector<std::string> names;
    for (const auto & entry : fs::directory_iterator(m_Folder))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    std::string joined;
    for (const auto & name : names)
      joined += (joined.empty() ? "" : " ") + name;
    return joined;
  }

  fs::path m_Folder;
};

std::string
ReadAll(const fs::path & path)
{
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(BenchTiming, DifferenceRemovesTheFixedCost)
{
  // 0.25 s of set-up and 0.01 s per iteration: N doubles from 4 until t(2N) - t(N) >= 0.5 s, i.e. N = 64.
  const auto t = TimeIterations([](unsigned n) { return 0.25 + 0.01 * n; }, 4, 0, 0.5, "linear");
  EXPECT_TRUE(t.differenced);
  EXPECT_EQ(t.iterations, 64u);
  EXPECT_NEAR(t.secondsPerIteration, 0.01, 1e-12);
  EXPECT_NEAR(t.fixedSeconds, 0.25, 1e-12);
}

TEST(BenchTiming, NoSlowerAt2NThrowsOrReportsTheTotalTime)
{
  // Noise: every run takes 1 s whatever N.
  const auto flat = [](unsigned) { return 1.0; };
  EXPECT_THROW(TimeIterations(flat, 8, 8, 0.0, "flat"), gpur::Error);
  const auto t = TimeIterations(flat, 8, 8, 0.0, "flat", OnUntimed::TotalTime);
  EXPECT_FALSE(t.differenced);
  EXPECT_EQ(t.iterations, 8u);
  EXPECT_DOUBLE_EQ(t.secondsPerIteration, 1.0 / 16); // t(2N) / 2N, set-up included
  EXPECT_EQ(t.fixedSeconds, 0.0);
}

TEST_F(BenchOutput, CommittedFileAppearsWithItsContentAndNoTemporary)
{
  const std::string path = (m_Folder / "result.json").string();
  {
    OutputFile file(path);
    EXPECT_EQ(file.Path(), path);
    EXPECT_EQ(file.TemporaryPath(), path + ".partial-" + std::to_string(getpid()));
    EXPECT_EQ(Listing(), "result.json.partial-" + std::to_string(getpid())); // only the temporary meanwhile
    file.Stream() << "{ \"a\": 1 }\n";
    file.Commit();
    EXPECT_THROW(file.Commit(), gpur::Error); // once only
  }
  EXPECT_EQ(Listing(), "result.json");
  EXPECT_EQ(ReadAll(path), "{ \"a\": 1 }\n");

  // Over an existing file, and raw bytes through WriteBinaryFile.
  const std::vector<double> values{ 1.5, -2.0, 3.25 };
  gpur::bench::WriteBinaryFile(path, values);
  EXPECT_EQ(Listing(), "result.json");
  EXPECT_EQ(ReadAll(path), std::string(reinterpret_cast<const char *>(values.data()), sizeof(double) * values.size()));
}

TEST_F(BenchOutput, UncommittedFileLeavesNothing)
{
  const std::string path = (m_Folder / "result.json").string();
  EXPECT_THROW(
    {
      OutputFile file(path);
      file.Stream() << "{ \"runs\": [";
      throw std::runtime_error("a run failed");
    },
    std::runtime_error);
  EXPECT_EQ(Listing(), "");

  // An existing file of that name stays as it was.
  gpur::bench::WriteBinaryFile(path, std::vector<char>{ 'o', 'l', 'd' });
  {
    OutputFile file(path);
    file.Stream() << "new";
  }
  EXPECT_EQ(Listing(), "result.json");
  EXPECT_EQ(ReadAll(path), "old");
}

TEST_F(BenchOutput, UnwritablePathThrowsAtConstruction)
{
  const fs::path missing = m_Folder / "no such folder" / "result.json";
  try
  {
    OutputFile file(missing.string());
    FAIL() << "no exception";
  }
  catch (const gpur::Error & e)
  {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  EXPECT_THROW(OutputFile(m_Folder.string()), gpur::Error); // a folder: the rename would fail at the end
  EXPECT_THROW(OutputFile(""), gpur::InvalidArgument);
  EXPECT_EQ(Listing(), "");
}

} // namespace
