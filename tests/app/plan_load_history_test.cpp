// Weight load from evidence: the cold (download) rate learned per provider from earlier prepare
// steps and the warm rate from earlier warm jobs' timed volume reads, the constants only as priors;
// the plan says which applies and from what; the same plan for `burst plan` and `burst run` (both
// go through plan_with_history).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "app/plan_with_history.h"
#include "burst/store.h"
#include "burst/weight_load.h"
#include "fakes/runpod_plan_input.h"
#include "fakes/temp_dir.h"
#include "plan/load_history.h"
#include "plan/prepare.h"
#include "registry.h"
#include "report/job_facts.h"

namespace burst {
namespace {

TEST(LoadHistory, BlendsTheColdPriorWithMeasuredDownloads) {
  // 16 GB in 40 s and in 80 s: seconds per byte (2 / 100e6 + 40 / 16e9 + 80 / 16e9) / 4.
  const std::vector<LoadSample> runs{{"runpod", 16e9, 40}, {"runpod", 16e9, 80}, {"vast", 16e9, 8}};
  const LoadRate r = weight_load_rate(runs, "runpod", false);
  const double expected = 4 / (2 / 100e6 + 40 / 16e9 + 80 / 16e9);
  EXPECT_NEAR(r.bytes_per_s, expected, 1e-3);
  EXPECT_EQ(r.runs, 2);
  EXPECT_NEAR(weight_load_seconds(16e9, r), 16e9 / expected, 1e-9);
  EXPECT_EQ(r.note(16e9),
            "weight load 16.0 GB at 145 MB/s (cold volume: downloaded on first use), learned from "
            "2 prepare steps on runpod (prior 100 MB/s)");
  // No samples for the provider: the prior, said so.
  const LoadRate none = weight_load_rate(runs, "lambda", false);
  EXPECT_DOUBLE_EQ(none.bytes_per_s, kColdLoadBytesPerSecond);
  EXPECT_EQ(none.runs, 0);
  EXPECT_EQ(none.note(16e9),
            "weight load 16.0 GB at 100 MB/s (cold volume: downloaded on first use), prior; no "
            "prepare step measured yet");
  // A warm volume: the prior read rate, whatever the downloads measured.
  const LoadRate warm = weight_load_rate(runs, "runpod", true);
  EXPECT_DOUBLE_EQ(warm.bytes_per_s, kWarmLoadBytesPerSecond);
  EXPECT_EQ(warm.note(16e9),
            "weight load 16.0 GB at 1.0 GB/s (warm volume), prior; no volume read measured yet");
  EXPECT_EQ(weight_load_seconds(0, warm), 0);
}

TEST(LoadHistory, BlendsTheWarmPriorWithMeasuredVolumeReads) {
  // Two runpod reads of 256 MiB at 0.5 and 0.25 GB/s: seconds per byte
  // (2 / 1e9 + 1 / 0.5e9 + 1 / 0.25e9) / 4 = 2e-9, so 0.5 GB/s.
  const double b = 256.0 * 1024 * 1024;
  const std::vector<LoadSample> runs{{"runpod", b, b / 0.5e9, true},
                                     {"runpod", b, b / 0.25e9, true},
                                     {"runpod", 16e9, 8, false},  // a download: the cold rate's
                                     {"vast", b, b / 4e9, true}};
  const LoadRate r = weight_load_rate(runs, "runpod", true);
  EXPECT_NEAR(r.bytes_per_s, 0.5e9, 1e-3);
  EXPECT_EQ(r.runs, 2);
  EXPECT_NEAR(weight_load_seconds(16e9, r), 32, 1e-9);
  EXPECT_EQ(r.note(16e9),
            "weight load 16.0 GB at 500 MB/s (warm volume), learned from 2 volume reads on runpod "
            "(prior 1.0 GB/s)");
  // The cold rate learns only from the download, the warm one only from reads.
  EXPECT_EQ(weight_load_rate(runs, "runpod", false).runs, 1);
  EXPECT_EQ(weight_load_rate(runs, "vast", true).note(16e9),
            "weight load 16.0 GB at 1.3 GB/s (warm volume), learned from 1 volume read on vast "
            "(prior 1.0 GB/s)");
}

TEST(LoadHistory, AWarmSampleIsTheJobsVolumeReadOfEnoughBytes) {
  LoadSample s;
  const std::vector<TransferRecord> transfers{{"j", "sync", 3, 900'000'000, 1'000},
                                              {"j", kVolumeReadDirection, 1, 268'435'456, 250}};
  ASSERT_TRUE(warm_read_sample_of("runpod", transfers, &s));
  EXPECT_EQ(s.provider, "runpod");
  EXPECT_TRUE(s.warm);
  EXPECT_DOUBLE_EQ(s.bytes, 268'435'456);
  EXPECT_DOUBLE_EQ(s.seconds, 0.25);
  // A read of a small file says more about the volume's latency than its rate; no read, no time.
  EXPECT_FALSE(warm_read_sample_of("runpod", {{"j", kVolumeReadDirection, 1, 4'000'000, 20}}, &s));
  EXPECT_FALSE(warm_read_sample_of("runpod", {{"j", kVolumeReadDirection, 1, 268'435'456, 0}}, &s));
  EXPECT_FALSE(warm_read_sample_of("runpod", {{"j", "sync", 1, 268'435'456, 250}}, &s));
  // The pod times its own read: 256 MiB in 1 ms (268 GB/s) is no volume, so no sample.
  EXPECT_FALSE(warm_read_sample_of("runpod", {{"j", kVolumeReadDirection, 1, 268'435'456, 1}}, &s));
  EXPECT_TRUE(warm_read_sample_of("runpod", {{"j", kVolumeReadDirection, 1, 268'435'456, 20}}, &s));
}

PhaseRecord load_phase(Phase p, int64_t from, int64_t to, Outcome o) {
  PhaseRecord r;
  r.job_id = "j";
  r.phase = p;
  r.started_ms = from;
  r.ended_ms = to;
  r.outcome = o;
  return r;
}

TEST(LoadHistory, ASampleIsAPrepareStepThatRanLessItsOverhead) {
  LoadSample s;
  ASSERT_TRUE(load_sample_of("runpod", 16e9,
                             {load_phase(Phase::kPrepareCpu, 0, 30'000, Outcome::kOk),
                              load_phase(Phase::kPrepare, 30'000, 120'000, Outcome::kOk)},
                             &s));
  EXPECT_EQ(s.provider, "runpod");
  EXPECT_DOUBLE_EQ(s.bytes, 16e9);
  EXPECT_DOUBLE_EQ(s.seconds, 90 - kPrepareStepOverheadS);
  // Skipped (warm volume with creates:), failed, or within its own overhead: no measurement.
  for (Outcome o : {Outcome::kSkipped, Outcome::kFailed})
    EXPECT_FALSE(load_sample_of("runpod", 16e9, {load_phase(Phase::kPrepare, 0, 90'000, o)}, &s));
  EXPECT_FALSE(
      load_sample_of("runpod", 16e9, {load_phase(Phase::kPrepare, 0, 9'000, Outcome::kOk)}, &s));
  // Too few bytes to say anything about the link, or no prepare step at all.
  EXPECT_FALSE(
      load_sample_of("runpod", 1e6, {load_phase(Phase::kPrepare, 0, 90'000, Outcome::kOk)}, &s));
  EXPECT_FALSE(
      load_sample_of("runpod", 16e9, {load_phase(Phase::kRun, 0, 90'000, Outcome::kOk)}, &s));
}

// Two recorded runpod jobs whose prepare step downloaded 16 GB in 90 s (80 s after overhead).
void load_record_runs(Store& store) {
  ReportFacts facts;
  facts.prepare = "cpu-pod";
  facts.prepare_download_bytes = 16e9;
  for (int n = 1; n <= 2; ++n) {
    JobRecord j;
    j.id = "load" + std::to_string(n);
    j.pipeline = "other-pipeline";  // any pipeline's downloads teach the provider's rate
    j.provider = "runpod";
    j.state = JobState::kSucceeded;
    j.created_ms = n * 1'000'000;
    j.finished_ms = j.created_ms + 200'000;
    j.facts_json = report_facts_to_json(facts);
    ASSERT_TRUE(store.create_job(j).ok());
    ASSERT_TRUE(store.begin_phase(j.id, Phase::kPrepare, j.created_ms).ok());
    ASSERT_TRUE(
        store.end_phase(j.id, Phase::kPrepare, j.created_ms + 90'000, Outcome::kOk, "").ok());
  }
}

PipelineSpec load_reference_spec() {
  PipelineSpec s;
  s.name = "serve";
  s.run = "python serve.py";
  s.workload.kind = "custom";
  s.workload.params_b = 8;  // 16 GB of fp16 weights to load
  s.workload.precision = "fp16";
  s.workload.reference = WorkloadReference{"RTX_4090", 600, ""};
  return s;
}

TEST(PlanLoadHistory, PlanAndRunLearnTheWeightLoadFromTheStore) {
  TempDir dir;
  Config config;
  config.db_path = dir.path() + "/burst.db";
  const double boot = find_provider_traits("runpod")->boot_s;
  {
    PlanInput empty = runpod_4090_plan_input();  // no store yet: the hub prior, 16 GB at 822 MB/s
    auto plan = plan_with_history(load_reference_spec(), &empty, config);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_NEAR(plan->estimate.cold_start_s,
                boot + weight_load(16e9, hub_download_bps(16e9, ""), "", 1).seconds(), 1e-9);
    EXPECT_NE(plan->weight_load.find("prior; no prepare step measured yet"), std::string::npos)
        << plan->weight_load;
  }
  {
    auto store = open_store("", config.db_path);
    ASSERT_TRUE(store.ok()) << store.error().message;
    load_record_runs(**store);
  }
  // `burst plan` (any width) and `burst run` (one worker) read the same history: seconds per
  // byte (2 / 822e6 + 2 x 80 / 16e9) / 4 = 3.11e-9 (the prior: 16 GB through Xet in 6 s + 13.5
  // s, 822 MB/s), so 16 GB are read in 50 s (322 MB/s), plus the loader's share
  // (burst/weight_load.h).
  const double learned = 4 / (2 / hub_download_bps(16e9, "") + 2 * 80 / 16e9);
  for (int max_workers : {64, 1}) {
    PlanInput in = runpod_4090_plan_input();
    in.max_workers = max_workers;
    auto plan = plan_with_history(load_reference_spec(), &in, config);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_NEAR(plan->estimate.cold_start_s, boot + weight_load(16e9, learned, "", 1).seconds(),
                1e-6);
    EXPECT_NE(plan->weight_load.find("at 322 MB/s"), std::string::npos) << plan->weight_load;
    EXPECT_NE(plan->weight_load.find("learned from 2 prepare steps on runpod"), std::string::npos)
        << plan->weight_load;
  }
}

TEST(PlanLoadHistory, AWarmPlanLearnsTheReadRateFromEarlierVolumeReads) {
  TempDir dir;
  Config config;
  config.db_path = dir.path() + "/burst.db";
  {
    auto store = open_store("", config.db_path);
    ASSERT_TRUE(store.ok()) << store.error().message;
    JobRecord j;
    j.id = "warm1";
    j.pipeline = "other-pipeline";  // any pipeline's reads teach the provider's volume rate
    j.provider = "runpod";
    j.state = JobState::kSucceeded;
    j.created_ms = 1'000'000;
    j.finished_ms = 1'200'000;
    ASSERT_TRUE((*store)->create_job(j).ok());
    // 256 MiB in 1 s: with RunPod's volume prior (237 MB/s, its registry row) weighted 2,
    // (3 / (2 / 237e6 + 1 / 268435456)) B/s.
    ASSERT_TRUE(
        (*store)->add_transfer({"warm1", kVolumeReadDirection, 1, 268'435'456, 1'000}).ok());
  }
  const double rate = 3 / (2 / 237e6 + 1 / 268'435'456.0);
  const double boot = find_provider_traits("runpod")->boot_s;
  for (int max_workers : {64, 1}) {  // `burst plan`, `burst run`
    PlanInput in = runpod_4090_plan_input();
    in.max_workers = max_workers;
    in.warm_volume = true;
    auto plan = plan_with_history(load_reference_spec(), &in, config);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_NEAR(plan->estimate.cold_start_s, boot + weight_load(16e9, rate, "", 1).seconds(), 1e-6);
    EXPECT_NE(plan->weight_load.find("(warm volume), learned from 1 volume read on runpod (prior "
                                     "237 MB/s)"),
              std::string::npos)
        << plan->weight_load;
  }
}

TEST(PlanLoadHistory, TheJobFactsKeepWhatThePrepareStepDownloads) {
  ReportFacts f;
  f.prepare = "gpu-pod";
  f.prepare_download_bytes = 14e9;
  EXPECT_DOUBLE_EQ(report_facts_from_json(report_facts_to_json(f)).prepare_download_bytes, 14e9);
}

}  // namespace
}  // namespace burst
