// JobRunner in process: FakeProvider + FakeClock + SQLite :memory: + a ShellPod (a pod that is a
// temp directory; the runner's own supervisor, sync and pull scripts run there for real). Each
// test runs one job to its end and asserts what the user is left with: the job's state and error,
// the phases recorded with their outcomes, and every pod deleted and verified gone at the
// provider. Paths: success, each failure class (provision, SSH, sync, step, pull, a delete that
// fails once), an interrupt, and a connection lost mid-run.
#include "job/job_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "app/plan_with_history.h"
#include "burst/fault_observer.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_provider.h"
#include "fakes/shell_pod.h"
#include "fakes/temp_dir.h"
#include "job/budget_guard.h"
#include "job/pod_lifecycle.h"
#include "plan/load_history.h"
#include "plan/planner.h"
#include "sync/code_sync.h"

namespace burst {
namespace {

class RecordingConsole : public Console {
 public:
  void line(const std::string& t) override { add("line", t); }
  void remote_out(const std::string& l) override { add("out", l); }
  void remote_err(const std::string& l) override { add("err", l); }
  void progress(const std::string&) override {}
  bool confirm(const std::string&) override { return false; }
  void phase_started(std::optional<int> worker, Phase phase) override {
    add("phase", (worker ? "w" + std::to_string(*worker) + " " : "") + to_string(phase));
  }
  // Every recorded (kind, text), in order.
  std::vector<std::pair<std::string, std::string>> lines() {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_;
  }
  // Index of the first line of `kind` containing `needle`, or -1.
  long first(const std::string& kind, const std::string& needle) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < lines_.size(); ++i)
      if (lines_[i].first == kind && lines_[i].second.find(needle) != std::string::npos)
        return static_cast<long>(i);
    return -1;
  }
  bool saw(const std::string& kind, const std::string& needle) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [k, t] : lines_)
      if (k == kind && t.find(needle) != std::string::npos) return true;
    return false;
  }

 private:
  void add(const char* kind, const std::string& t) {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.emplace_back(kind, t);
  }
  std::mutex mu_;
  std::vector<std::pair<std::string, std::string>> lines_;
};

// Counts each fault point and runs a test's action at one of them (on the job's thread).
class PointObserver : public FaultObserver {
 public:
  std::string at;
  std::function<void()> action;
  void reached(std::string_view point) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++seen_[std::string(point)];
    if (point == at && action && !fired_) {
      fired_ = true;
      action();
    }
  }
  int seen(const std::string& point) {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_[point];
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> seen_;
  bool fired_ = false;
};

class JobRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(":memory:").value();
    pod_ = std::make_unique<ShellPodConnector>(dir_.path() + "/pod");
    config_.state_dir = dir_.path() + "/state";
    config_.reports_dir = dir_.path() + "/reports";
    config_.logs_dir = dir_.path() + "/logs";
    config_.ssh_key = dir_.path() + "/id_ed25519";
    config_.ssh_wait_seconds = 60;
    std::filesystem::create_directories(config_.logs_dir);

    spec_.name = "job";
    spec_.path = dir_.path() + "/job.yaml";
    spec_.dir = dir_.path();
    spec_.volume.name = "vol";
    spec_.volume.mount = pod_->volume();
    spec_.code.remote_dir = "$BURST_VOLUME/job";
    spec_.setup = "echo setting up";
    spec_.run = "echo hello from the pod\necho result > out.txt";
    spec_.artefacts.push_back({"out.txt", dir_.path() + "/out", {}});
    std::filesystem::create_directories(dir_.path() + "/code");
    dir_.write("code/main.py", "print('hi')\n");
    spec_.code.dir = dir_.path() + "/code";

    offer_.provider = provider_.name();
    offer_.gpu_type = "RTX_4090";
    offer_.gpu_count = 1;
    offer_.usd_per_hour = 0.5;
    offer_.price_source = "offline table";  // not re-checked against live offers
  }

  JobResult run() {
    auto code = scan_code_dir(spec_.code);
    EXPECT_TRUE(code.ok()) << code.error().message;
    JobInput in;
    in.job_id = "20260101-000000-test";
    in.spec = spec_;
    in.plan.gpu = offer_;
    in.plan.candidates.clear();
    if (plan_tweak_) plan_tweak_(in.plan);
    if (code.ok()) in.code = *code;
    in.ssh_public_key = "ssh-ed25519 AAAA test";
    in.restart = restart_;
    JobDeps deps{*store_,
                 clock_,
                 *pod_,
                 provider_,
                 console_,
                 config_,
                 [this] { return interrupts_.load(); }};
    deps.faults = &faults_;
    return JobRunner(deps, in).run();
  }

  // phase -> outcome, in the order recorded.
  std::vector<std::pair<std::string, std::string>> phases() {
    std::vector<std::pair<std::string, std::string>> out;
    const auto rows = store_->phases("20260101-000000-test").value();
    for (const auto& p : rows) out.emplace_back(to_string(p.phase), to_string(p.outcome));
    return out;
  }
  std::string outcome_of(const std::string& phase) {
    for (const auto& [p, o] : phases())
      if (p == phase) return o;
    return "(not recorded)";
  }
  std::string detail_of(const std::string& phase) {
    const auto rows = store_->phases("20260101-000000-test").value();
    for (const auto& p : rows)
      if (to_string(p.phase) == phase) return p.detail;
    return "";
  }
  JobRecord job() { return store_->get_job("20260101-000000-test").value(); }

  // Every pod the provider ever made is gone there, and its row says deleted with a time.
  void expect_every_pod_deleted_and_verified() {
    auto rows = store_->pods_of_job("20260101-000000-test").value();
    for (const auto& r : rows) {
      if (r.state == PodRecordState::kCreateFailed) continue;
      EXPECT_EQ(r.state, PodRecordState::kDeleted) << r.name;
      EXPECT_GT(r.deleted_ms, 0) << r.name;
      const Pod* p = provider_.find(r.pod_id);
      ASSERT_NE(p, nullptr) << r.pod_id;
      auto now = provider_.get_pod(r.pod_id);
      EXPECT_TRUE(!now.ok() && now.error().code == ErrorCode::kNotFound)
          << r.pod_id << " is still at the provider";
    }
    EXPECT_TRUE(store_->live_pods().value().empty());
  }
  // A prepare step with these creates: paths that the plan runs on the GPU pod and expects to
  // skip (a warm volume).
  void prepare_expected_skipped_on_gpu_pod(std::vector<std::string> creates_paths) {
    spec_.prepare =
        PrepareSpec{"", "echo must not run", std::move(creates_paths), std::nullopt, {}};
    plan_tweak_ = [](Plan& plan) {
      PrepareChoice c;
      c.where = PrepareWhere::kGpuPod;
      c.expect_skip = true;
      plan.prepare = c;
    };
  }
  int creates() {
    int n = 0;
    for (const auto& c : provider_.calls_) n += c.rfind("create ", 0) == 0;
    return n;
  }

  TempDir dir_;
  FakeClock clock_;
  FakeProvider provider_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<ShellPodConnector> pod_;
  RecordingConsole console_;
  PointObserver faults_;
  std::atomic<int> interrupts_{0};
  Config config_;
  PipelineSpec spec_;
  Offer offer_;
  std::function<void(Plan&)> plan_tweak_;  // changes the plan run() hands the runner
  bool restart_ = false;                   // JobInput::restart
};

TEST_F(JobRunnerTest, SuccessRunsEveryPhasePullsTheArtefactAndDeletesThePod) {
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
  EXPECT_EQ(r.error, "");
  const std::vector<std::pair<std::string, std::string>> want = {
      {"plan", "ok"}, {"provision", "ok"},      {"wait-for-ssh", "ok"},
      {"sync", "ok"}, {"setup", "ok"},          {"run", "ok"},
      {"pull", "ok"}, {"delete-gpu-pod", "ok"}, {"report", "ok"}};
  EXPECT_EQ(phases(), want);
  EXPECT_EQ(job().state, JobState::kSucceeded);
  EXPECT_TRUE(console_.saw("out", "hello from the pod"));
  std::ifstream pulled(dir_.path() + "/out/out.txt");
  std::string text;
  std::getline(pulled, text);
  EXPECT_EQ(text, "result") << "the artefact came home";
  EXPECT_TRUE(std::filesystem::exists(pod_->volume() + "/job/main.py")) << "the code was synced";
  expect_every_pod_deleted_and_verified();
  EXPECT_EQ(creates(), 1);
  for (const char* p :
       {"after-create", "wait-ssh", "mid-sync", "mid-setup", "mid-run", "mid-pull", "after-delete"})
    EXPECT_GT(faults_.seen(p), 0) << "the observer in JobDeps heard " << p;
}

