// Whether a plan loads the weights from a warm volume is judged per provider, region and volume
// from the store (app/plan_with_history.cpp): a volume of the spec's name, ready with the
// provider's id, that a job of the pipeline succeeded on that provider after it was made. Never
// from the pipeline name alone: a local run, or a run on another cloud, warms no cloud's volume.
#include <gtest/gtest.h>

#include <string>

#include "app/plan_with_history.h"
#include "burst/store.h"
#include "burst/weight_load.h"
#include "fakes/runpod_plan_input.h"
#include "fakes/temp_dir.h"

namespace burst {
namespace {

PipelineSpec warm_spec() {
  PipelineSpec s;
  s.name = "serve";
  s.run = "python serve.py";
  s.volume.name = "cache";
  s.workload.kind = "custom";
  s.workload.params_b = 8;  // 16 GB of fp16 weights: from the hub cold, RunPod's volume warm
  s.workload.precision = "fp16";
  s.workload.reference = WorkloadReference{"RTX_4090", 600, ""};
  return s;
}

void record_success(Store& store, const std::string& id, const std::string& provider,
                    int64_t finished_ms) {
  JobRecord j;
  j.id = id;
  j.pipeline = "serve";
  j.provider = provider;
  j.state = JobState::kSucceeded;
  j.created_ms = finished_ms - 100'000;
  j.finished_ms = finished_ms;
  ASSERT_TRUE(store.create_job(j).ok());
}

void record_volume(Store& store, const std::string& provider, const std::string& region,
                   int64_t created_ms) {
  VolumeRecord v;
  v.provider = provider;
  v.spec_name = "cache";
  v.region = region;
  v.volume_id = provider + "-vol-" + region;
  v.state = "ready";
  v.size_gb = 50;
  v.created_ms = created_ms;
  v.updated_ms = created_ms;
  ASSERT_TRUE(store.put_volume(v).ok());
}

// The weight load of warm_spec() from the hub (cold) and from RunPod's network volume (warm), by
// the default loader (burst/weight_load.h, plan/weight_source.h).
double hub_load() { return weight_load(16e9, hub_download_bps(16e9, ""), "", 1).seconds(); }
double runpod_volume_load() {
  return weight_load(16e9, find_provider_traits("runpod")->volume_read_bps, "", 1).seconds();
}

// The plan's cold start on RunPod's RTX 4090 in `region`.
double cold_start(const Config& config, const std::string& region, bool* warm) {
  PlanInput in = runpod_4090_plan_input();
  in.gpu_offers[0].region = region;
  auto plan = plan_with_history(warm_spec(), &in, config);
  EXPECT_TRUE(plan.ok()) << plan.error().message;
  if (!plan.ok()) return -1;
  *warm = plan->warm_volume;
  return plan->estimate.cold_start_s;
}

TEST(PlanWarmVolume, ALocalRunLeavesEveryCloudPlanUnchanged) {
  TempDir dir;
  Config config;
  config.db_path = dir.path() + "/burst.db";
  const double boot = find_provider_traits("runpod")->boot_s;
  {
    auto store = open_store("", config.db_path);  // an empty store
    ASSERT_TRUE(store.ok()) << store.error().message;
  }
  bool warm = true;
  const double before = cold_start(config, "EU-RO-1", &warm);
  EXPECT_NEAR(before, boot + hub_load(), 1e-6);
  EXPECT_FALSE(warm);
  {
    auto store = open_store("", config.db_path);
    ASSERT_TRUE(store.ok()) << store.error().message;
    record_volume(**store, "local", "", 1'000'000);
    record_success(**store, "local1", "local", 2'000'000);
  }
  EXPECT_NEAR(cold_start(config, "EU-RO-1", &warm), before, 1e-9);
  EXPECT_FALSE(warm);
}

TEST(PlanWarmVolume, WarmthIsPerProviderRegionAndVolume) {
  TempDir dir;
  Config config;
  config.db_path = dir.path() + "/burst.db";
  const double boot = find_provider_traits("runpod")->boot_s;
  {
    auto store = open_store("", config.db_path);
    ASSERT_TRUE(store.ok()) << store.error().message;
    // RunPod's volume in EU-RO-1, then a success on RunPod; a volume in US-TX-3 made after it.
    record_volume(**store, "runpod", "EU-RO-1", 1'000'000);
    record_success(**store, "rp1", "runpod", 2'000'000);
    record_volume(**store, "runpod", "US-TX-3", 3'000'000);
    // Lambda's volume and success say nothing of RunPod's.
    record_volume(**store, "lambda", "us-east-1", 1'000'000);
    record_success(**store, "la1", "lambda", 2'000'000);
  }
  bool warm = false;
  EXPECT_NEAR(cold_start(config, "EU-RO-1", &warm), boot + runpod_volume_load(), 1e-6);
  EXPECT_TRUE(warm);
  EXPECT_NEAR(cold_start(config, "US-TX-3", &warm), boot + hub_load(), 1e-6);
  EXPECT_FALSE(warm);
  EXPECT_NEAR(cold_start(config, "us-east-1", &warm), boot + hub_load(), 1e-6);
  EXPECT_FALSE(warm);
}

}  // namespace
}  // namespace burst
