// Cold start from evidence: provisioning + image pull learned from the store's own runs, per
// provider and per GPU type where the history has it, with the registry's constants only as
// priors; the same plan for `burst plan` and `burst run` (both go through plan_with_history).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "app/plan_with_history.h"
#include "burst/store.h"
#include "fakes/runpod_plan_input.h"
#include "fakes/temp_dir.h"
#include "plan/boot_history.h"
#include "registry.h"

namespace burst {
namespace {

TEST(BootHistory, BlendsTheProviderPriorWithMeasuredRuns) {
  const std::vector<BootSample> runs{{"runpod", "RTX_4090", 100},
                                     {"runpod", "RTX_4090", 110},
                                     {"runpod", "RTX_4090", 120},
                                     {"vast", "RTX_4090", 400}};
  // runpod: (2 x 60 + 330) / 5 = 90; its RTX_4090 (3 runs): (2 x 90 + 330) / 5 = 102.
  BootEstimate gpu = estimate_boot(runs, "runpod", "RTX_4090", 60);
  EXPECT_DOUBLE_EQ(gpu.seconds, 102);
  EXPECT_EQ(gpu.runs, 3);
  EXPECT_EQ(gpu.scope, "runpod RTX_4090");
  EXPECT_EQ(gpu.note(60),
            "provisioning + image pull 102 s, learned from 3 runs on runpod RTX_4090 (prior 60 s)");
  // Another GPU type on runpod: the provider's estimate.
  BootEstimate other = estimate_boot(runs, "runpod", "A40", 60);
  EXPECT_DOUBLE_EQ(other.seconds, 90);
  EXPECT_EQ(other.scope, "runpod");
  // One run on a type is not enough for a per-type estimate: (2 x 90 + 400) / 3 on vast's.
  BootEstimate vast = estimate_boot(runs, "vast", "RTX_4090", 90);
  EXPECT_NEAR(vast.seconds, (2 * 90 + 400) / 3.0, 1e-9);
  EXPECT_EQ(vast.scope, "vast");
  // No runs: the prior, and no note.
  BootEstimate none = estimate_boot(runs, "lambda", "H100_SXM", 180);
  EXPECT_DOUBLE_EQ(none.seconds, 180);
  EXPECT_EQ(none.runs, 0);
  EXPECT_EQ(none.note(180), "");
}

PhaseRecord boot_phase(Phase p, int64_t from, int64_t to, Outcome o) {
  PhaseRecord r;
  r.job_id = "j";
  r.phase = p;
  r.started_ms = from;
  r.ended_ms = to;
  r.outcome = o;
  return r;
}

TEST(BootHistory, ASampleIsProvisionStartToSshReadyOfTheGpuPod) {
  JobRecord job;
  job.id = "j";
  job.provider = "runpod";
  PodRecord cpu, gpu;
  cpu.role = "cpu";
  gpu.role = "gpu";
  gpu.gpu_type = "RTX_4090";
  const std::vector<PodRecord> pods{cpu, gpu};
  BootSample s;
  ASSERT_TRUE(boot_sample_of(job,
                             {boot_phase(Phase::kPlan, 0, 1000, Outcome::kOk),
                              boot_phase(Phase::kProvision, 1000, 31000, Outcome::kOk),
                              boot_phase(Phase::kWaitSsh, 31000, 76000, Outcome::kOk),
                              boot_phase(Phase::kRun, 76000, 99000, Outcome::kFailed)},
                             pods, &s));
  EXPECT_EQ(s.provider, "runpod");
  EXPECT_EQ(s.gpu_type, "RTX_4090");
  EXPECT_DOUBLE_EQ(s.seconds, 75);
  // A provision that failed, or SSH never ready, measures nothing.
  EXPECT_FALSE(boot_sample_of(job,
                              {boot_phase(Phase::kProvision, 1000, 31000, Outcome::kFailed),
                               boot_phase(Phase::kWaitSsh, 31000, 76000, Outcome::kOk)},
                              pods, &s));
  EXPECT_FALSE(
      boot_sample_of(job, {boot_phase(Phase::kProvision, 1000, 31000, Outcome::kOk)}, pods, &s));
  // A stuck hour is not a boot time.
  EXPECT_FALSE(boot_sample_of(job,
                              {boot_phase(Phase::kProvision, 0, 1000, Outcome::kOk),
                               boot_phase(Phase::kWaitSsh, 1000, 4'000'000, Outcome::kOk)},
                              pods, &s));
}

// Three recorded runpod RTX_4090 jobs that took 100, 110 and 120 s to answer SSH.
void boot_record_runs(Store& store) {
  int n = 0;
  for (int64_t boot_ms : {100'000, 110'000, 120'000}) {
    JobRecord j;
    j.id = "job" + std::to_string(++n);
    j.pipeline = "other-pipeline";  // any pipeline's jobs teach the provider's boot time
    j.provider = "runpod";
    j.state = JobState::kSucceeded;
    j.created_ms = n * 1'000'000;
    j.finished_ms = j.created_ms + boot_ms + 5000;
    ASSERT_TRUE(store.create_job(j).ok());
    ASSERT_TRUE(store.begin_phase(j.id, Phase::kProvision, j.created_ms).ok());
    ASSERT_TRUE(
        store.end_phase(j.id, Phase::kProvision, j.created_ms + 20'000, Outcome::kOk, "").ok());
    ASSERT_TRUE(store.begin_phase(j.id, Phase::kWaitSsh, j.created_ms + 20'000).ok());
    ASSERT_TRUE(
        store.end_phase(j.id, Phase::kWaitSsh, j.created_ms + boot_ms, Outcome::kOk, "").ok());
    PodRecord pod;
    pod.job_id = j.id;
    pod.provider = "runpod";
    pod.role = "gpu";
    pod.name = "burst-" + j.id;
    pod.gpu_type = "RTX_4090";
    pod.gpu_count = 1;
    pod.created_ms = j.created_ms;
    ASSERT_TRUE(store.add_pod(pod).ok());
  }
}

PipelineSpec boot_reference_spec() {
  PipelineSpec s;
  s.name = "render";
  s.run = "python render.py";
  s.workload.kind = "custom";
  s.workload.reference = WorkloadReference{"RTX_4090", 600, ""};
  return s;
}

TEST(PlanBootHistory, PlanAndRunLearnTheColdStartFromTheStore) {
  TempDir dir;
  Config config;
  config.db_path = dir.path() + "/burst.db";
  const double prior = find_provider_traits("runpod")->boot_s;
  {
    PlanInput empty = runpod_4090_plan_input();  // no store yet: the prior
    auto plan = plan_with_history(boot_reference_spec(), &empty, config);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_DOUBLE_EQ(plan->estimate.cold_start_s, prior);
  }
  {
    auto store = open_store("", config.db_path);
    ASSERT_TRUE(store.ok()) << store.error().message;
    boot_record_runs(**store);
  }
  // `burst plan` (any width) and `burst run` (one worker) read the same history.
  for (int max_workers : {64, 1}) {
    PlanInput in = runpod_4090_plan_input();
    in.max_workers = max_workers;
    auto plan = plan_with_history(boot_reference_spec(), &in, config);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    const double provider = (2 * prior + 330) / 5;
    EXPECT_NEAR(plan->estimate.cold_start_s, (2 * provider + 330) / 5, 1e-9);
    ASSERT_FALSE(plan->notes.empty());
    EXPECT_NE(plan->notes.front().find("learned from 3 runs on runpod RTX_4090"), std::string::npos)
        << plan->notes.front();
  }
  // A measured value handed in (PlanInput::boot_s) still wins.
  PlanInput fixed = runpod_4090_plan_input();
  fixed.boot_s = 30;
  auto plan = plan_with_history(boot_reference_spec(), &fixed, config);
  ASSERT_TRUE(plan.ok());
  EXPECT_DOUBLE_EQ(plan->estimate.cold_start_s, 30);
}

}  // namespace
}  // namespace burst
