// Every way out of a running job ends with the pod gone: Ctrl-C, a dropped SSH connection, and a
// `kill -9` of burst itself followed by `burst reap`.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "burst/store.h"
#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

constexpr const char* kLongRun = R"(version: 1
name: e2e-long
volume: {name: e2e-long-vol}
resources: {providers: [local]}
run: |
  echo "started"
  mkdir -p out && echo partial > out/partial.txt
  sleep 120
  echo "never reached"
artefacts:
  - {remote: out/partial.txt, local: ./got}
)";

nlohmann::json only_job(const BurstHome& home) {
  std::string jobs;
  EXPECT_EQ(run_burst(home, {"jobs", "--json"}, &jobs, nullptr), 0);
  auto j = nlohmann::json::parse(jobs);
  EXPECT_EQ(j.size(), 1u);
  return j.empty() ? nlohmann::json::object() : j[0];
}

// Waits until the long job's run step has started; returns its one pod's id ("" on failure,
// with the reason recorded).
std::string wait_until_running(BurstProcess& p) {
  if (!p.wait_for_stdout("| started")) {
    ADD_FAILURE() << "the job never started:\n" << p.out() << p.err();
    return "";
  }
  auto ids = pod_ids_in(p.out());
  EXPECT_EQ(ids.size(), 1u) << p.out();
  return ids.empty() ? "" : ids[0];
}

TEST(E2EInterrupt, SigintDuringRunStopsPullsDeletesAndExits130) {
  BurstHome home;
  std::string spec = home.write("job.yaml", kLongRun);
  BurstProcess p(home, {"run", spec});
  const std::string pod = wait_until_running(p);
  ASSERT_FALSE(pod.empty());
  ASSERT_FALSE(pod_processes(pod).empty());
  kill(p.pid(), SIGINT);
  EXPECT_EQ(p.wait(60), 130) << p.out() << p.err();
  EXPECT_TRUE(pod_processes(pod).empty()) << "the pod (and its sleep) must be gone";
  EXPECT_EQ(read_file(home.work() + "/got/partial.txt"), "partial\n") << "pull_on_failure";
  EXPECT_NE(p.out().find("gpu pod " + pod + " deleted (confirmed)"), std::string::npos);
  auto job = only_job(home);
  EXPECT_EQ(job["state"], "interrupted");
  EXPECT_EQ(job["error"], "run: stopped: Ctrl-C or SIGTERM");
}

TEST(E2EInterrupt, SshConnectionKilledMidRunFailsTheJobAndDeletesThePod) {
  BurstHome home;
  std::string spec = home.write("job.yaml", kLongRun);
  BurstProcess p(home, {"run", spec});
  const std::string pod = wait_until_running(p);
  ASSERT_FALSE(pod.empty());
  auto sessions = pod_session_sshds(home, pod);
  ASSERT_FALSE(sessions.empty()) << "no sshd session process found for " << pod;
  for (int pid : sessions) kill(pid, SIGKILL);
  EXPECT_EQ(p.wait(60), 1) << p.out() << p.err();
  EXPECT_NE(p.err().find("run: lost the SSH connection while the command ran"), std::string::npos)
      << p.err();
  EXPECT_TRUE(pod_processes(pod).empty());
  auto job = only_job(home);
  EXPECT_EQ(job["state"], "failed");
}

TEST(E2EInterrupt, ReapAfterKill9OfBurstRunFindsAndDeletesTheOrphanedPod) {
  BurstHome home;
  std::string spec = home.write("job.yaml", kLongRun);
  BurstProcess p(home, {"run", spec});
  const std::string pod = wait_until_running(p);
  ASSERT_FALSE(pod.empty());
  kill(p.pid(), SIGKILL);
  EXPECT_EQ(p.wait(10), 128 + SIGKILL);
  ASSERT_FALSE(pod_processes(pod).empty()) << "the orphan should still be running";

  std::string out, err;
  EXPECT_EQ(run_burst(home, {"reap"}, &out, &err), 0) << out << err;
  EXPECT_NE(out.find("local " + pod), std::string::npos) << out;
  EXPECT_NE(out.find("deleted (confirmed)"), std::string::npos) << out;
  EXPECT_TRUE(pod_processes(pod).empty());
  // The job's record says what happened instead of staying `running` forever (chaos matrix).
  auto job = only_job(home);
  EXPECT_EQ(job["state"], "failed");
  EXPECT_NE(job["error"].get<std::string>().find("stopped during phase run; burst reap failed the "
                                                 "job; gpu pod " +
                                                 pod + " deleted (confirmed)"),
            std::string::npos)
      << job.dump();

  EXPECT_EQ(run_burst(home, {"reap"}, &out, &err), 0);
  EXPECT_EQ(out, "no live pods\n");
}

