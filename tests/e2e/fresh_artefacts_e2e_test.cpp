// Fresh artefacts only (issue 21): the volume persists between runs, so a second run's pull must
// take only what that run wrote. Ctrl-C on the second run brings back its own partial output and
// never the first run's files, which are still on the volume.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

namespace fs = std::filesystem;

std::string spec_text(const std::string& run) {
  return "name: fresh\nvolume: {name: fresh-vol}\nresources: {providers: [local]}\nrun: |\n" + run +
         "artefacts:\n  - {remote: out/*.txt, local: ./got}\n";
}

TEST(E2EFreshArtefacts, CtrlCOnASecondRunNeverBringsBackTheFirstRunsFiles) {
  BurstHome home;
  std::string out, err;
  const std::string first =
      home.write("first.yaml", spec_text("  mkdir -p out\n  echo one > out/first.txt\n"));
  ASSERT_EQ(run_burst(home, {"run", first}, &out, &err), 0) << out << err;
  ASSERT_EQ(read_file(home.work() + "/got/first.txt"), "one\n");
  fs::remove_all(home.work() + "/got");
  // File times have one-second resolution: let the clock pass the first run's last second.
  const auto written = std::chrono::system_clock::now();
  while (std::chrono::system_clock::now() - written < std::chrono::milliseconds(1100))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));

  const std::string second = home.write(
      "second.yaml",
      spec_text("  mkdir -p out\n  echo two > out/second.txt\n  echo started\n  sleep 120\n"));
  BurstProcess p(home, {"run", second});
  ASSERT_TRUE(p.wait_for_stdout("| started")) << p.out() << p.err();
  kill(p.pid(), SIGINT);
  EXPECT_EQ(p.wait(60), 130) << p.out() << p.err();
  EXPECT_EQ(read_file(home.work() + "/got/second.txt"), "two\n") << p.out();
  EXPECT_FALSE(fs::exists(home.work() + "/got/first.txt"))
      << "the first run's file came back as the second run's:\n"
      << p.out();
  EXPECT_NE(p.out().find("1 older than this job left on the pod"), std::string::npos) << p.out();
}

}  // namespace
}  // namespace burst::testing
