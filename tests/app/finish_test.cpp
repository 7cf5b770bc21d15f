// app::finish_job, the one place a finished job's reports are written: all three formats once,
// through the job's redactor, the job's report_path recorded, the calibration sample recorded
// once, the webhook sent once; a failure after the job is a warning and never stops the rest.
// And the runner itself writes none of it: a job run through app::run_job is reported by finish,
// one run through JobRunner alone leaves no report behind.
#include "app/finish.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/run_job.h"
#include "app/unstarted_job.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_http_client.h"
#include "fakes/fake_provider.h"
#include "fakes/temp_dir.h"
#include "registry.h"
#include "report/job_facts.h"
#include "report/job_history.h"

namespace burst {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

class FinishTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_sqlite_store(dir_.path() + "/burst.db");
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_ = std::move(s).value();
    config_.state_dir = dir_.path();
    config_.reports_dir = dir_.path() + "/reports";
    config_.logs_dir = dir_.path() + "/logs";
    config_.notify.webhook = "https://hooks.example/T0/B0/tok3n";
    http_.respond(200, "ok");
  }
  // A succeeded job whose plan timed the run: it has a calibration sample to give.
  HistoryJob succeeded() {
    HistoryJob h;
    h.phases = full_phases(300);
    h.estimate_json = estimate(1, 400, 240, 0.9);
    h.facts.workload_kind = "custom";
    h.facts.units = 300;
    return h;
  }
  Finished finish(const std::string& id, const Redactor& redact = Redactor()) {
    return finish_job(FinishDeps{*store_, clock_, config_, &http_}, id, redact);
  }
  TempDir dir_;
  std::unique_ptr<Store> store_;
  Config config_;
  FakeClock clock_;
  FakeHttpClient http_;
};

TEST_F(FinishTest, WritesEachFormatOnceRecordsTheSampleOnceAndNotifiesOnce) {
  HistoryJob h = succeeded();
  record_history(*store_, h);
  Finished f = finish(h.id);
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();

  const std::string base = config_.reports_dir + "/" + h.id;
  EXPECT_EQ(names_in(config_.reports_dir),
            (std::vector<std::string>{h.id + ".html", h.id + ".json", h.id + ".md"}));
  EXPECT_EQ(f.files.json, base + ".json");
  EXPECT_EQ(f.files.markdown, base + ".md");
  EXPECT_EQ(f.files.html, base + ".html");
  auto json = nlohmann::json::parse(slurp(f.files.json));
  EXPECT_EQ(json["job"]["id"], h.id);
  EXPECT_EQ(json["job"]["state"], "succeeded");
  EXPECT_NE(slurp(f.files.markdown).find(h.id), std::string::npos);
  EXPECT_NE(slurp(f.files.html).find("<html"), std::string::npos);
  EXPECT_NE(f.summary.find("$"), std::string::npos) << f.summary;

  auto job = store_->get_job(h.id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->report_path, base + ".json") << "burst status and burstd show this path";
  EXPECT_EQ(job->state, JobState::kSucceeded) << "finishing never changes the outcome";

  EXPECT_TRUE(f.calibration_recorded);
  auto samples = store_->calibration_samples(h.pipeline, "custom", 100);
  ASSERT_TRUE(samples.ok()) << samples.error().message;
  ASSERT_EQ(samples->size(), 1u);
  EXPECT_EQ(samples->front().job_id, h.id);
  EXPECT_DOUBLE_EQ(samples->front().measured_s, 300);
  EXPECT_EQ(http_.requests().size(), 1u) << "one webhook per job";
}

TEST_F(FinishTest, EveryFileGoesThroughTheJobsRedactor) {
  HistoryJob h;
  h.phases = full_phases(30);
  h.state = JobState::kFailed;
  h.error = "run: exit 3: token sekret-7f3a-do-not-print";
  h.outcomes = {{"run", "failed"}};
  record_history(*store_, h);
  Redactor redact;
  redact.add("TOKEN", "sekret-7f3a-do-not-print");
  Finished f = finish(h.id, redact);
  for (const std::string& file : {f.files.json, f.files.markdown, f.files.html}) {
    const std::string text = slurp(file);
    EXPECT_EQ(text.find("sekret-7f3a"), std::string::npos) << file;
    EXPECT_NE(text.find("[secret TOKEN]"), std::string::npos) << file;
  }
  EXPECT_EQ(f.summary.find("sekret-7f3a"), std::string::npos) << f.summary;
  EXPECT_FALSE(f.calibration_recorded) << "a failed run measures nothing";
}

