// Where the prepare step runs (plan/prepare.h) and what the plan counts for it: a cold volume
// stages on a CPU pod when that is cheaper than GPU time, a warm volume with creates: expects a
// skip, a provider without CPU pods runs it on the GPU pod, and the plan says which and why.
#include <gtest/gtest.h>

#include <cmath>

#include "burst/weight_load.h"
#include "plan/plan_summary.h"
#include "plan/planner.h"
#include "plan/prepare.h"
#include "registry.h"

namespace burst {
namespace {

Offer prep_offer(const std::string& provider, const std::string& gpu, double usd_per_hour,
                 int count = 1) {
  Offer o;
  o.provider = provider;
  o.traits = find_provider_traits(provider);
  o.gpu_type = gpu;
  o.gpu_count = count;
  o.vram_gb = count ? std::optional<double>(24) : std::nullopt;
  o.usd_per_hour = usd_per_hour;
  o.region = "eu";
  o.price_source = "live offer";
  return o;
}

// 14 GB at the cold rate (100 MB/s) + 10 s of overhead: 150 s.
constexpr double kFourteenGb = 14e9;

TEST(Prepare, ColdVolumeStagesOnACpuPodWhenThatIsCheaper) {
  PrepareInput in{0.69,
                  prep_offer("other", "cpu", 0.06, 0),
                  true,
                  false,
                  true,
                  kFourteenGb,
                  kColdLoadBytesPerSecond};
  PrepareChoice c = choose_prepare(in);
  EXPECT_EQ(c.where, PrepareWhere::kCpuPod);
  EXPECT_FALSE(c.expect_skip);
  EXPECT_DOUBLE_EQ(c.download_s, 150);
  EXPECT_DOUBLE_EQ(c.cpu_pod_s, 240);  // the unknown provider's 90 s boot prior + the step
  EXPECT_NEAR(c.cpu_pod_usd, 240 / 3600.0 * 0.06, 1e-9);
  EXPECT_NEAR(c.gpu_pod_usd, 150 / 3600.0 * 0.69, 1e-9);
  EXPECT_DOUBLE_EQ(c.seconds(), 240);
  EXPECT_EQ(c.label(), "cpu-pod");
  EXPECT_EQ(c.why,
            "cold volume; on a CPU pod with the volume before the GPU pod exists: cheaper than GPU "
            "time (CPU pod $0.0040, 240 s; GPU pod $0.0287, 150 s)");
}

TEST(Prepare, ACpuPodThatCostsMoreLeavesTheStepOnTheGpuPod) {
  // A cheap GPU and a small download: the CPU pod's boot costs more than the GPU's minutes.
  PrepareInput in{
      0.10, prep_offer("other", "cpu", 0.08, 0), true, false, false, 1e9, kColdLoadBytesPerSecond};
  PrepareChoice c = choose_prepare(in);
  EXPECT_EQ(c.where, PrepareWhere::kGpuPod);
  EXPECT_NE(c.why.find("on the GPU pod: a CPU pod would not be cheaper"), std::string::npos)
      << c.why;
  EXPECT_DOUBLE_EQ(c.seconds(), 20);
  EXPECT_NEAR(c.usd(), 20 / 3600.0 * 0.10, 1e-12);
}

TEST(Prepare, WithoutCpuPodsItRunsOnTheGpuPodAndSaysSo) {
  PrepareInput in{0.69, std::nullopt, false, false, true, kFourteenGb, kColdLoadBytesPerSecond};
  PrepareChoice c = choose_prepare(in);
  EXPECT_EQ(c.where, PrepareWhere::kGpuPod);
  EXPECT_EQ(c.why,
            "cold volume; on the GPU pod: the provider has no CPU pods that mount the volume (GPU "
            "pod $0.0287, 150 s)");
  in.cpu_pods = true;  // CPU pods, but no offer to price
  EXPECT_NE(choose_prepare(in).why.find("no CPU offer"), std::string::npos);
}

TEST(Prepare, AWarmVolumeWithCreatesExpectsASkipButAStepWithoutCreatesRunsAgain) {
  PrepareInput in{0.69,
                  prep_offer("other", "cpu", 0.06, 0),
                  true,
                  true,
                  true,
                  kFourteenGb,
                  kColdLoadBytesPerSecond};
  PrepareChoice c = choose_prepare(in);
  EXPECT_TRUE(c.expect_skip);
  EXPECT_EQ(c.seconds(), 0);
  EXPECT_EQ(c.usd(), 0);
  EXPECT_EQ(c.label(), "skipped if every creates: path exists (checked on the GPU pod)");
  in.has_creates = false;
  c = choose_prepare(in);
  EXPECT_FALSE(c.expect_skip);
  EXPECT_EQ(c.where, PrepareWhere::kCpuPod);
  EXPECT_EQ(c.why.rfind("volume staged before, but the step declares no creates:", 0), 0u) << c.why;
}

PipelineSpec prepare_spec() {
  PipelineSpec s;
  s.name = "render";
  s.run = "python render.py";
  s.workload.kind = "custom";
  s.workload.reference = WorkloadReference{"RTX_4090", 600, ""};
  s.prepare = PrepareSpec{"", "./fetch.sh", {"models/w.bin"}, 14, {}};
  return s;
}

TEST(Prepare, ThePlanCountsTheStepWhereItRunsAndPrintsTheDecision) {
  PipelineSpec spec = prepare_spec();
  PlanInput in;
  in.providers = {"other"};
  in.gpu_offers = {prep_offer("other", "RTX_4090", 0.69)};
  in.cpu_offers = {prep_offer("other", "cpu", 0.06, 0)};
  auto cold = make_plan(spec, in);
  ASSERT_TRUE(cold.ok()) << cold.error().message;
  ASSERT_TRUE(cold->prepare.has_value());
  EXPECT_EQ(cold->prepare->where, PrepareWhere::kCpuPod);
  // The CPU pod's 90 s boot + 10 s + 14 GB downloaded at the hub rate (burst/weight_load.h).
  const double step_s = 90 + 10 + 14e9 / hub_download_bps(14e9, "");
  EXPECT_NEAR(cold->estimate.prepare_usd, std::ceil(step_s) / 3600.0 * 0.06, 1e-9);  // billed /s
  EXPECT_DOUBLE_EQ(cold->estimate.prepare_s, step_s);
  spec.prepare.reset();
  auto without = make_plan(spec, in);
  ASSERT_TRUE(without.ok());
  EXPECT_NEAR(cold->estimate.usd, without->estimate.usd + cold->estimate.prepare_usd, 1e-9)
      << "the GPU part is unchanged; the step adds its own cost";
  spec = prepare_spec();

  const auto lines = plan_summary_lines(spec, *cold);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[2], "  volume:  " + spec.volume.name + " (50 GB), cold");
  EXPECT_EQ(lines[3].rfind("  prepare: cpu-pod (other CPU pod at $0.06/h), est 118 s, $0.0020; "
                           "cold volume; on a CPU pod",
                           0),
            0u)
      << lines[3];