// The console hears each phase start as a typed fact (Console::phase_started), just before its
// "==> <phase>" line, which reads as it always did; a program that prints "==> run" is output
// and starts nothing (the live status line counts from the typed fact, cli/live_status.h).
TEST_F(JobRunnerTest, TheConsoleHearsEachPhaseStartAsATypedFactBeforeItsLine) {
  spec_.run = "echo '==> run'\necho '==> provision'\necho result > out.txt";
  JobResult r = run();
  ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
  std::vector<std::string> started, said;
  const auto lines = console_.lines();
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& [kind, text] = lines[i];
    if (kind == "phase") {
      started.push_back(text);
      ASSERT_LT(i + 1, lines.size());
      EXPECT_EQ(lines[i + 1], (std::pair<std::string, std::string>{"line", "==> " + text}));
    }
    if (kind == "line" && text.rfind("==> ", 0) == 0) said.push_back(text.substr(4));
  }
  const std::vector<std::string> want = {"plan", "provision", "wait-for-ssh",   "sync",  "setup",
                                         "run",  "pull",      "delete-gpu-pod", "report"};
  EXPECT_EQ(started, want);
  EXPECT_EQ(said, want);
  EXPECT_TRUE(console_.saw("out", "==> run")) << "the program's line is output, not a phase";
}

// Issue 35: a job whose daemon died in setup runs again under its own id (Reconciler, takeover):
// its record and earlier phases stay, its start time too (budget.deadline counts from it).
TEST_F(JobRunnerTest, ARestartedJobRunsAgainUnderItsIdKeepingItsStartAndHistory) {
  JobRecord old;
  old.id = "20260101-000000-test";
  old.pipeline = "job";
  old.state = JobState::kRunning;
  old.phase = Phase::kRecover;
  old.error = "from the first run";
  old.created_ms = 1000;
  old.owner_pid = 999999;
  ASSERT_TRUE(store_->create_job(old).ok());
  ASSERT_TRUE(store_->begin_phase(old.id, Phase::kSetup, 1000).ok());
  ASSERT_TRUE(store_->end_phase(old.id, Phase::kSetup, 2000, Outcome::kInterrupted, "").ok());
  ASSERT_TRUE(store_->begin_phase(old.id, Phase::kRecover, 2000).ok());
  ASSERT_TRUE(store_->end_phase(old.id, Phase::kRecover, 2000, Outcome::kOk, "").ok());
  restart_ = true;
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
  const std::vector<std::pair<std::string, std::string>> want = {
      {"setup", "interrupted"}, {"recover", "ok"},        {"plan", "ok"},  {"provision", "ok"},
      {"wait-for-ssh", "ok"},   {"sync", "ok"},           {"setup", "ok"}, {"run", "ok"},
      {"pull", "ok"},           {"delete-gpu-pod", "ok"}, {"report", "ok"}};
  EXPECT_EQ(phases(), want);
  EXPECT_EQ(job().state, JobState::kSucceeded);
  EXPECT_EQ(job().created_ms, 1000) << "the first start stays the job's start";
  EXPECT_EQ(job().error, "");
  EXPECT_EQ(job().provider, provider_.name());
  expect_every_pod_deleted_and_verified();
}

TEST_F(JobRunnerTest, ProvisionFailureCreatesNothingAndSaysWhy) {
  provider_.create_errors.push_back(make_error(ErrorCode::kInvalid, "fake: bad request"));
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("bad request"), std::string::npos) << r.error;
  EXPECT_EQ(outcome_of("provision"), "failed");
  EXPECT_EQ(outcome_of("wait-for-ssh"), "(not recorded)");
  EXPECT_EQ(outcome_of("run"), "(not recorded)");
  EXPECT_EQ(outcome_of("report"), "ok");
  auto rows = store_->pods_of_job("20260101-000000-test").value();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].state, PodRecordState::kCreateFailed);
  EXPECT_TRUE(provider_.list_pods().value().empty());
  EXPECT_EQ(pod_->connects(), 0);
}

