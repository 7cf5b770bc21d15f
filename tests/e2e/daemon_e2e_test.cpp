// burstd end to end on the local cloud: the real daemon in a temp home, driven by the real
// `burst submit|logs|status|cancel` over its Unix socket. The example pipeline runs to success
// with no pod left; a daemon killed with SIGKILL in the run phase is restarted and reattaches
// (the job completes, its log whole); killed in another phase, the restarted daemon fails the
// job and deletes its pod. Either way no pod is left and the record says what happened.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "e2e/burst_harness.h"
#include "e2e/cloud_e2e.h"

namespace burst::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A burstd process in `home`, with burstd.yaml written to home/config.
class Burstd {
 public:
  explicit Burstd(const BurstHome& home, const std::string& yaml = "max_concurrent_jobs: 2\n",
                  const std::map<std::string, std::string>& extra_env = {})
      : home_(home) {
    fs::create_directories(home.root() + "/config");
    std::ofstream(home.root() + "/config/burstd.yaml") << yaml;
    log_ = home.root() + "/burstd" + std::to_string(++starts_) + ".err";
    auto env = home.env();
    for (const auto& [k, v] : extra_env) env[k] = v;
    pid_ = spawn_logged({BURSTD_BINARY}, env, log_, log_);
  }
  ~Burstd() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  // Waits until the socket answers (`burst status` succeeds).
  bool ready() {
    for (int i = 0; i < 200; ++i) {
      if (fs::exists(home_.state() + "/burstd.sock") &&
          run_burst(home_, {"status"}, nullptr, nullptr) == 0)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  // Sends `sig` and waits for the exit; returns the exit code (128+signal if killed).
  int stop(int sig, int timeout_s = 60) {
    kill(pid_, sig);
    for (int i = 0; i < timeout_s * 20; ++i) {
      int st = 0;
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;
  }
  std::string log() const { return read_file(log_); }

 private:
  const BurstHome& home_;
  pid_t pid_ = -1;
  std::string log_;
  static inline int starts_ = 0;
};

json status_of(const BurstHome& home, const std::string& id) {
  std::string out;
  EXPECT_EQ(run_burst(home, {"status", id, "--json"}, &out, nullptr), 0) << out;
  return json::parse(out, nullptr, false);
}

TEST(E2EDaemon, SubmitExampleFollowLogsSucceedsAndLeavesNoPod) {
  BurstHome home;
  const std::string spec = copy_tts_example(home);
  Burstd d(home);
  ASSERT_TRUE(d.ready()) << d.log();

  std::string out, err;
  int rc = run_burst(home, {"submit", spec, "--follow"}, &out, &err);
  ASSERT_EQ(rc, 0) << out << err << d.log();
  EXPECT_NE(out.find(" queued"), std::string::npos) << out;
  EXPECT_NE(out.find(" | rendered 300/300 clips"), std::string::npos) << out;
  EXPECT_NE(out.find(" succeeded (report: "), std::string::npos) << out;
  auto ids = pod_ids_in(out);
  EXPECT_EQ(ids.size(), 2u) << "a GPU pod and the upload's CPU pod\n" << out;
  for (const auto& id : ids) EXPECT_TRUE(pod_processes(id).empty()) << id;

  const std::string job_id = out.substr(4, out.find(" queued") - 4);
  json job = status_of(home, job_id);
  EXPECT_EQ(job["state"], "succeeded");
  EXPECT_EQ(job["phases"].back()["phase"], "report");
  for (const auto& p : job["pods"]) EXPECT_EQ(p["state"], "deleted");
  EXPECT_TRUE(fs::exists(home.state() + "/reports/" + job_id + ".json"));

  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();
  EXPECT_FALSE(fs::exists(home.state() + "/burstd.sock"));
  EXPECT_NE(read_file(home.state() + "/logs/burstd.log").find("job " + job_id + " succeeded"),
            std::string::npos)
      << "burstd logs to its rotating file too";
}

// Waits until the job's log contains `needle`; returns the log.
std::string wait_for_log(const BurstHome& home, const std::string& job_id,
                         const std::string& needle) {
  std::string log;
  for (int i = 0; i < 600 && log.find(needle) == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    log = read_file(home.state() + "/logs/" + job_id + ".log");
  }
  return log;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(E2EDaemon, KilledMidRunThenRestartedReattachesAndCompletesTheJob) {
  BurstHome home;
  // Prints a line every 0.3 s; stderr too, to see both streams continue.
  const std::string spec =
      home.write("slow.yaml",
                 "name: slow\nresources: {providers: [local]}\nrun: |\n"
                 "  for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo \"line $i.\"; sleep 0.3; done\n"
                 "  echo 'to stderr.' >&2\n");
  auto d = std::make_unique<Burstd>(home);
  ASSERT_TRUE(d->ready()) << d->log();
  std::string out;
  ASSERT_EQ(run_burst(home, {"submit", spec}, &out, nullptr), 0) << out;
  const std::string job_id = out.substr(4, out.find(" queued") - 4);

  std::string log = wait_for_log(home, job_id, "| line 3.");
  ASSERT_NE(log.find("| line 3."), std::string::npos) << log << d->log();
  auto pods = pod_ids_in(log);
  ASSERT_EQ(pods.size(), 1u) << log;
  EXPECT_EQ(status_of(home, job_id)["phase"], "run") << "the phase column names the open phase";
  EXPECT_EQ(d->stop(SIGKILL), 128 + SIGKILL);
  EXPECT_FALSE(pod_processes(pods[0]).empty()) << "SIGKILL leaves the pod running";
  std::this_thread::sleep_for(std::chrono::milliseconds(900));  // lines printed while down

  d = std::make_unique<Burstd>(home);  // recovery runs before the socket opens
  ASSERT_TRUE(d->ready()) << d->log();
  std::string followed;
  EXPECT_EQ(run_burst(home, {"logs", job_id, "--follow"}, &followed, nullptr), 0) << followed;
  json job = status_of(home, job_id);
  EXPECT_EQ(job["state"], "succeeded") << job.dump(2) << d->log();
  EXPECT_TRUE(pod_processes(pods[0]).empty()) << "the GPU pod was deleted after the run";

  // Every line exactly once: the log went on from the byte the first burstd had reached.
  log = read_file(home.state() + "/logs/" + job_id + ".log");
  for (int i = 1; i <= 12; ++i)
    EXPECT_EQ(count_of(log, "| line " + std::to_string(i) + ".\n"), 1u) << i << "\n" << log;
  EXPECT_EQ(count_of(log, "! to stderr.\n"), 1u) << log;
  EXPECT_NE(log.find("reattached to gpu pod " + pods[0]), std::string::npos) << log;

  // The report says what happened: a reattach phase, then the run that ended well.
  auto report = json::parse(read_file(home.state() + "/reports/" + job_id + ".json"));
  EXPECT_EQ(report["job"]["state"], "succeeded");
  bool said = false;
  for (const auto& p : report["phases"])
    if (p["phase"] == "reattach") {
      said = p["outcome"] == "ok" && p["detail"].get<std::string>().find(
                                         "stopped during phase run; burstd restarted and "
                                         "reattached") != std::string::npos;
    }
  EXPECT_TRUE(said) << report["phases"].dump(2);
  EXPECT_NE(read_file(home.state() + "/logs/burstd.log").find("job " + job_id + " reattached"),
            std::string::npos);
  std::string reap_out;
  ASSERT_EQ(run_burst(home, {"reap", "--json"}, &reap_out, nullptr), 0);
  EXPECT_EQ(json::parse(reap_out).size(), 0u) << "nothing left to reap: " << reap_out;
  EXPECT_EQ(d->stop(SIGTERM), 0) << d->log();
}

TEST(E2EDaemon, KilledDuringSetupThenRestartedFailsTheJobAndDeletesItsPod) {
  BurstHome home;
  const std::string spec = home.write("slow.yaml",
                                      "name: slow\nresources: {providers: [local]}\nsetup: |\n"
                                      "  echo started\n  sleep 60\nrun: echo never\n");
  auto d = std::make_unique<Burstd>(home);
  ASSERT_TRUE(d->ready()) << d->log();
  std::string out;
  ASSERT_EQ(run_burst(home, {"submit", spec}, &out, nullptr), 0) << out;
  const std::string job_id = out.substr(4, out.find(" queued") - 4);

  std::string log = wait_for_log(home, job_id, "| started");
  ASSERT_NE(log.find("| started"), std::string::npos) << log << d->log();
  auto pods = pod_ids_in(log);
  ASSERT_EQ(pods.size(), 1u) << log;
  EXPECT_EQ(d->stop(SIGKILL), 128 + SIGKILL);
  EXPECT_FALSE(pod_processes(pods[0]).empty()) << "SIGKILL leaves the pod running";

  d = std::make_unique<Burstd>(home);
  ASSERT_TRUE(d->ready()) << d->log();
  EXPECT_TRUE(pod_processes(pods[0]).empty()) << "the restarted daemon deleted the pod";
  json job = status_of(home, job_id);
  EXPECT_EQ(job["state"], "failed");
  EXPECT_NE(job["error"].get<std::string>().find("stopped during phase setup"), std::string::npos)
      << job.dump(2);
  EXPECT_NE(job["error"].get<std::string>().find("gpu pod " + pods[0] + " deleted (confirmed)"),
            std::string::npos)
      << job.dump(2);
  EXPECT_EQ(job["phases"].back()["phase"], "recover");
  auto report = json::parse(read_file(home.state() + "/reports/" + job_id + ".json"));
  EXPECT_EQ(report["job"]["state"], "failed");
  std::string reap_out;
  ASSERT_EQ(run_burst(home, {"reap", "--json"}, &reap_out, nullptr), 0);
  EXPECT_EQ(json::parse(reap_out).size(), 0u) << "nothing left to reap: " << reap_out;
  EXPECT_EQ(d->stop(SIGTERM), 0) << d->log();
}

TEST(E2EDaemon, CancelRunsTeardownAndClientsExplainAMissingDaemon) {
  BurstHome home;
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"status"}, &out, &err), 1);
  EXPECT_NE(err.find("no burstd answers on " + home.state() + "/burstd.sock"), std::string::npos)
      << err;

  const std::string spec = home.write(
      "slow.yaml",
      "name: slow\nresources: {providers: [local]}\nrun: |\n  echo started\n  sleep 60\n");
  Burstd d(home);
  ASSERT_TRUE(d.ready()) << d.log();
  ASSERT_EQ(run_burst(home, {"submit", spec}, &out, nullptr), 0) << out;
  const std::string job_id = out.substr(4, out.find(" queued") - 4);
  std::string log;
  for (int i = 0; i < 600 && log.find("| started") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    log = read_file(home.state() + "/logs/" + job_id + ".log");
  }
  ASSERT_NE(log.find("| started"), std::string::npos) << log << d.log();
  ASSERT_EQ(run_burst(home, {"cancel", job_id}, &out, &err), 0) << out << err;
  std::string followed;
  EXPECT_EQ(run_burst(home, {"logs", job_id, "--follow"}, &followed, nullptr), 1);
  EXPECT_NE(followed.find("job " + job_id + " interrupted"), std::string::npos) << followed;
  for (const auto& id : pod_ids_in(followed)) EXPECT_TRUE(pod_processes(id).empty()) << id;
  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();
}

// Issue 20: the queue is in the store. A job held by the daily cap (its budget.max_usd does not
// fit) survives a SIGKILL and a SIGTERM drain still queued, `burst status` says which cap holds
// it, and the burstd started after them with a larger cap runs it.
TEST(E2EDaemon, QueuedJobSurvivesKillAndDrainAndTheNextBurstdRunsIt) {
  BurstHome home;
  const std::string spec = home.write(
      "held.yaml",
      "name: held\nresources: {providers: [local]}\nbudget: {max_usd: 1}\nrun: echo ran\n");
  const std::string capped = "max_concurrent_jobs: 2\nbudget:\n  usd_per_day: 0.5\n";
  auto d = std::make_unique<Burstd>(home, capped);
  ASSERT_TRUE(d->ready()) << d->log();
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"submit", spec}, &out, &err), 0) << out << err;
  const std::string job_id = out.substr(4, out.find(" queued") - 4);
  ASSERT_EQ(d->stop(SIGKILL), 128 + SIGKILL);

  d = std::make_unique<Burstd>(home, capped);
  ASSERT_TRUE(d->ready()) << d->log();
  json job = status_of(home, job_id);
  for (int i = 0; i < 100 && job.value("held_by", "").empty(); ++i) {  // until the first tick
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    job = status_of(home, job_id);
  }
  EXPECT_EQ(job["state"], "queued") << job.dump() << d->log();
  EXPECT_NE(job.value("held_by", "").find("burstd budget.usd_per_day"), std::string::npos)
      << job.dump();
  ASSERT_EQ(run_burst(home, {"status", job_id}, &out, nullptr), 0);
  EXPECT_NE(out.find("waiting for budget: burstd budget.usd_per_day"), std::string::npos) << out;
  ASSERT_EQ(d->stop(SIGTERM), 0) << d->log();

  d = std::make_unique<Burstd>(home, "max_concurrent_jobs: 2\nbudget:\n  usd_per_day: 5\n");
  ASSERT_TRUE(d->ready()) << d->log();
  for (int i = 0; i < 400 && status_of(home, job_id).value("state", "") != "succeeded"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(status_of(home, job_id).value("state", ""), "succeeded") << d->log();
  EXPECT_EQ(d->stop(SIGTERM), 0) << d->log();
}