  in.warm_volume = true;
  auto warm = make_plan(spec, in);
  ASSERT_TRUE(warm.ok());
  EXPECT_TRUE(warm->prepare->expect_skip);
  EXPECT_EQ(warm->estimate.prepare_usd, 0);
  EXPECT_NE(plan_summary_lines(spec, *warm)[2].find("warm"), std::string::npos);
}

TEST(Prepare, OnAHostWithoutCpuPodsTheDownloadGoesNoFasterThanTheOffersLink) {
  // Vast has no CPU pods, so the step downloads on the GPU offer's host; its inet_down
  // (Offer::download_bps) bounds the download. Where CPU pods run it, the GPU offer's link is not
  // the one used.
  PipelineSpec spec = prepare_spec();
  PlanInput in;
  in.providers = {"vast"};
  in.gpu_offers = {prep_offer("vast", "RTX_4090", 0.69)};
  auto fast = make_plan(spec, in);
  ASSERT_TRUE(fast.ok()) << fast.error().message;
  ASSERT_TRUE(fast->prepare.has_value());
  EXPECT_EQ(fast->prepare->where, PrepareWhere::kGpuPod);
  in.gpu_offers[0].download_bps = 100e6 / 8;  // 100 Mb/s
  auto slow = make_plan(spec, in);
  ASSERT_TRUE(slow.ok()) << slow.error().message;
  EXPECT_NEAR(slow->estimate.prepare_s - fast->estimate.prepare_s,
              kFourteenGb / (100e6 / 8) - kFourteenGb / hub_download_bps(kFourteenGb, ""), 1e-6);

  PlanInput other;
  other.providers = {"other"};
  other.gpu_offers = {prep_offer("other", "RTX_4090", 0.69)};
  other.cpu_offers = {prep_offer("other", "cpu", 0.06, 0)};
  auto unbound = make_plan(spec, other);
  other.gpu_offers[0].download_bps = 100e6 / 8;
  auto bound = make_plan(spec, other);
  ASSERT_TRUE(unbound.ok() && bound.ok());
  EXPECT_DOUBLE_EQ(bound->estimate.prepare_s, unbound->estimate.prepare_s);
}

TEST(Prepare, APlanSaysWhenTheVolumeReadsTheStagedWeightsSlowerThanTheStepDownloadsThem) {
  // RunPod's network volume reads at a measured 237 MB/s; the step downloads 14 GB through Xet
  // faster than that (burst/weight_load.h): staging makes every GPU pod's load slower.
  PipelineSpec spec = prepare_spec();
  spec.workload.params_b = 7;  // 14 GB of bf16 weights, read from the staged volume
  PlanInput in;
  in.providers = {"runpod"};
  in.gpu_offers = {prep_offer("runpod", "RTX_4090", 0.69)};
  in.cpu_offers = {prep_offer("runpod", "cpu", 0.06, 0)};
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const std::string want =
      "prepare: each GPU pod reads the staged weights from the volume at 237 MB/s, slower than "
      "the step downloads them (" +
      std::to_string(static_cast<int>(std::lround(plan->prepare->download_bps / 1e6))) +
      " MB/s): on runpod staging saves no GPU time";
  bool found = false;
  for (const std::string& n : plan->notes) found = found || n.rfind(want, 0) == 0;
  EXPECT_TRUE(found) << want;
  EXPECT_GT(plan->prepare->download_bps, 237e6);
  // Vast's volume is the host's own disk (4 GB/s prior): staging pays, nothing is said.
  in.providers = {"vast"};
  in.gpu_offers = {prep_offer("vast", "RTX_4090", 0.69)};
  in.cpu_offers.clear();
  auto vast = make_plan(spec, in);
  ASSERT_TRUE(vast.ok()) << vast.error().message;
  for (const std::string& n : vast->notes) EXPECT_EQ(n.find("staging saves no"), std::string::npos);
  // Weights the spec reads from elsewhere do not come from the volume: nothing is said either.
  spec.workload.weights_from = "local-disk";
  in = {};
  in.providers = {"runpod"};
  in.gpu_offers = {prep_offer("runpod", "RTX_4090", 0.69)};
  in.cpu_offers = {prep_offer("runpod", "cpu", 0.06, 0)};
  auto local = make_plan(spec, in);
  ASSERT_TRUE(local.ok()) << local.error().message;
  for (const std::string& n : local->notes)
    EXPECT_EQ(n.find("staging saves no"), std::string::npos);
}

}  // namespace
}  // namespace burst