TEST_F(JobRunnerTest, NoSshGivesUpAtTheDeadlineAndDeletesThePod) {
  pod_->refuse = true;
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("ssh"), std::string::npos) << r.error;
  EXPECT_EQ(outcome_of("wait-for-ssh"), "connection-lost");
  EXPECT_EQ(outcome_of("run"), "(not recorded)");
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "ok");
  EXPECT_GT(pod_->connects(), 1) << "it retried while the pod booted";
  EXPECT_GE(clock_.total_slept(), std::chrono::seconds(50)) << "on the fake clock, not real time";
  expect_every_pod_deleted_and_verified();
}

// Issue 35: the money caps govern the wait for SSH as they govern a step: a pod that never
// answers is billed while burst waits, so the job stops when its budget would be crossed, not at
// the end of the SSH wait.
TEST_F(JobRunnerTest, TheBudgetStopsAWaitForSshThatWouldOutliveIt) {
  pod_->refuse = true;
  offer_.usd_per_hour = 360;   // $0.10 a second: the 30 s stop margin alone is $3
  spec_.budget.max_usd = 5.0;  // crossed about 20 s into the wait
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("stopped by budget"), std::string::npos) << r.error;
  EXPECT_LT(clock_.total_slept(), std::chrono::seconds(40))
      << "stopped by the budget, not at the end of the SSH wait";
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "ok");
  expect_every_pod_deleted_and_verified();
}

// A host that bills its downloads per GB (Vast): the plan's estimate of that charge is spent
// however long the pods live, so the pods' cap is the budget less it, and the stop says so.
TEST_F(JobRunnerTest, TheBudgetLeftForThePodsIsLessTheHostsPerGbDownloadCharge) {
  pod_->refuse = true;
  offer_.usd_per_hour = 360;   // $0.10 a second, as above: $5 alone is crossed about 20 s in
  spec_.budget.max_usd = 5.0;  // less $2 of downloads: $3, crossed by the 30 s margin at once
  plan_tweak_ = [](Plan& p) { p.estimate.transfer_usd = 2.0; };
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("cap $3.0000 (budget.max_usd, less $2.0000 of per-GB downloads "
                         "(estimated))"),
            std::string::npos)
      << r.error;
  EXPECT_LT(clock_.total_slept(), std::chrono::seconds(15)) << "the $5 alone would allow ~20 s";
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "ok");
  expect_every_pod_deleted_and_verified();
  // burstd's caps are lowered the same way, a live one as it is asked; without a per-GB charge
  // every cap is as it was, named as before.
  const std::vector<BudgetCap> daily = {
      BudgetCap(0, "burstd budget.usd_per_day (left today)", [] { return 7.0; })};
  std::vector<BudgetCap> caps = job_money_caps(5.0, daily, 2.0);
  ASSERT_EQ(caps.size(), 2u);
  EXPECT_DOUBLE_EQ(caps[1].live(), 5.0);
  EXPECT_EQ(caps[1].name,
            "burstd budget.usd_per_day (left today), less $2.0000 of per-GB downloads (estimated)");
  caps = job_money_caps(5.0, daily, 0);
  EXPECT_EQ(caps[0].name, "budget.max_usd");
  EXPECT_DOUBLE_EQ(caps[0].usd, 5.0);
  EXPECT_DOUBLE_EQ(caps[1].live(), 7.0);
  EXPECT_TRUE(job_money_caps(std::nullopt, {}, 2.0).empty());
}

TEST_F(JobRunnerTest, SyncFailureSkipsTheStepsAndDeletesThePod) {
  pod_->fail_command = [](const std::string& c) -> std::optional<Error> {
    if (c.find("echo T1") != std::string::npos)  // sync's remote side (sync/code_sync.cpp)
      return make_error(ErrorCode::kRemoteFailed, "shell pod: no space left on device");
    return std::nullopt;
  };
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("no space left"), std::string::npos) << r.error;
  EXPECT_EQ(outcome_of("sync"), "failed");
  EXPECT_EQ(outcome_of("setup"), "(not recorded)");
  EXPECT_EQ(outcome_of("run"), "(not recorded)");
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "ok");
  expect_every_pod_deleted_and_verified();
}

