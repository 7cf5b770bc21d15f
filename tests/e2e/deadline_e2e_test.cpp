// Time limits before the run step (issue 29, item 3), end to end: the real `burst run` on the
// local cloud, whose pod goes silent during the code sync (the hostile-pod shim,
// BURST_TEST_POD_SHIM, docs/testing.md: the sync command is answered with its first line, then
// the connection is held open in silence). budget.deadline ends the job within the deadline plus
// a few seconds whatever the pod does, and the report names the limit and the phase it ran out
// in; budget.max_runtime limits the run step only, so there the no-progress limit
// (config.yaml no_progress_seconds) ends the job. The local cloud's own state judges the pod gone.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

namespace fs = std::filesystem;
using DeadlineClock = std::chrono::steady_clock;

constexpr const char* kSilentSync = "if is_sync; then mark silent; echo T1; hang; fi";

struct SilentSyncRun {
  int rc = -1;
  double seconds = 0;  // from the start of `burst run` to its exit
  std::string out, err;
  nlohmann::json report;
};

// `burst run` of a job with `budget` whose pod goes silent in the code sync; waits at most
// `timeout_s`, then kills burst (the failure is recorded) and reaps.
SilentSyncRun run_with_silent_sync(const BurstHome& home, const std::string& budget,
                                   int timeout_s) {
  const std::string shim_dir = home.root() + "/shim";
  fs::create_directories(shim_dir);
  write_pod_shim(shim_dir + "/pod-shim.sh", kSilentSync);
  home.write("app/main.sh", "echo hello\n");
  const std::string spec =
      home.write("job.yaml",
                 "version: 1\nname: deadline\nvolume: {name: deadline-vol}\ncode: {dir: app}\n"
                 "resources: {providers: [local]}\n" +
                     budget + "run: |\n  echo run-start\n");
  const auto start = DeadlineClock::now();
  BurstProcess p(home, {"run", spec, "--yes"},
                 {{"BURST_TEST_POD_SHIM", shim_dir + "/pod-shim.sh"}});
  SilentSyncRun r;
  r.rc = p.wait(timeout_s);
  r.seconds = std::chrono::duration<double>(DeadlineClock::now() - start).count();
  r.out = p.out();
  r.err = p.err();
  EXPECT_TRUE(fs::exists(shim_dir + "/silent")) << "the pod never went silent\n" << r.out << r.err;
  if (r.rc == -1) {
    ADD_FAILURE() << "burst still running after " << timeout_s << " s\n" << r.out << r.err;
    kill(p.pid(), SIGKILL);
    p.wait(10);
    run_burst(home, {"reap"}, nullptr, nullptr);
    return r;
  }
  for (const auto& f : files_under(home.state() + "/reports"))
    if (f.size() > 5 && f.substr(f.size() - 5) == ".json")
      r.report = nlohmann::json::parse(read_file(f));
  return r;
}

void expect_pod_gone(const BurstHome& home, const SilentSyncRun& r) {
  auto ids = pod_ids_in(r.out + r.err);
  ASSERT_EQ(ids.size(), 1u) << r.out << r.err;
  EXPECT_TRUE(pod_processes(ids[0]).empty()) << "pod " << ids[0] << " still has processes";
  EXPECT_FALSE(fs::exists(home.state() + "/local/pods/" + ids[0])) << "pod " << ids[0] << " left";
  EXPECT_NE(r.out.find("gpu pod " + ids[0] + " deleted (confirmed)"), std::string::npos) << r.out;
}

TEST(E2EDeadline, DeadlineEndsAJobWhosePodIsSilentDuringSyncWithin25Seconds) {
  BurstHome home;
  SilentSyncRun r = run_with_silent_sync(home, "budget: {deadline: 20s}\n", 60);
  ASSERT_NE(r.rc, -1);
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_LT(r.seconds, 25.0) << r.out << r.err;
  expect_pod_gone(home, r);
  ASSERT_TRUE(r.report.contains("job")) << r.out << r.err;
  EXPECT_EQ(r.report["job"]["state"], "failed");
  EXPECT_EQ(r.report["job"]["error"], "sync: stopped: budget.deadline (20 s) reached")
      << r.report["job"].dump(2);
  // The typed fact: which limit, its value, the phase that ran out.
  EXPECT_EQ(r.report["stopped_by"],
            (nlohmann::json{{"limit", "budget.deadline"}, {"seconds", 20}, {"phase", "sync"}}))
      << r.report.dump(2);
  EXPECT_EQ(r.out.find("==> setup"), std::string::npos) << "no phase starts past the deadline";
}

// budget.max_runtime is the run step's limit (docs/pipeline-spec.md): a sync that never reaches
// the run step is ended by the no-progress limit, here set to 5 s in config.yaml.
TEST(E2EDeadline, MaxRuntimeLeavesASilentSyncToTheNoProgressLimit) {
  BurstHome home;
  fs::create_directories(home.root() + "/config");
  std::ofstream(home.root() + "/config/config.yaml") << "no_progress_seconds: 5\n";
  SilentSyncRun r = run_with_silent_sync(home, "budget: {max_runtime: 10s}\n", 60);
  ASSERT_NE(r.rc, -1);
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_LT(r.seconds, 5 + 15.0) << r.out << r.err;
  expect_pod_gone(home, r);
  ASSERT_TRUE(r.report.contains("job")) << r.out << r.err;
  const std::string error = r.report["job"]["error"];
  EXPECT_EQ(error.rfind("sync: ", 0), 0u) << error;
  EXPECT_NE(error.find("no bytes from the pod for 5 s"), std::string::npos) << error;
  EXPECT_EQ(r.report["stopped_by"],
            (nlohmann::json{{"limit", "no_progress_seconds"}, {"seconds", 5}, {"phase", "sync"}}))
      << r.report.dump(2);
}

}  // namespace
}  // namespace burst::testing