// The acceptance's schedule test: `* * * * *` on burstd's test-only accelerated clock (x30: a
// minute every 2 s of wall time). Each run takes longer than a minute of that clock, so a fire
// comes while the previous run is going: it is skipped, and the runs recorded never overlap.
TEST(E2EDaemon, EveryMinuteScheduleOnAnAcceleratedClockRunsTwiceWithoutOverlap) {
  BurstHome home;
  const std::string spec = home.write("tick.yaml",
                                      "name: tick\nresources: {providers: [local]}\n"
                                      "run: |\n  echo tick\n  sleep 2.2\n"
                                      "schedule: {cron: \"* * * * *\"}\n");
  // Clock time starts 1 s before a minute: the first fire comes at once.
  const long long start = (static_cast<long long>(time(nullptr)) / 60 + 1) * 60 - 1;
  Burstd d(home, "max_concurrent_jobs: 4\npipelines: [" + spec + "]\n",
           {{"BURSTD_TEST_CLOCK", std::to_string(start) + ":30"}});
  ASSERT_TRUE(d.ready()) << d.log();

  json done = json::array();
  for (int i = 0; i < 450 && done.size() < 2; ++i) {  // 45 s at most; ~12 s normally
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::string out;
    if (run_burst(home, {"status", "--json"}, &out, nullptr) != 0) continue;
    done = json::array();
    for (const auto& j : json::parse(out, nullptr, false))
      if (j.is_object() && j.value("pipeline", "") == "tick" && j.value("state", "") == "succeeded")
        done.push_back(j);
  }
  ASSERT_GE(done.size(), 2u) << done.dump(2) << d.log();
  std::sort(done.begin(), done.end(),
            [](const json& a, const json& b) { return a["created"] < b["created"]; });
  EXPECT_GE(done[1]["created"].get<std::string>(), done[0]["finished"].get<std::string>())
      << "the second run started after the first ended\n"
      << done.dump(2);
  const std::string log = read_file(home.state() + "/logs/burstd.log");
  EXPECT_NE(log.find("BURSTD_TEST_CLOCK is set: TEST ONLY"), std::string::npos) << log;
  EXPECT_NE(log.find("tick: fired at "), std::string::npos) << log;
  EXPECT_NE(log.find("skipped: its previous run is still going"), std::string::npos)
      << "a fire during a run is skipped, not queued beside it\n"
      << log;
  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();
  std::string reap_out;
  ASSERT_EQ(run_burst(home, {"reap", "--json"}, &reap_out, nullptr), 0);
  EXPECT_EQ(json::parse(reap_out).size(), 0u) << reap_out;
}

}  // namespace
}  // namespace burst::testing