TEST_F(JobRunnerTest, FailingStepFailsTheJobStillPullsAndDeletes) {
  spec_.run = "echo partial > out.txt\necho about to fail >&2\nexit 3";
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("3"), std::string::npos) << r.error;
  EXPECT_EQ(outcome_of("run"), "failed");
  EXPECT_EQ(outcome_of("pull"), "ok") << "pull_on_failure brings what exists home";
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "ok");
  EXPECT_TRUE(console_.saw("err", "about to fail"));
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/out/out.txt"));
  expect_every_pod_deleted_and_verified();
}

TEST_F(JobRunnerTest, PullFailureFailsTheJobAndDeletesThePod) {
  pod_->fail_command = [](const std::string& c) -> std::optional<Error> {
    if (c.find("D=$(mktemp -d)") != std::string::npos)  // the pull's listing (artefact_pull.cpp)
      return make_error(ErrorCode::kRemoteFailed, "shell pod: pull refused");
    return std::nullopt;
  };
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("pull refused"), std::string::npos) << r.error;
  EXPECT_EQ(outcome_of("run"), "ok");
  EXPECT_EQ(outcome_of("pull"), "failed");
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "ok");
  expect_every_pod_deleted_and_verified();
}

TEST_F(JobRunnerTest, DeleteThatLingersIsPolledUntilTheProviderSaysGone) {
  provider_.delete_takes_effect_after_n_gets = 3;  // accepted, gone only later
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "ok");
  int gets_after_delete = 0;
  bool deleted = false;
  for (const auto& c : provider_.calls_) {
    deleted = deleted || c.rfind("delete ", 0) == 0;
    gets_after_delete += deleted && c.rfind("get ", 0) == 0;
  }
  EXPECT_GE(gets_after_delete, 3) << "it was seen still there";
  expect_every_pod_deleted_and_verified();
}

// The driver's API call has retried the delete already (http/api_call.h) and given up: the job
// fails telling the user to reap, the row stays open, and reap's delete_and_verify finishes it.
TEST_F(JobRunnerTest, DeleteThatFailsLeavesTheRowForReapWhichVerifiesItGone) {
  provider_.delete_errors.push_back(
      make_error(ErrorCode::kUnavailable, "fake: HTTP 503 (gave up after 5 attempts)"));
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("burst reap"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("HTTP 503"), std::string::npos) << r.error;
  EXPECT_EQ(outcome_of("run"), "ok");
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "failed");
  auto rows = store_->pods_of_job("20260101-000000-test").value();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].state, PodRecordState::kDeleting) << "left for burst reap";
  EXPECT_EQ(store_->live_pods().value().size(), 1u);
  ASSERT_TRUE(delete_and_verify(*store_, provider_, clock_, &rows[0]).ok());  // what reap does
  expect_every_pod_deleted_and_verified();
}

TEST_F(JobRunnerTest, InterruptStopsTheRunStepPullsAndDeletes) {
  spec_.run = "echo started\necho partial > out.txt\nsleep 30\necho never";
  faults_.at = "mid-run";  // the first line of the run step
  faults_.action = [this] { interrupts_ = 1; };
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kInterrupted) << r.error;
  EXPECT_EQ(outcome_of("run"), "interrupted");
  EXPECT_EQ(outcome_of("pull"), "ok") << "one interrupt still pulls";
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "ok");
  EXPECT_FALSE(console_.saw("out", "never"));
  expect_every_pod_deleted_and_verified();
}

TEST_F(JobRunnerTest, TwoInterruptsSkipThePullButNeverTheDelete) {
  spec_.run = "echo started\nsleep 30";
  faults_.at = "mid-run";
  faults_.action = [this] { interrupts_ = 2; };
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kInterrupted) << r.error;
  EXPECT_EQ(outcome_of("pull"), "skipped");
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "ok");
  expect_every_pod_deleted_and_verified();
}

