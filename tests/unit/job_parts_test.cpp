// The job engine's parts (job/job_phases.h) one at a time, in process: FakeProvider + FakeClock +
// SQLite :memory: + a ShellPod (a pod that is a temp directory; the steps, sync and pull run there
// for real). Each test drives one part as JobPhases would and asserts what the user would see:
// the lines said, the job's error, the pods' rows and the provider's pods, the files on the pod
// and at home. JobRunnerTest and WorkerFleetTest run the parts together, in their sequence.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "fakes/fake_clock.h"
#include "fakes/fake_provider.h"
#include "fakes/shell_pod.h"
#include "fakes/temp_dir.h"
#include "job/job_context.h"
#include "job/pod_connection.h"
#include "job/provisioner.h"
#include "job/step_runner.h"
#include "job/transfers.h"
#include "util/ssh_hosts_file.h"

namespace burst {
namespace {

constexpr const char* kJob = "20260101-000000-part";

class LinesConsole : public Console {
 public:
  void line(const std::string& t) override { lines.push_back(t); }
  void remote_out(const std::string& l) override { out.push_back(l); }
  void remote_err(const std::string& l) override { out.push_back(l); }
  void progress(const std::string&) override {}
  bool confirm(const std::string&) override { return false; }
  bool said(const std::string& needle) const {
    for (const auto& l : lines)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }
  std::vector<std::string> lines;
  std::vector<std::string> out;
};

std::string read_whole_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class JobPartsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(":memory:").value();
    pod_ = std::make_unique<ShellPodConnector>(dir_.path() + "/pod");
    config_.state_dir = dir_.path() + "/state";
    config_.logs_dir = dir_.path() + "/logs";
    config_.ssh_key = dir_.path() + "/id_ed25519";
    config_.ssh_wait_seconds = 60;
    std::filesystem::create_directories(dir_.path() + "/code");
    dir_.write("code/main.py", "print('hi')\n");

    in_.job_id = kJob;
    in_.spec.name = "job";
    in_.spec.volume.name = "vol";
    in_.spec.volume.mount = pod_->volume();
    in_.spec.code.dir = dir_.path() + "/code";
    in_.spec.code.remote_dir = "$BURST_VOLUME/job";
    in_.spec.artefacts.push_back({"out.txt", dir_.path() + "/out", {}});
    in_.plan.gpu.provider = provider_.name();
    in_.plan.gpu.gpu_type = "RTX_4090";
    in_.plan.gpu.gpu_count = 1;
    in_.plan.gpu.usd_per_hour = 0.5;
    in_.plan.gpu.price_source = "offline table";  // not re-checked against live offers
    in_.ssh_public_key = "ssh-ed25519 AAAA test";
    in_.code = scan_code_dir(in_.spec.code).value();

    JobRecord job;  // the job's row: its pods and transfers refer to it
    job.id = kJob;
    job.pipeline = "job";
    job.created_ms = to_unix_ms(clock_.now());
    ASSERT_TRUE(store_->create_job(job).ok());
  }

  // The job's context over the fixture's fakes, once the test has set its input.
  JobContext& start() {
    deps_.emplace(JobDeps{*store_, clock_, *pod_, provider_, console_, config_,
                          [this] { return interrupts_.load(); }});
    deps_->providers = providers_;
    ctx_ = std::make_unique<JobContext>(*deps_, in_, redact_);
    return *ctx_;
  }
  // The GPU pod created and connected, as the provision and wait-for-ssh phases leave it.
  void gpu_pod_ready(Provisioner& provisioner) {
    std::string detail;
    ASSERT_EQ(provisioner.provision_gpu(&detail), Outcome::kOk) << detail;
    PodConnection connection(*ctx_, pods_);
    ASSERT_EQ(connection.connect(pods_.gpu, provisioner.provider(), &detail), Outcome::kOk)
        << detail;
  }

  TempDir dir_;
  FakeClock clock_;
  FakeProvider provider_;
  std::map<std::string, Provider*> providers_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<ShellPodConnector> pod_;
  LinesConsole console_;
  std::atomic<int> interrupts_{0};
  Config config_;
  JobInput in_;
  Redactor redact_;
  std::optional<JobDeps> deps_;
  std::unique_ptr<JobContext> ctx_;
  JobPods pods_;
};

