// A pod that goes silent (its SSH session's sshd stopped with SIGSTOP: the TCP link stays up,
// nothing comes back) while `burst run` waits on it. The job's deadlines do not depend on the
// pod (job/job_watchdog.h): budget.max_runtime and Ctrl-C still end the job, the pod is deleted
// through the provider (the local cloud's own processes are the judge) and the error says which
// deadline fired.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

using Steady = std::chrono::steady_clock;

std::string spec_text(const std::string& budget) {
  return "version: 1\nname: e2e-silent\nvolume: {name: e2e-silent-vol}\n" + budget +
         "run: |\n  echo started\n  mkdir -p out && echo partial > out/partial.txt\n"
         "  sleep 120\nartefacts:\n  - {remote: out/partial.txt, local: ./got}\n";
}

// Waits for the run step, then silences the pod: every sshd serving burst's session stops.
// Returns the pod's id ("" on failure, recorded).
std::string silence_when_running(const BurstHome& home, BurstProcess& p,
                                 std::vector<int>* stopped) {
  if (!p.wait_for_stdout("| started")) {
    ADD_FAILURE() << "the job never started:\n" << p.out() << p.err();
    return "";
  }
  auto ids = pod_ids_in(p.out());
  EXPECT_EQ(ids.size(), 1u) << p.out();
  if (ids.empty()) return "";
  *stopped = pod_session_sshds(home, ids[0]);
  EXPECT_FALSE(stopped->empty()) << "no sshd session process found for " << ids[0];
  for (int pid : *stopped) kill(pid, SIGSTOP);
  return ids[0];
}

nlohmann::json only_job(const BurstHome& home) {
  std::string jobs;
  EXPECT_EQ(run_burst(home, {"jobs", "--json"}, &jobs, nullptr), 0);
  auto j = nlohmann::json::parse(jobs);
  EXPECT_EQ(j.size(), 1u);
  return j.empty() ? nlohmann::json::object() : j[0];
}

double seconds_since(Steady::time_point t) {
  return std::chrono::duration<double>(Steady::now() - t).count();
}

TEST(E2ESilentPod, MaxRuntimeEndsTheJobAndDeletesASilentPod) {
  BurstHome home;
  const std::string spec = home.write("job.yaml", spec_text("budget: {max_runtime: 5s}\n"));
  const auto start = Steady::now();
  BurstProcess p(home, {"run", spec});
  std::vector<int> stopped;
  const std::string pod = silence_when_running(home, p, &stopped);
  ASSERT_FALSE(pod.empty());
  EXPECT_EQ(p.wait(60), 1) << p.out() << p.err();
  for (int pid : stopped) kill(pid, SIGCONT);  // in case the pod outlived the job
  EXPECT_LT(seconds_since(start), 5 + 30) << p.out() << p.err();
  EXPECT_TRUE(pod_processes(pod).empty()) << "the silent pod must be deleted";
  EXPECT_NE(p.out().find("gpu pod " + pod + " deleted (confirmed)"), std::string::npos) << p.out();
  auto job = only_job(home);
  EXPECT_EQ(job["state"], "failed");
  EXPECT_NE(job["error"].get<std::string>().find("budget.max_runtime (5 s)"), std::string::npos)
      << job.dump();
  auto report = nlohmann::json::parse(
      read_file(home.state() + "/reports/" + job["id"].get<std::string>() + ".json"));
  EXPECT_NE(report["job"]["error"].get<std::string>().find("budget.max_runtime"), std::string::npos)
      << report["job"].dump(2);
}

TEST(E2ESilentPod, CtrlCEndsTheJobWithinTenSecondsAndDeletesASilentPod) {
  BurstHome home;
  const std::string spec = home.write("job.yaml", spec_text(""));
  BurstProcess p(home, {"run", spec});
  std::vector<int> stopped;
  const std::string pod = silence_when_running(home, p, &stopped);
  ASSERT_FALSE(pod.empty());
  const auto sigint = Steady::now();
  kill(p.pid(), SIGINT);
  const int rc = p.wait(60);
  const double took = seconds_since(sigint);
  for (int pid : stopped) kill(pid, SIGCONT);
  EXPECT_EQ(rc, 130) << p.out() << p.err();
  EXPECT_LT(took, 10.0) << p.out() << p.err();
  EXPECT_TRUE(pod_processes(pod).empty()) << "the silent pod must be deleted";
  auto job = only_job(home);
  EXPECT_EQ(job["state"], "interrupted");
  EXPECT_EQ(job["error"], "run: stopped: Ctrl-C or SIGTERM") << job.dump();
}

}  // namespace
}  // namespace burst::testing
