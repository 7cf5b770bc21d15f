// Running on this machine is a choice the user makes (issue 29, item 5), through the real binaries
// on the local cloud: a plan that lands on the local provider without the user naming it is said
// in one line and refused with --yes or without a terminal (nothing created, nothing run), a
// SkyPilot task file (which cannot name it) included; `--provider local` runs it, in a pod whose
// HOME is its own; burstd fails such a job with a clear error before anything is created.
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

namespace fs = std::filesystem;

std::string local_choice_user() {
  passwd* pw = getpwuid(geteuid());
  return pw ? pw->pw_name : "";
}

// A spec (or SkyPilot task) whose run step leaves a mark outside the pod: proof that it ran.
std::string marking_run(const BurstHome& home) {
  return "  touch '" + home.root() + "/RAN'\n  echo \"pod-home=$HOME\"\n";
}

// Nothing was created: no job, no pod, the run step never ran.
void expect_nothing_ran_here(const BurstHome& home) {
  EXPECT_FALSE(fs::exists(home.root() + "/RAN")) << "the run step ran";
  std::string jobs;
  EXPECT_EQ(run_burst(home, {"jobs", "--json"}, &jobs, nullptr), 0);
  EXPECT_EQ(nlohmann::json::parse(jobs, nullptr, false), nlohmann::json::array()) << jobs;
  std::error_code ec;
  EXPECT_TRUE(!fs::exists(home.state() + "/local/pods") ||
              fs::is_empty(home.state() + "/local/pods", ec))
      << "a pod was created";
}

void expect_local_refused(const BurstHome& home, int rc, const std::string& err) {
  EXPECT_EQ(rc, 2) << err;
  EXPECT_NE(err.find("burst: this job runs on THIS machine as " + local_choice_user() +
                     ", no GPU (the local provider, which you did not name)\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("pass --provider local to run it here"), std::string::npos) << err;
  expect_nothing_ran_here(home);
}

TEST(E2ELocalChoice, AnUnnamedLocalPlanIsRefusedWithYesAndWithoutATerminal) {
  BurstHome home;
  const std::string spec =
      home.write("job.yaml", "version: 1\nname: unnamed\nrun: |\n" + marking_run(home));
  std::string out, err;
  expect_local_refused(home, run_burst(home, {"run", spec, "--yes"}, &out, &err), err);
  // No --yes, but no terminal to ask on (stdin is /dev/null): the same.
  expect_local_refused(home, run_burst(home, {"run", spec}, &out, &err), err);
}

TEST(E2ELocalChoice, ASkyPilotTaskNeverRunsHereUnlessProviderLocalIsGiven) {
  BurstHome home;
  // `cloud: local` is no SkyPilot cloud: it does not count as the user's choice either.
  const std::string task = home.write(
      "task.yaml", "name: sky\nresources:\n  cloud: local\nrun: |\n" + marking_run(home));
  std::string out, err;
  expect_local_refused(home, run_burst(home, {"run", task, "--yes"}, &out, &err), err);
  ASSERT_EQ(run_burst(home, {"run", task, "--yes", "--provider", "local"}, &out, &err), 0)
      << out << err;
  EXPECT_TRUE(fs::exists(home.root() + "/RAN"));
}

// Named, it runs; its pod's HOME is inside the pod's own dir, never the user's.
TEST(E2ELocalChoice, ANamedLocalJobRunsWithThePodsOwnHome) {
  BurstHome home;
  const std::string spec =
      home.write("job.yaml",
                 "version: 1\nname: named\nresources: {providers: [local]}\n"
                 "run: |\n" +
                     marking_run(home) + "  cd \"$HOME\" && touch home-mark\n");
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"run", spec, "--yes"}, &out, &err), 0) << out << err;
  EXPECT_EQ(err.find("THIS machine"), std::string::npos) << "named: no question, no line\n" << err;
  auto pods = pod_ids_in(out);
  ASSERT_EQ(pods.size(), 1u) << out;
  const std::string pod_home = home.state() + "/local/pods/" + pods[0] + "/home";
  EXPECT_NE(out.find("| pod-home=" + pod_home + "\n"), std::string::npos) << out;
  const char* user_home = getenv("HOME");
  ASSERT_NE(user_home, nullptr);
  EXPECT_FALSE(fs::exists(std::string(user_home) + "/home-mark")) << "written in the user's HOME";
}

// burstd has no one to ask: a job whose plan lands here unnamed fails before anything exists.
TEST(E2ELocalChoice, BurstdFailsAnUnnamedLocalJobWithoutRunningIt) {
  BurstHome home;
  fs::create_directories(home.root() + "/config");
  std::ofstream(home.root() + "/config/burstd.yaml") << "max_concurrent_jobs: 1\n";
  const std::string log = home.root() + "/burstd.err";
  const pid_t daemon = spawn_logged({BURSTD_BINARY}, home.env(), log, log);
  ASSERT_GT(daemon, 0);
  bool ready = false;
  for (int i = 0; i < 200 && !ready; ++i) {
    ready = fs::exists(home.state() + "/burstd.sock") &&
            run_burst(home, {"status"}, nullptr, nullptr) == 0;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(ready) << read_file(log);
  const std::string spec =
      home.write("job.yaml", "version: 1\nname: unnamed\nrun: |\n" + marking_run(home));
  std::string out;
  ASSERT_EQ(run_burst(home, {"submit", spec}, &out, nullptr), 0) << out;
  const std::string id = out.substr(4, out.find(" queued") - 4);
  nlohmann::json job;
  for (int i = 0; i < 300; ++i) {
    std::string status;
    run_burst(home, {"status", id, "--json"}, &status, nullptr);
    job = nlohmann::json::parse(status, nullptr, false);
    const std::string state = job.is_object() ? job.value("state", "") : "";
    if (state != "" && state != "queued" && state != "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(daemon, SIGTERM);
  int st = 0;
  waitpid(daemon, &st, 0);
  EXPECT_EQ(job.value("state", ""), "failed") << job.dump();
  EXPECT_NE(job.value("error", "")
                .find("not run: the plan puts this job on burstd's machine (the "
                      "local provider: it runs on THIS machine as " +
                      local_choice_user() + ", no GPU) and the spec does not name it"),
            std::string::npos)
      << job.dump();
  EXPECT_FALSE(fs::exists(home.root() + "/RAN")) << "the run step ran";
  std::error_code ec;
  EXPECT_TRUE(!fs::exists(home.state() + "/local/pods") ||
              fs::is_empty(home.state() + "/local/pods", ec));
}

}  // namespace
}  // namespace burst::testing