TEST_F(JobPartsTest, ContextTagsAWorkersLinesRedactsThemAndKeepsTheFirstFailure) {
  in_.worker = {1, 2, 0};
  redact_.add("HF_TOKEN", "hf_s3cret_value");
  JobContext& ctx = start();
  ctx.say("token hf_s3cret_value in use");
  ASSERT_FALSE(console_.lines.empty());
  EXPECT_EQ(console_.lines.back().rfind("[w1] token ", 0), 0u) << console_.lines.back();
  EXPECT_EQ(console_.lines.back().find("hf_s3cret_value"), std::string::npos);

  std::string detail;
  EXPECT_EQ(
      ctx.failed(make_error(ErrorCode::kRemoteFailed, "exit 3: hf_s3cret_value"), "run", &detail),
      Outcome::kFailed);
  EXPECT_EQ(detail.rfind("run: exit 3: ", 0), 0u) << detail;
  EXPECT_EQ(detail.find("hf_s3cret_value"), std::string::npos);
  ctx.fail("a later failure");
  EXPECT_EQ(ctx.error(), detail) << "the first failure is the job's error";
  const std::string log = read_whole_file(config_.logs_dir + std::string("/") + kJob + ".log");
  EXPECT_NE(log.find("[w1] error: run: exit 3"), std::string::npos) << log;
  EXPECT_EQ(log.find("hf_s3cret_value"), std::string::npos);
}

TEST_F(JobPartsTest, ContextNamesTheStopRequestAndStopsAtTheMoneyCap) {
  in_.spec.budget.max_usd = 0.5;
  JobContext& ctx = start();
  PodRecord pod;  // a pod at $1/h, created now
  pod.row_id = 1;
  pod.provider = provider_.name();
  pod.usd_per_hour = 1.0;
  pod.state = PodRecordState::kAlive;
  pod.created_ms = to_unix_ms(clock_.now());
  EXPECT_EQ(ctx.budget_exceeded({pod}), "");
  clock_.advance(std::chrono::hours(1));
  EXPECT_NE(ctx.budget_exceeded({pod}).find("budget.max_usd"), std::string::npos)
      << ctx.budget_exceeded({pod});

  interrupts_ = 1;
  EXPECT_TRUE(ctx.interrupted());
  std::string detail;
  EXPECT_EQ(ctx.failed(make_error(ErrorCode::kInterrupted, "interrupted"), "sync", &detail),
            Outcome::kInterrupted);
  EXPECT_EQ(detail, "sync: stopped: Ctrl-C or SIGTERM");
  EXPECT_EQ(ctx.unless_stopped("sync", &detail), Outcome::kInterrupted);
}

TEST_F(JobPartsTest, ProvisionerCreatesThePodWithItsRowAndDeletesItVerified) {
  start();
  Provisioner provisioner(*ctx_, pods_);
  std::string detail;
  ASSERT_EQ(provisioner.provision_gpu(&detail), Outcome::kOk) << detail;
  EXPECT_EQ(detail, "fake pod p1");
  ASSERT_EQ(provider_.requests_.size(), 1u);
  EXPECT_TRUE(provider_.requests_[0].gpu);
  EXPECT_NE(provider_.requests_[0].name.find(kJob), std::string::npos);
  auto rows = store_->pods_of_job(kJob).value();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].role, "gpu");
  EXPECT_EQ(rows[0].pod_id, "p1");
  EXPECT_TRUE(console_.said("gpu pod p1 created (RTX_4090)"));

  ASSERT_EQ(provisioner.delete_pod(pods_.gpu, &detail), Outcome::kOk) << detail;
  EXPECT_EQ(detail, "deletion confirmed");
  EXPECT_EQ(provider_.get_pod("p1").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store_->pods_of_job(kJob).value()[0].state, PodRecordState::kDeleted);
  EXPECT_EQ(provisioner.delete_pod(pods_.gpu, &detail), Outcome::kSkipped) << "deleted once";
}

