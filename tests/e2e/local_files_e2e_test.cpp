// What burst reads and keeps on the user's machine, through the real binary: `burst validate`
// refuses a device, fifo, directory or huge file at once (exit 2); an existing state dir left
// open to other local users is made private when burst starts.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

unsigned mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(E2ELocalFiles, ValidateRefusesWhatIsNotASmallRegularFile) {
  BurstHome home;
  const std::string fifo = home.work() + "/fifo.yaml", big = home.work() + "/big.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream(big) << "name: x\nrun: echo hi\n# " << std::string(2 << 20, 'x') << "\n";
  const auto t0 = std::chrono::steady_clock::now();
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"validate", "/dev/zero"}, &out, &err), 2);
  EXPECT_EQ(err, "/dev/zero: not a regular file\n");
  EXPECT_EQ(run_burst(home, {"validate", fifo}, &out, &err), 2);
  EXPECT_EQ(err, fifo + ": not a regular file\n");
  EXPECT_EQ(run_burst(home, {"validate", home.work()}, &out, &err), 2);
  EXPECT_EQ(err, home.work() + ": not a regular file\n");
  EXPECT_EQ(run_burst(home, {"validate", big}, &out, &err), 2);
  EXPECT_EQ(err, big + ": too large (" + std::to_string(std::filesystem::file_size(big)) +
                     " bytes; the limit is 1 MiB)\n");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(E2ELocalFiles, AnOpenStateDirIsMadePrivateOnStart) {
  BurstHome home;
  namespace fs = std::filesystem;
  fs::create_directories(home.state() + "/logs");
  fs::create_directories(home.state() + "/reports");
  std::ofstream(home.state() + "/logs/old.log") << "a job's output\n";
  std::ofstream(home.state() + "/reports/old.json") << "{}\n";
  for (const std::string& p : {home.state(), home.state() + "/logs", home.state() + "/reports"})
    ASSERT_EQ(::chmod(p.c_str(), 0755), 0);
  for (const std::string& p : {home.state() + "/logs/old.log", home.state() + "/reports/old.json"})
    ASSERT_EQ(::chmod(p.c_str(), 0644), 0);
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"jobs"}, &out, &err), 0) << err;
  EXPECT_EQ(mode_of(home.state()), 0700u);
  EXPECT_EQ(mode_of(home.state() + "/logs"), 0700u);
  EXPECT_EQ(mode_of(home.state() + "/reports"), 0700u);
  EXPECT_EQ(mode_of(home.state() + "/logs/old.log"), 0600u);
  EXPECT_EQ(mode_of(home.state() + "/reports/old.json"), 0600u);
}

}  // namespace
}  // namespace burst::testing