TEST_F(JobRunnerTest, ConnectionLostMidRunFailsTheJobAndDeletesThePodThroughTheApi) {
  spec_.run = "echo started\nsleep 30";
  faults_.at = "mid-run";
  faults_.action = [this] { pod_->broken = true; };  // every session and reconnect fails now
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("connection"), std::string::npos) << r.error;
  EXPECT_EQ(outcome_of("run"), "connection-lost");
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "ok") << "deleting needs the provider's API, not SSH";
  expect_every_pod_deleted_and_verified();
}

}  // namespace
}  // namespace burst

namespace burst {
namespace {

// The prepare step on its own CPU pod (plan/prepare.h): created, run and deleted (verified)
// before the GPU pod is created; the GPU work then sees what it staged.
TEST_F(JobRunnerTest, PrepareOnACpuPodStagesTheVolumeBeforeTheGpuPodIsCreated) {
  spec_.prepare = PrepareSpec{"",
                              "mkdir -p \"$BURST_VOLUME/m\" && echo w > \"$BURST_VOLUME/m/w\"",
                              {"m/w"},
                              std::nullopt,
                              {}};
  spec_.run = "cat \"$BURST_VOLUME/m/w\" > out.txt";
  plan_tweak_ = [](Plan& plan) {
    PrepareChoice c;
    c.where = PrepareWhere::kCpuPod;
    c.cpu = plan.gpu;
    c.cpu->gpu_type = "cpu3c";
    c.cpu->gpu_count = 0;
    plan.prepare = c;
  };
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
  const std::vector<std::pair<std::string, std::string>> want = {{"plan", "ok"},
                                                                 {"prepare-cpu-provision", "ok"},
                                                                 {"prepare", "ok"},
                                                                 {"delete-prepare-cpu-pod", "ok"},
                                                                 {"provision", "ok"},
                                                                 {"wait-for-ssh", "ok"},
                                                                 {"sync", "ok"},
                                                                 {"setup", "ok"},
                                                                 {"run", "ok"},
                                                                 {"pull", "ok"},
                                                                 {"delete-gpu-pod", "ok"},
                                                                 {"report", "ok"}};
  EXPECT_EQ(phases(), want);
  // The provider's calls: the prepare pod is created and deleted before the GPU pod's create.
  std::vector<std::string> lifecycle;
  for (const auto& c : provider_.calls_)
    if (c.rfind("create ", 0) == 0 || c.rfind("delete ", 0) == 0) lifecycle.push_back(c);
  ASSERT_EQ(lifecycle.size(), 4u);
  EXPECT_EQ(lifecycle[0].substr(lifecycle[0].size() - 5), "-prep");
  EXPECT_EQ(lifecycle[1].rfind("delete ", 0), 0u);
  EXPECT_EQ(lifecycle[2].substr(lifecycle[2].size() - 4), "-gpu");
  auto rows = store_->pods_of_job("20260101-000000-test").value();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].role, "cpu");
  EXPECT_EQ(rows[0].gpu_count, 0);
  std::ifstream pulled(dir_.path() + "/out/out.txt");
  std::string text;
  std::getline(pulled, text);
  EXPECT_EQ(text, "w") << "the run read what prepare staged";
  expect_every_pod_deleted_and_verified();
}

// A warm volume: the GPU pod checks the creates: paths, finds them and records the skip.
TEST_F(JobRunnerTest, PrepareOnTheGpuPodIsSkippedWhenEveryCreatesPathExists) {
  std::filesystem::create_directories(pod_->volume() + "/m");
  std::ofstream(pod_->volume() + "/m/w") << "w\n";
  prepare_expected_skipped_on_gpu_pod({"m/w"});
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
  EXPECT_EQ(outcome_of("prepare"), "skipped");
  EXPECT_EQ(
      detail_of("prepare").rfind("skipped: every creates: path exists on the volume (m/w)", 0), 0u)
      << detail_of("prepare");
  EXPECT_FALSE(console_.saw("out", "must not run"));
  EXPECT_EQ(creates(), 1) << "the GPU pod only";
}