TEST_F(JobPartsTest, ProvisionerSendsAWorkerTheChosenOfferCannotGiveToThePlansFallback) {
  FakeProvider other{"other"};
  other.id_prefix = "o";
  other.host_net = 1;
  providers_ = {{provider_.name(), &provider_}, {other.name(), &other}};
  FleetFallback fallback;
  fallback.offer = in_.plan.gpu;
  fallback.offer.provider = other.name();
  fallback.offer.usd_per_hour = 0.55;
  fallback.price = 0.55;
  fallback.worker_usd = 0.012;
  in_.plan.fallbacks = {fallback};
  in_.plan.worker_usd = 0.01;
  in_.worker = {1, 2, 0};
  provider_.create_errors.push_back(make_error(ErrorCode::kNoCapacity, "fake: full"));
  FleetProvision fleet;
  start().set_fleet([] { return std::string(); }, &fleet);

  Provisioner provisioner(*ctx_, pods_);
  std::string detail;
  ASSERT_EQ(provisioner.provision_gpu(&detail), Outcome::kOk) << detail;
  EXPECT_EQ(provisioner.provider().name(), "other");
  EXPECT_EQ(pods_.gpu.record.provider, "other");
  EXPECT_EQ(pods_.gpu.record.pod_id, "o1");
  const std::string said =
      "fake has no RTX_4090 left (provider said: fake: full); w1 runs on other RTX_4090 at "
      "$0.55/h instead of $0.50/h (+$0.0020 estimated)";
  EXPECT_EQ(provisioner.deviation(), said);
  EXPECT_NE(detail.find(std::string(kDeviationMarker) + said), std::string::npos) << detail;
  EXPECT_TRUE(console_.said(said));
  EXPECT_EQ(fleet.full.count("fake/RTX_4090/"), 1u) << "the next worker goes straight past it";
  EXPECT_TRUE(provider_.list_pods().value().empty()) << "the refused create made nothing";
}

TEST_F(JobPartsTest, ConnectionSetsThePodUpAndPublishesItsSshEntry) {
  config_.config_dir = dir_.path() + "/config";
  std::filesystem::create_directories(config_.config_dir);
  in_.secrets = {{"HF_TOKEN", "hf_s3cret_value"}};
  start();
  Provisioner provisioner(*ctx_, pods_);
  std::string detail;
  ASSERT_EQ(provisioner.provision_gpu(&detail), Outcome::kOk) << detail;
  PodConnection connection(*ctx_, pods_);
  ASSERT_EQ(connection.connect(pods_.gpu, provisioner.provider(), &detail), Outcome::kOk) << detail;
  EXPECT_NE(detail.find(", host key "), std::string::npos) << detail;
  EXPECT_EQ(pods_.workdir, pod_->volume() + "/job");
  EXPECT_TRUE(std::filesystem::is_directory(pods_.workdir));
  const std::string env = read_whole_file(pods_.gpu.paths.pod_dir + "/env.sh");
  EXPECT_NE(env.find("BURST_JOB_ID"), std::string::npos) << env;
  EXPECT_NE(env.find("hf_s3cret_value"), std::string::npos) << "the secret reaches the pod";
  const std::string alias = ssh_host_alias(kJob);
  EXPECT_NE(read_whole_file(ssh_hosts_path(config_.config_dir)).find(alias), std::string::npos);
  EXPECT_TRUE(console_.said("`ssh " + alias + "` reaches this pod"));
  EXPECT_EQ(std::filesystem::status(config_.state_dir + "/ssh").permissions(),
            std::filesystem::perms::owner_all)
      << "the known-hosts directory is the user's alone, whatever the umask";
  EXPECT_NE(store_->pods_of_job(kJob).value()[0].host_key, "") << "the host key is pinned";
  ASSERT_EQ(provisioner.delete_pod(pods_.gpu, &detail), Outcome::kOk) << detail;
  EXPECT_EQ(read_whole_file(ssh_hosts_path(config_.config_dir)).find(alias), std::string::npos)
      << "the deleted pod's entry is gone";
}