TEST(E2EInterrupt, ReapFindsAPodTheStoreNeverHeardOf) {
  BurstHome home;
  std::string spec = home.write("job.yaml", kLongRun);
  BurstProcess p(home, {"run", spec});
  const std::string pod = wait_until_running(p);
  ASSERT_FALSE(pod.empty());
  kill(p.pid(), SIGKILL);
  p.wait(10);
  // The database is lost; the provider's own list (pods named burst-*) still finds the pod. The
  // new database is a new installation, so the pod reads as another installation's: plain reap
  // leaves it, and --all-installations asks (no terminal here: refused) or takes --yes.
  for (const char* f : {"/burst.db", "/burst.db-wal", "/burst.db-shm"})
    std::filesystem::remove(home.state() + f);
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"reap"}, &out, &err), 0) << out << err;
  EXPECT_NE(out.find("local " + pod), std::string::npos) << out;
  EXPECT_NE(out.find("left alone; `burst reap --all-installations` deletes it"), std::string::npos)
      << out;
  EXPECT_FALSE(pod_processes(pod).empty());
  EXPECT_EQ(run_burst(home, {"reap", "--all-installations"}, &out, &err), 2) << out << err;
  EXPECT_NE(err.find("not confirmed; nothing was deleted"), std::string::npos) << err;
  EXPECT_FALSE(pod_processes(pod).empty());
  EXPECT_EQ(run_burst(home, {"reap", "--all-installations", "--yes"}, &out, &err), 0) << out << err;
  EXPECT_NE(out.find("local " + pod + " (job "), std::string::npos) << out;
  EXPECT_NE(out.find("deleted (confirmed)"), std::string::npos) << out;
  EXPECT_TRUE(pod_processes(pod).empty());
}

TEST(E2EInterrupt, ReapLeavesAJobStillRunningInAnotherProcessAlone) {
  BurstHome home;
  std::string spec = home.write("job.yaml", kLongRun);
  BurstProcess p(home, {"run", spec});
  const std::string pod = wait_until_running(p);
  ASSERT_FALSE(pod.empty());
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"reap"}, &out, &err), 0) << out << err;
  EXPECT_NE(out.find("skipped: job"), std::string::npos) << out;
  EXPECT_FALSE(pod_processes(pod).empty());
  kill(p.pid(), SIGINT);
  EXPECT_EQ(p.wait(60), 130);
  EXPECT_TRUE(pod_processes(pod).empty());
}

TEST(E2EInterrupt, ReapSaysWhenItCannotReachACloudThatHasOneOfOurPods) {
  BurstHome home;
  std::filesystem::create_directories(home.state());
  {
    auto store = open_sqlite_store(home.state() + "/burst.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    JobRecord job;
    job.id = "j-lost";
    job.pipeline = "lost";
    job.state = JobState::kFailed;
    job.provider = "runpod";
    ASSERT_TRUE((*store)->create_job(job).ok());
    PodRecord pod;
    pod.job_id = "j-lost";
    pod.provider = "runpod";
    pod.role = "gpu";
    pod.name = "burst-j-lost-gpu";
    pod.pod_id = "rp-123";
    pod.state = PodRecordState::kAlive;
    ASSERT_TRUE((*store)->add_pod(pod).ok());
  }
  // No RUNPOD_API_KEY in this home: reap cannot act, and must say so rather than drop the pod.
  std::string out, err;
  EXPECT_NE(run_burst(home, {"reap"}, &out, &err), 0) << out << err;
  EXPECT_NE(out.find("runpod rp-123 (job j-lost): NOT deleted (it may still be billing): no API "
                     "key configured for runpod"),
            std::string::npos)
      << out << err;
}

}  // namespace
}  // namespace burst::testing
