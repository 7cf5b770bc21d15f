// Volumes you can see and keep (issue 32): the plan reads where the store records the spec's
// volume (plan/volume_home.h). An offer where it already is wins while its estimate is at most
// 15% above the cheapest; otherwise the plan says, before anything is created, that a new volume
// will be made, where, its size after the provider's minimum (RunPod: 10 GB, v2 spec
// CreateNetworkVolumeRequest.size minimum=10) and its cost per month.
#include <gtest/gtest.h>

#include <string>

#include "app/plan_with_history.h"
#include "burst/store.h"
#include "fakes/runpod_plan_input.h"
#include "fakes/temp_dir.h"
#include "plan/plan_summary.h"

namespace burst {
namespace {

PipelineSpec volume_spec(int size_gb) {
  PipelineSpec s;
  s.name = "serve";
  s.run = "python serve.py";
  s.volume.name = "cache";
  s.volume.size_gb = size_gb;
  s.workload.kind = "custom";
  s.workload.reference = WorkloadReference{"RTX_4090", 600, ""};
  return s;
}

void record_volume(Store& store, const std::string& region, int size_gb) {
  VolumeRecord v;
  v.provider = "runpod";
  v.spec_name = "cache";
  v.region = region;
  v.volume_id = "vol-" + region;
  v.state = "ready";
  v.size_gb = size_gb;
  v.usd_per_gb_month = 0.07;
  v.created_ms = 1'000'000;
  v.updated_ms = 1'000'000;
  ASSERT_TRUE(store.put_volume(v).ok());
}

// Two RunPod offers: EU-RO-1 at `home_usd`/h, US-TX-3 at $0.69/h.
PlanInput two_regions(double home_usd) {
  PlanInput in = runpod_4090_plan_input();
  Offer home = in.gpu_offers[0];
  home.region = "EU-RO-1";
  home.usd_per_hour = home_usd;
  in.gpu_offers[0].region = "US-TX-3";
  in.gpu_offers.push_back(home);
  return in;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

class PlanVolumeHome : public ::testing::Test {
 protected:
  void SetUp() override { config_.db_path = dir_.path() + "/burst.db"; }
  Plan plan(const PipelineSpec& spec, double home_usd) {
    PlanInput in = two_regions(home_usd);
    auto p = plan_with_history(spec, &in, config_);
    EXPECT_TRUE(p.ok()) << p.error().message;
    return p.ok() ? *p : Plan{};
  }
  void store_volume(const std::string& region, int size_gb) {
    auto store = open_store("", config_.db_path);
    ASSERT_TRUE(store.ok()) << store.error().message;
    record_volume(**store, region, size_gb);
  }
  TempDir dir_;
  Config config_;
};

TEST_F(PlanVolumeHome, AnOfferWhereTheVolumeIsWinsWithinFifteenPercent) {
  store_volume("EU-RO-1", 50);
  const PipelineSpec spec = volume_spec(50);
  const Plan p = plan(spec, 0.69 * 1.10);  // 10% dearer where the volume is
  EXPECT_EQ(p.gpu.region, "EU-RO-1");
  ASSERT_TRUE(p.volume.has_value());
  EXPECT_TRUE(p.volume->exists);
  const std::string text = joined(plan_summary_lines(spec, p));
  EXPECT_NE(text.find("  volume home: cache is on runpod in EU-RO-1 already (50 GB, $3.50/month); "
                      "no new volume; chosen over runpod in US-TX-3"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("within the 15% kept for a volume's home"), std::string::npos) << text;
  EXPECT_EQ(text.find("new volume:"), std::string::npos) << text;
}

TEST_F(PlanVolumeHome, BeyondTheToleranceThePlanSaysANewVolumeWillBeMadeAndWhatItCosts) {
  store_volume("EU-RO-1", 50);
  const PipelineSpec spec = volume_spec(50);
  const Plan p = plan(spec, 0.69 * 1.30);  // 30% dearer where the volume is
  EXPECT_EQ(p.gpu.region, "US-TX-3");
  ASSERT_TRUE(p.volume.has_value());
  EXPECT_FALSE(p.volume->exists);
  const std::string text = joined(plan_summary_lines(spec, p));
  EXPECT_NE(text.find("  new volume: cache will be created on runpod in US-TX-3, 50 GB, "
                      "$3.50/month while it exists; it starts empty; cache on runpod in EU-RO-1 "
                      "is kept and not used by this run"),
            std::string::npos)
      << text;
}

TEST_F(PlanVolumeHome, ANewVolumeIsSizedAfterTheProvidersMinimum) {
  const PipelineSpec spec = volume_spec(1);  // RunPod makes 10 GB of a 1 GB request
  const Plan p = plan(spec, 0.79);
  ASSERT_TRUE(p.volume.has_value());
  EXPECT_EQ(p.volume->size_gb, 10);
  const std::string text = joined(plan_summary_lines(spec, p));
  EXPECT_NE(
      text.find("  new volume: cache will be created on runpod in US-TX-3, 10 GB (1 GB asked; "
                "runpod's minimum is 10 GB), $0.70/month while it exists"),
      std::string::npos)
      << text;
}

}  // namespace
}  // namespace burst
