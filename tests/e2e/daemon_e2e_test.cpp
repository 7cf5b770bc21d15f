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
#include <set>
#include <sstream>
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
    return wait_exit(timeout_s);
  }
  // Waits for the exit (of its own accord); as stop(), -1 after `timeout_s`.
  int wait_exit(int timeout_s) {
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
  EXPECT_NE(out.find(" | rendered " + std::to_string(kExampleQuestionsInTests) + "/" +
                     std::to_string(kExampleQuestionsInTests) + " clips"),
            std::string::npos)
      << out;
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
  // Issue 29: it was 0644 inside the 0700 state dir; it is the user's only, like job logs.
  EXPECT_EQ(fs::status(home.state() + "/logs/burstd.log").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
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
                                         "stopped during phase run; burstd took it over and "
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

// Issue 35: a daemon killed after it opened the run phase and before it launched the step. The
// next daemon reattaches, finds no step on the pod, and starts it (once-only on the pod): the
// job succeeds and its step ran exactly once, where it used to fail with "supervisor files are
// not on the pod".
TEST(E2EDaemon, KilledBetweenOpeningTheRunPhaseAndStartingTheStepStartsItOnceAfterRestart) {
  BurstHome home;
  const std::string mark = home.root() + "/mark";
  const std::string spec = home.write(
      "once.yaml", "name: once\nresources: {providers: [local]}\nrun: |\n  echo ran >> " + mark +
                       "\n  echo done\n");
  auto d = std::make_unique<Burstd>(
      home, "max_concurrent_jobs: 2\n",
      std::map<std::string, std::string>{{"BURST_FAULT", "before-run:kill"}});
  ASSERT_TRUE(d->ready()) << d->log();
  std::string out;
  ASSERT_EQ(run_burst(home, {"submit", spec}, &out, nullptr), 0) << out;
  const std::string job_id = out.substr(4, out.find(" queued") - 4);
  EXPECT_EQ(d->wait_exit(60), 128 + SIGKILL) << "killed at before-run: " << d->log();
  EXPECT_FALSE(fs::exists(mark)) << "the step never started before the kill";

  d = std::make_unique<Burstd>(home);
  ASSERT_TRUE(d->ready()) << d->log();
  std::string followed;
  EXPECT_EQ(run_burst(home, {"logs", job_id, "--follow"}, &followed, nullptr), 0) << followed;
  json job = status_of(home, job_id);
  EXPECT_EQ(job["state"], "succeeded") << job.dump(2) << d->log();
  EXPECT_EQ(read_file(mark), "ran\n") << "the step ran exactly once";
  const std::string log = read_file(home.state() + "/logs/" + job_id + ".log");
  EXPECT_NE(log.find("its run step had not started: starting it"), std::string::npos) << log;
  std::string reap_out;
  ASSERT_EQ(run_burst(home, {"reap", "--json"}, &reap_out, nullptr), 0);
  EXPECT_EQ(json::parse(reap_out).size(), 0u) << "nothing left to reap: " << reap_out;
  EXPECT_EQ(d->stop(SIGTERM), 0) << d->log();
}

// Issue 35: a daemon killed in a job's setup left no step to reattach to. The restarted daemon
// deletes the job's pod (verified) and runs the job again from its plan on a new pod, under the
// same id; the step runs once.
TEST(E2EDaemon, KilledDuringSetupThenRestartedRunsTheJobAgainOnANewPodAndTheStepOnce) {
  BurstHome home;
  const std::string marks = home.root() + "/marks";
  std::filesystem::create_directories(marks);
  const std::string spec =
      home.write("slow.yaml",
                 "name: slow\nresources: {providers: [local]}\nsetup: |\n  echo started\n"
                 "  if [ ! -e " +
                     marks + "/first ]; then touch " + marks +
                     "/first; sleep 60; fi\nrun: echo ran >> " + marks + "/ran\n");
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
  json job;
  for (int i = 0; i < 1200; ++i) {  // up to 120 s: a new pod, setup without the sleep, the step
    job = status_of(home, job_id);
    if (job.value("state", "") != "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(job["state"], "succeeded") << job.dump(2) << d->log();
  EXPECT_TRUE(pod_processes(pods[0]).empty()) << "the first pod is deleted";
  EXPECT_EQ(read_file(marks + "/ran"), "ran\n") << "the step ran once";
  bool recovered = false;
  for (const auto& ph : job["phases"])
    if (ph.value("phase", "") == "recover") {
      recovered = true;
      EXPECT_NE(ph.value("detail", "").find("gpu pod " + pods[0] + " deleted (confirmed)"),
                std::string::npos)
          << ph.dump();
      EXPECT_NE(ph.value("detail", "").find("running the job again"), std::string::npos)
          << ph.dump();
    }
  EXPECT_TRUE(recovered) << job.dump(2);
  EXPECT_EQ(job["phases"].back()["phase"], "report");
  std::string reap_out;
  ASSERT_EQ(run_burst(home, {"reap", "--json"}, &reap_out, nullptr), 0);
  EXPECT_EQ(json::parse(reap_out).size(), 0u) << "nothing left to reap: " << reap_out;
  EXPECT_EQ(d->stop(SIGTERM), 0) << d->log();
}

// What a report says once its ids, times, paths and measured seconds are set aside: the shape of
// the JSON (every key, every value's type) with the values that must agree kept.
bool is_volatile(const std::string& key) {
  static const std::string kVolatile =
      " id spec created deleted started finished seconds detail pod_id name lifetime_s billed_s "
      "wall_s gpu_billed_s compute_s cold_start_s sync_s billing_rounding_s utilization "
      "deadline_slack_pct files bytes text ";
  return kVolatile.find(" " + key + " ") != std::string::npos;
}

// Recommendations drawn from measured times (utilization, slack, the estimate's error) come and go
// with the machine's speed: under ASan on a loaded CI machine one run's utilization fell on the
// other side of 50% from the other's. The rest must agree.
bool measured_recommendation(const std::string& id) {
  return id == "low-utilization" || id == "deadline-slack" || id == "estimate-off" ||
         id == "over-provisioned" || id == "under-provisioned";
}

json comparable(const json& j) {
  if (j.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : j.items()) {
      if (k == "recommendations" && v.is_array()) {
        json ids = json::array();
        for (const auto& r : v)
          if (!measured_recommendation(r.value("id", ""))) ids.push_back(r.value("id", ""));
        out[k] = ids;
        continue;
      }
      out[k] = is_volatile(k) ? json(v.type_name()) : comparable(v);
    }
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const auto& v : j) out.push_back(comparable(v));
    return out;
  }
  return j;
}

// The markdown report's structure: its headings and the labels of its bullet and table rows.
std::vector<std::string> outline(const std::string& md) {
  std::vector<std::string> lines;
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# burst job ", 0) == 0) continue;  // names the job's id
    if (line == "## Recommendations") continue;        // present when any is (see above)
    if (line.rfind("- **", 0) == 0) {                  // a recommendation: "- **id**: text"
      const std::string id = line.substr(4, line.find("**", 4) - 4);
      if (measured_recommendation(id)) continue;
    }
    if (line.rfind("#", 0) == 0) lines.push_back(line);
    if (line.rfind("- ", 0) == 0 || line.rfind("| ", 0) == 0)
      lines.push_back(line.substr(0, line.find_first_of(":|`0123456789", 2)));  // the label
  }
  return lines;
}

// burst and burstd run and finish a job through the same use case (src/app/run_job.h, one report
// writer): the same spec, run once by `burst run` and once by burstd, each in a home of its own,
// leaves the same three report files saying the same things.
TEST(E2EDaemon, BurstAndBurstdWriteTheSameReportForTheSameJob) {
  const std::string yaml = "name: parity\nresources: {providers: [local]}\nrun: echo hi\n";
  BurstHome cli_home;
  const std::string cli_spec = cli_home.write("parity.yaml", yaml);
  std::string out, err;
  ASSERT_EQ(run_burst(cli_home, {"run", cli_spec, "--json"}, &out, &err), 0) << out << err;
  const json ran = json::parse(out, nullptr, false);
  ASSERT_TRUE(ran.is_object()) << out;
  const std::string cli_id = ran["job_id"];
  EXPECT_EQ(ran["report"], cli_home.state() + "/reports/" + cli_id + ".json");

  BurstHome d_home;
  const std::string d_spec = d_home.write("parity.yaml", yaml);
  Burstd d(d_home);
  ASSERT_TRUE(d.ready()) << d.log();
  ASSERT_EQ(run_burst(d_home, {"submit", d_spec, "--follow"}, &out, &err), 0)
      << out << err << d.log();
  const std::string d_id = out.substr(4, out.find(" queued") - 4);
  EXPECT_EQ(status_of(d_home, d_id)["report"], d_home.state() + "/reports/" + d_id + ".json");
  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();

  const std::string a = cli_home.state() + "/reports/" + cli_id;
  const std::string b = d_home.state() + "/reports/" + d_id;
  for (const char* ext : {".json", ".md", ".html"}) {
    EXPECT_TRUE(fs::exists(a + ext)) << "burst run wrote no " << ext;
    EXPECT_TRUE(fs::exists(b + ext)) << "burstd wrote no " << ext;
  }
  const json ja = json::parse(read_file(a + ".json")), jb = json::parse(read_file(b + ".json"));
  EXPECT_EQ(ja["job"]["state"], "succeeded");
  EXPECT_EQ(comparable(ja), comparable(jb)) << ja.dump(2) << "\n" << jb.dump(2);
  EXPECT_EQ(outline(read_file(a + ".md")), outline(read_file(b + ".md")));
  EXPECT_NE(read_file(b + ".html").find("<html"), std::string::npos);
}

// Issue 35: the team's caps in one place, set and listed through burstd with `burst caps`, each
// change audited; a bad value is refused with the field named and nothing written.
TEST(E2EDaemon, CapsSetThroughBurstdAreListedWithTheirAuditAndBadOnesRefused) {
  BurstHome home;
  Burstd d(home);
  ASSERT_TRUE(d.ready()) << d.log();
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"caps"}, &out, &err), 0) << out << err;
  EXPECT_NE(out.find("no caps in the store"), std::string::npos) << out;
  ASSERT_EQ(run_burst(home, {"caps", "set", "team", "ml", "day", "5"}, &out, &err), 0)
      << out << err;
  EXPECT_NE(out.find("cap team ml per day: $5.00 (was not set)"), std::string::npos) << out;
  ASSERT_EQ(run_burst(home, {"caps", "set", "team", "ml", "day", "7.5"}, &out, &err), 0);
  EXPECT_NE(out.find("$7.50 (was $5.00)"), std::string::npos) << out;
  ASSERT_EQ(run_burst(home, {"caps", "set", "user", "*", "month", "40"}, &out, &err), 0);

  EXPECT_EQ(run_burst(home, {"caps", "set", "team", "ml", "day", "lots"}, &out, &err), 2);
  EXPECT_NE((out + err).find("USD must be a number of dollars"), std::string::npos) << out << err;
  EXPECT_EQ(run_burst(home, {"caps", "set", "team", "ml", "week", "5"}, &out, &err), 2);
  EXPECT_NE((out + err).find("\"period\" must be day or month, not \"week\""), std::string::npos)
      << out << err;
  EXPECT_EQ(run_burst(home, {"caps", "set", "pipeline", "*", "day", "5"}, &out, &err), 2);

  ASSERT_EQ(run_burst(home, {"caps", "--json"}, &out, &err), 0) << out << err;
  json caps = json::parse(out, nullptr, false);
  ASSERT_TRUE(caps.is_object()) << out;
  ASSERT_EQ(caps["caps"].size(), 2u) << out;
  EXPECT_EQ(caps["caps"][0]["scope"], "team");
  EXPECT_EQ(caps["caps"][0]["usd"], 7.5);
  ASSERT_EQ(caps["changes"].size(), 3u) << "the refused ones wrote nothing: " << out;
  EXPECT_EQ(caps["changes"][1]["old_usd"], 5.0);
  EXPECT_EQ(caps["changes"][1]["new_usd"], 7.5);
  EXPECT_FALSE(caps["changes"][1]["set_by"].get<std::string>().empty()) << "who set it";
  ASSERT_EQ(run_burst(home, {"caps"}, &out, &err), 0);
  EXPECT_NE(out.find("changes, newest first:"), std::string::npos) << out;
  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();
}

TEST(E2EDaemon, CancelRunsTeardownAndClientsExplainAMissingDaemon) {
  BurstHome home;
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"status"}, &out, &err), 5) << "exit 5: burstd unreachable";
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
  // burstd's answer names the job with the keys every --json uses (cli/job_json.h).
  const json done = status_of(home, job_id);
  EXPECT_EQ(done.value("job_id", ""), job_id) << done.dump();
  for (const char* key : {"started", "finished", "seconds", "usd"})
    EXPECT_TRUE(done.contains(key)) << key << ": " << done.dump();
  EXPECT_EQ(d->stop(SIGTERM), 0) << d->log();
}

}  // namespace
}  // namespace burst::testing
