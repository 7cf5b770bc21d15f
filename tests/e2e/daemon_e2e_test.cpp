// burstd end to end on the local cloud: the real daemon in a temp home, driven by the real
// `burst submit|logs|status|cancel` over its Unix socket. The example pipeline runs to success
// with no pod left; a daemon killed with SIGKILL mid-run is restarted and fails the job, deleting
// its pod, and the job's record says what happened.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
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
  explicit Burstd(const BurstHome& home) : home_(home) {
    fs::create_directories(home.root() + "/config");
    std::ofstream(home.root() + "/config/burstd.yaml") << "max_concurrent_jobs: 2\n";
    log_ = home.root() + "/burstd" + std::to_string(++starts_) + ".err";
    pid_ = spawn_logged({BURSTD_BINARY}, home.env(), log_, log_);
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

TEST(E2EDaemon, KilledMidRunThenRestartedFailsTheJobAndDeletesItsPod) {
  BurstHome home;
  const std::string spec = home.write(
      "slow.yaml",
      "name: slow\nresources: {providers: [local]}\nrun: |\n  echo started\n  sleep 60\n");
  auto d = std::make_unique<Burstd>(home);
  ASSERT_TRUE(d->ready()) << d->log();
  std::string out;
  ASSERT_EQ(run_burst(home, {"submit", spec}, &out, nullptr), 0) << out;
  const std::string job_id = out.substr(4, out.find(" queued") - 4);

  std::string log;
  for (int i = 0; i < 600 && log.find("| started") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    log = read_file(home.state() + "/logs/" + job_id + ".log");
  }
  ASSERT_NE(log.find("| started"), std::string::npos) << log << d->log();
  auto pods = pod_ids_in(log);
  ASSERT_EQ(pods.size(), 1u) << log;
  EXPECT_EQ(d->stop(SIGKILL), 128 + SIGKILL);
  EXPECT_FALSE(pod_processes(pods[0]).empty()) << "SIGKILL leaves the pod running";

  d = std::make_unique<Burstd>(home);  // recovery runs before the socket opens
  ASSERT_TRUE(d->ready()) << d->log();
  EXPECT_TRUE(pod_processes(pods[0]).empty()) << "the restarted daemon deleted the pod";
  json job = status_of(home, job_id);
  EXPECT_EQ(job["state"], "failed");
  EXPECT_NE(job["error"].get<std::string>().find("stopped during phase run"), std::string::npos)
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

}  // namespace
}  // namespace burst::testing