TEST_F(FinishTest, AReportThatCannotBeWrittenIsAWarningAndTheRestStillHappens) {
  HistoryJob h = succeeded();
  record_history(*store_, h);
  std::ofstream(config_.reports_dir) << "a file where the reports dir should be";
  Finished f = finish(h.id);
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0], "cannot write the report to " + config_.reports_dir);
  EXPECT_TRUE(f.files.json.empty());
  EXPECT_TRUE(f.calibration_recorded);
  EXPECT_EQ(http_.requests().size(), 1u);
  auto job = store_->get_job(h.id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->report_path, "");
}

TEST_F(FinishTest, AFailedWebhookIsAWarningWithoutTheUrl) {
  HistoryJob h = succeeded();
  record_history(*store_, h);
  http_ = FakeHttpClient();
  for (int i = 0; i < 6; ++i) http_.respond(500, "down");
  Finished f = finish(h.id);
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].rfind("cannot notify the webhook: ", 0), 0u) << f.warnings[0];
  EXPECT_EQ(f.warnings[0].find("tok3n"), std::string::npos) << f.warnings[0];
  EXPECT_FALSE(f.files.json.empty());
}

TEST_F(FinishTest, WriteJobReportsIsTheWriterForJobsEndedWithoutTheirRunner) {
  HistoryJob h;
  h.phases = {{"plan", 1}, {"provision", 60}};
  h.state = JobState::kFailed;
  h.error = "the process running it stopped during phase wait-for-ssh";
  record_history(*store_, h);
  auto files = write_job_reports(*store_, config_.reports_dir, h.id, clock_.now());
  ASSERT_TRUE(files.ok()) << files.error().message;
  EXPECT_EQ(names_in(config_.reports_dir),
            (std::vector<std::string>{h.id + ".html", h.id + ".json", h.id + ".md"}));
  EXPECT_EQ(store_->get_job(h.id)->report_path, files->json);
  auto samples = store_->calibration_samples(h.pipeline, "", 100);
  ASSERT_TRUE(samples.ok());
  EXPECT_TRUE(samples->empty());
  EXPECT_TRUE(http_.requests().empty()) << "reports only: no webhook";
  EXPECT_EQ(
      write_job_reports(*store_, config_.reports_dir, "no-such-job", clock_.now()).error().code,
      ErrorCode::kNotFound);
}

// A pod that never answers SSH: the job fails through the delete without a remote command.
class RefusingConnector : public RemoteConnector {
 public:
  Result<std::unique_ptr<RemoteSession>> connect(SshTarget&) override {
    return make_error(ErrorCode::kAuth, "test: ssh refused");
  }
};

class RunJobTest : public FinishTest {
 protected:
  void SetUp() override {
    FinishTest::SetUp();
    auto parsed = parse_spec("name: in-process\nrun: echo hi\nvolume: {name: v}\n",
                             dir_.path() + "/job.yaml", nullptr, provider_names());
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    spec_ = *parsed;
    offer_.provider = "local";
    offer_.gpu_type = "RTX_4090";
    offer_.gpu_count = 1;
    offer_.vram_gb = 24;
    offer_.usd_per_hour = 0.5;
    offer_.price_source = "live offer";
    config_.ssh_wait_seconds = 30;
  }
  PreparedJob prepared(FakeProvider** provider) {
    PreparedJob job;
    job.plan.gpu = offer_;
    auto p = std::make_unique<FakeProvider>("local");
    p->gpu_offers = {offer_};
    *provider = p.get();
    job.providers["local"] = std::move(p);
    return job;
  }
  PipelineSpec spec_;
  Offer offer_;
  RefusingConnector connector_;
};