// A warm run times a read of the largest created file on the pod and records it; the next plan
// (the samples plan_with_history reads, for `burst plan` and `burst run`) learns the provider's
// warm rate from it.
TEST_F(JobRunnerTest, AWarmSkipTimesAVolumeReadThatTheNextPlanLearnsFrom) {
  std::filesystem::create_directories(pod_->volume() + "/m");
  std::ofstream(pod_->volume() + "/m/tokenizer") << "t\n";
  std::ofstream(pod_->volume() + "/m/weights")
      << std::string(static_cast<size_t>(kWarmReadMinSampleBytes), 'w');
  prepare_expected_skipped_on_gpu_pod({"m"});
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
  EXPECT_EQ(outcome_of("prepare"), "skipped");
  EXPECT_NE(detail_of("prepare").find("; volume read 32.0 MiB in "), std::string::npos)
      << detail_of("prepare");
  const auto transfers = store_->transfers("20260101-000000-test").value();
  int reads = 0;
  for (const TransferRecord& t : transfers)
    if (t.direction == kVolumeReadDirection) {
      ++reads;
      EXPECT_EQ(t.bytes, static_cast<int64_t>(kWarmReadMinSampleBytes));
      EXPECT_GE(t.millis, 1);
    }
  EXPECT_EQ(reads, 1);

  const std::vector<LoadSample> samples = warm_read_samples(*store_);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].provider, provider_.name());
  PipelineSpec next;
  next.name = "next";
  next.run = "python serve.py";
  next.workload.kind = "custom";
  next.workload.params_b = 8;
  next.workload.precision = "fp16";
  next.workload.reference = WorkloadReference{"RTX_4090", 600, ""};
  PlanInput in;
  in.providers = {provider_.name()};
  in.gpu_offers = {offer_};
  in.warm_volume = true;
  in.load_history = samples;
  auto plan = make_plan(next, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_NE(plan->weight_load.find("(warm volume), learned from 1 volume read on " +
                                   provider_.name() + " (prior 300 MB/s)"),
            std::string::npos)
      << plan->weight_load;
}

// A step that exits 0 without making its creates: fails the job before the GPU work, and the GPU
// pod is still deleted.
TEST_F(JobRunnerTest, PrepareThatDoesNotCreateWhatItDeclaresFailsTheJobThroughTheDelete) {
  spec_.prepare = PrepareSpec{"", "true", {"m/w"}, std::nullopt, {}};
  plan_tweak_ = [](Plan& plan) { plan.prepare = PrepareChoice{}; };  // on the GPU pod
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("prepare: exited 0 but did not create every creates: path (m/w)"),
            std::string::npos)
      << r.error;
  EXPECT_EQ(outcome_of("sync"), "(not recorded)");
  EXPECT_EQ(outcome_of("delete-gpu-pod"), "ok");
  expect_every_pod_deleted_and_verified();
}

// Plan == run: the chosen offer vanished between plan and create; the run falls over to the
// next-best planned offer and prints why and the new plan before anything is created.
TEST_F(JobRunnerTest, AVanishedOfferPrintsTheNewPlanBeforeAnyCreate) {
  offer_.price_source = "live offer";
  Offer next = offer_;
  next.gpu_type = "L40S";
  next.usd_per_hour = 0.9;
  provider_.gpu_offers = {next};
  plan_tweak_ = [this, next](Plan& plan) {
    Candidate a, b;
    a.offer = offer_;
    a.usd = 0.01;
    b.offer = next;
    b.usd = 0.02;
    plan.candidates = {a, b};
    plan.estimate.usd = 0.01;
  };
  JobResult r = run();
  EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
  const long why = console_.first("line", "vanished before create; fell over to the next-best");
  const long replanned = console_.first("line", "replanned before any create:");
  const long gpu_line = console_.first("line", "  GPU pod: fake L40S x1 at $0.90/h (live offer)");
  const long estimate = console_.first("line", "  estimate: ");
  const long created = console_.first("line", " created (L40S)");
  ASSERT_GE(why, 0);
  EXPECT_LT(why, replanned);
  EXPECT_LT(replanned, gpu_line);
  EXPECT_LT(gpu_line, created);
  EXPECT_NE(estimate, -1);
  EXPECT_EQ(creates(), 1);
}

}  // namespace
}  // namespace burst