// A pod the provider stops (a spot pod taken back) between "running" and the first SSH login
// ends the wait within seconds, not when the provider's whole wait runs out (E2ESpot's
// preemption storm hung there under load).
TEST_F(JobPartsTest, ConnectionGivesUpOnAPodTheProviderStopsBeforeSshAnswers) {
  class Refusing : public RemoteConnector {
   public:
    Result<std::unique_ptr<RemoteSession>> connect(SshTarget&) override {
      ++attempts;
      return make_error(ErrorCode::kConnection, "connection refused");
    }
    int attempts = 0;
  } refusing;
  config_.ssh_wait_seconds = 600;
  deps_.emplace(JobDeps{*store_, clock_, refusing, provider_, console_, config_,
                        [this] { return interrupts_.load(); }});
  deps_->providers = providers_;
  ctx_ = std::make_unique<JobContext>(*deps_, in_, redact_);
  Provisioner provisioner(*ctx_, pods_);
  std::string detail;
  ASSERT_EQ(provisioner.provision_gpu(&detail), Outcome::kOk) << detail;
  provider_.on_get = [&](Pod& p) {  // running, then stopped once SSH has been refused
    if (refusing.attempts > 0) p.state = PodState::kStopping;
  };
  const MonoTime t0 = clock_.mono_now();
  PodConnection connection(*ctx_, pods_);
  EXPECT_NE(connection.connect(pods_.gpu, provisioner.provider(), &detail), Outcome::kOk);
  EXPECT_LT(clock_.mono_now() - t0, std::chrono::seconds(30)) << "waited out the SSH wait";
  EXPECT_NE(ctx_->error().find("stopped before SSH answered"), std::string::npos) << ctx_->error();
}

TEST_F(JobPartsTest, StepRunnerReportsAFailingStepAndStopsOneAtTheMoneyCap) {
  in_.spec.budget.max_usd = 0.5;
  start();
  Provisioner provisioner(*ctx_, pods_);
  gpu_pod_ready(provisioner);
  StepRunner steps(*ctx_, pods_);
  std::string detail;
  EXPECT_EQ(steps.step("setup", "echo from the step\nexit 3", pods_.gpu, 0, &detail),
            Outcome::kFailed);
  EXPECT_EQ(detail, "setup: exited with status 3");
  ASSERT_FALSE(console_.out.empty());
  EXPECT_EQ(console_.out.front(), "from the step");
  EXPECT_FALSE(ctx_->stopped_by_limit());

  clock_.advance(std::chrono::hours(2));  // the $0.50/h pod has cost $1 of its $0.50 cap
  EXPECT_EQ(steps.step("run", "sleep 30", pods_.gpu, 0, &detail), Outcome::kFailed);
  EXPECT_NE(detail.find("run: stopped by budget"), std::string::npos) << detail;
  EXPECT_TRUE(ctx_->stopped_by_limit()) << "a limit's stop, never retried";
  EXPECT_EQ(ctx_->error(), "setup: exited with status 3") << "the first failure stands";
  EXPECT_FALSE(std::filesystem::exists(config_.logs_dir + std::string("/") + kJob + ".run.offsets"))
      << "the follower saw the step to its end";
}

TEST_F(JobPartsTest, TransfersSyncTheCodeAndPullTheStepsArtefactRecordingBoth) {
  start();
  Provisioner provisioner(*ctx_, pods_);
  gpu_pod_ready(provisioner);
  Transfers transfers(*ctx_, pods_);
  std::string detail;
  ASSERT_EQ(transfers.sync("", &detail), Outcome::kOk) << detail;
  EXPECT_EQ(detail.rfind("1 of 1 files sent", 0), 0u) << detail;
  EXPECT_EQ(read_whole_file(pod_->volume() + "/job/main.py"), "print('hi')\n");
  StepRunner steps(*ctx_, pods_);
  ASSERT_EQ(steps.step("run", "echo result > out.txt", pods_.gpu, 0, &detail), Outcome::kOk)
      << detail;
  ASSERT_EQ(transfers.pull(&detail), Outcome::kOk) << detail;
  EXPECT_EQ(read_whole_file(dir_.path() + "/out/out.txt"), "result\n");
  std::vector<std::string> directions;
  for (const TransferRecord& t : store_->transfers(kJob).value()) directions.push_back(t.direction);
  EXPECT_EQ(directions, (std::vector<std::string>{"sync", "pull"}));
}

}  // namespace
}  // namespace burst