class QuietConsole : public Console {
 public:
  void line(const std::string& text) override { lines.push_back(text); }
  void remote_out(const std::string&) override {}
  void remote_err(const std::string&) override {}
  void progress(const std::string&) override {}
  bool confirm(const std::string&) override { return false; }
  std::vector<std::string> lines;
};

TEST_F(RunJobTest, TheRunnerAloneWritesNoReportAndRunJobFinishesOnce) {
  FakeProvider* provider = nullptr;
  PreparedJob job = prepared(&provider);
  QuietConsole console;
  JobInput in;
  in.job_id = "runner-only";
  in.spec = spec_;
  in.plan = job.plan;
  JobDeps deps{*store_, clock_, connector_, *provider, console, config_, [] { return 0; }};
  JobResult alone = JobRunner(deps, std::move(in)).run();
  EXPECT_EQ(alone.state, JobState::kFailed);
  EXPECT_FALSE(fs::exists(config_.reports_dir)) << "the runner writes no report";
  EXPECT_EQ(store_->get_job("runner-only")->report_path, "");
  EXPECT_TRUE(http_.requests().empty()) << "the runner sends no webhook";

  RunJobDeps run_deps{*store_, clock_, connector_, console, config_, [] { return 0; }};
  run_deps.webhook_http = &http_;
  RunJobOutcome run =
      run_job(run_deps, spec_, prepared(&provider), {"with-finish", "ssh-ed25519 AAAA"});
  EXPECT_EQ(run.result.state, JobState::kFailed);
  EXPECT_NE(run.result.error.find("ssh refused"), std::string::npos) << run.result.error;
  EXPECT_EQ(names_in(config_.reports_dir),
            (std::vector<std::string>{"with-finish.html", "with-finish.json", "with-finish.md"}));
  EXPECT_EQ(run.finished.files.json, config_.reports_dir + "/with-finish.json");
  EXPECT_EQ(store_->get_job("with-finish")->report_path, run.finished.files.json);
  EXPECT_EQ(http_.requests().size(), 1u);
  ASSERT_FALSE(console.lines.empty());
  EXPECT_NE(console.lines.back().find("report: " + run.finished.files.markdown), std::string::npos)
      << console.lines.back();
  // The report's facts (price, billing rule) were captured from the plan by the app layer.
  auto facts = report_facts_from_json(store_->get_job("with-finish")->facts_json);
  EXPECT_EQ(facts.gpu_type, "RTX_4090");
  EXPECT_DOUBLE_EQ(facts.gpu_usd_per_hour, 0.5);
}

// A job that ends before it starts is one finished record, never a running one (issue 31: the
// four places that wrote such a record by hand go through record_unstarted).
TEST(UnstartedJobRecord, IsOneFinishedRowAndARunningOrSucceededOneIsRefused) {
  auto store = open_sqlite_store(":memory:");
  ASSERT_TRUE(store.ok()) << store.error().message;
  UnstartedJob job{"20261129-230000-aaaa", "tts", "/p/tts.yaml", JobState::kInterrupted,
                   Phase::kQueued};
  job.error = "cancelled while queued; nothing was created";
  job.finished_ms = 5000;
  ASSERT_TRUE(record_unstarted(**store, job).ok());
  auto rec = (*store)->get_job(job.id);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  EXPECT_EQ(rec->state, JobState::kInterrupted);
  EXPECT_EQ(rec->phase, Phase::kQueued);
  EXPECT_EQ(rec->created_ms, 5000) << "no queue time: created when it finished";
  EXPECT_EQ(rec->finished_ms, 5000);
  EXPECT_EQ(rec->error, job.error);
  EXPECT_FALSE(record_unstarted(**store, job).ok()) << "the same job twice";
  for (JobState s : {JobState::kRunning, JobState::kSucceeded}) {
    UnstartedJob bad = job;
    bad.id = "20261129-230000-bbbb";
    bad.state = s;
    EXPECT_EQ(record_unstarted(**store, bad).error().code, ErrorCode::kInvalid) << to_string(s);
    EXPECT_FALSE((*store)->get_job(bad.id).ok()) << to_string(s) << " was recorded";
  }
}

}  // namespace
}  // namespace burst
