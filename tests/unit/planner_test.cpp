// Choosing where a job runs and what it will cost, from offers given directly (no provider calls).
#include "plan/planner.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "plan/plan_summary.h"
#include "registry.h"

namespace burst {
namespace {

Offer planner_offer(const std::string& provider, const std::string& gpu, double usd_per_hour,
                    std::optional<double> vram_gb = 24, int count = 1) {
  Offer o;
  o.provider = provider;
  o.traits = find_provider_traits(provider);  // null for a name not in the registry
  o.gpu_type = gpu;
  o.gpu_count = count;
  o.vram_gb = vram_gb;
  o.usd_per_hour = usd_per_hour;
  o.region = "eu";
  o.price_source = "live offer";
  return o;
}

Offer cpu_offer(const std::string& provider, double usd_per_hour, bool available = true) {
  Offer o = planner_offer(provider, "cpu", usd_per_hour, std::nullopt, 0);
  o.available = available;
  return o;
}

PipelineSpec spec_with_reference(double runtime_seconds) {
  PipelineSpec s;
  s.name = "render";
  s.run = "python render.py";
  s.workload.kind = "custom";
  s.workload.reference = WorkloadReference{"RTX_4090", runtime_seconds, ""};
  return s;
}

TEST(Planner, ChoosesTheCheapestAdequateOfferAcrossProviders) {
  PipelineSpec spec = spec_with_reference(3600);
  spec.resources.min_vram_gb = 20;
  PlanInput in;
  in.providers = {"runpod", "vast"};
  in.gpu_offers = {planner_offer("runpod", "A100", 2.0, 80),
                   planner_offer("vast", "RTX_4090", 0.5, 24),
                   planner_offer("vast", "RTX_3060", 0.1, 12),     // cheaper, too little VRAM
                   planner_offer("other", "RTX_4090", 0.01, 24)};  // provider not allowed
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.provider, "vast");
  EXPECT_EQ(plan->gpu.gpu_type, "RTX_4090");
  EXPECT_FALSE(plan->cpu.has_value());
  EXPECT_EQ(plan->notes, std::vector<std::string>{"vast RTX_3060: too little VRAM"});
}

TEST(Planner, EarlierProviderWinsATie) {
  PipelineSpec spec = spec_with_reference(600);
  PlanInput in;
  in.gpu_offers = {planner_offer("a", "RTX_4090", 1.0), planner_offer("b", "RTX_4090", 1.0)};
  in.providers = {"b", "a"};
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.provider, "b");
}

TEST(Planner, NoCapacityMessageNamesEveryRejection) {
  PipelineSpec spec = spec_with_reference(600);
  spec.resources.gpus = {"A100"};
  spec.resources.gpu_count = 2;
  spec.resources.min_vram_gb = 40;
  spec.resources.max_usd_per_hour = 2.0;
  Offer unavailable = planner_offer("p", "A100", 1.0, 80, 2);
  unavailable.available = false;
  PlanInput in;
  in.providers = {"p"};
  in.gpu_offers = {
      planner_offer("p", "RTX_4090", 1.0, 24, 2),       planner_offer("p", "A100", 1.0, 24, 2),
      planner_offer("p", "A100", 1.0, std::nullopt, 2), planner_offer("p", "A100", 3.0, 80, 2),
      planner_offer("p", "A100", 1.0, 80, 1),           unavailable};
  auto plan = make_plan(spec, in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(plan.error().message,
            "no offer satisfies the spec's resources\n"
            "  p RTX_4090: RTX_4090 is not in resources.gpus\n"
            "  p A100: too little VRAM\n"  // two offers, one line: reasons are deduplicated
            "  p A100: $3.00/h is over resources.max_usd_per_hour\n"
            "  p A100: fewer GPUs than resources.gpu_count\n"
            "  p A100: not available now");
}

TEST(Planner, AProviderThatCouldNotBeAskedIsNamedWithItsReason) {
  PlanInput in;
  in.unusable = {"runpod: driver not in this build yet"};
  auto plan = make_plan(spec_with_reference(60), in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message,
            "no offer satisfies the spec's resources\n  runpod: driver not in this build yet");
}

TEST(Planner, NoProviderAllowedIsSaid) {
  PlanInput in;
  in.gpu_offers = {planner_offer("p", "A100", 1.0)};
  auto plan = make_plan(spec_with_reference(60), in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(plan.error().message,
            "no offer satisfies the spec's resources\n  no provider is allowed");
}

TEST(Planner, LocalOfferIsExemptFromGpuVramAndPriceLimits) {
  PipelineSpec spec = spec_with_reference(60);
  spec.resources.gpus = {"A100"};
  spec.resources.min_vram_gb = 40;
  spec.resources.max_usd_per_hour = 0.5;
  PlanInput in;
  in.providers = {"local"};
  in.gpu_offers = {planner_offer("local", "cpu", 1.0, std::nullopt, 0)};
  in.gpu_offers[0].price_source = "config";
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.provider, "local");
  EXPECT_DOUBLE_EQ(plan->estimate.cold_start_s, 2);
}

TEST(Planner, UnavailableLocalOfferIsStillRejected) {
  PlanInput in;
  in.providers = {"local"};
  in.gpu_offers = {planner_offer("local", "cpu", 0, std::nullopt, 0)};
  in.gpu_offers[0].available = false;
  auto plan = make_plan(spec_with_reference(60), in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message,
            "no offer satisfies the spec's resources\n  local cpu: not available now");
}

TEST(Planner, EstimateUsesTheReferenceRuntime) {
  PipelineSpec spec = spec_with_reference(1800);
  PlanInput in;
  in.providers = {"runpod"};
  in.gpu_offers = {planner_offer("runpod", "A100", 3.6, 80)};
  in.code_bytes = 40'000'000;  // 2 s at the assumed 20 MB/s
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const Estimate& e = plan->estimate;
  EXPECT_DOUBLE_EQ(e.cold_start_s, 60);  // RunPod provisioning + image pull, no weights to load
  EXPECT_DOUBLE_EQ(e.sync_s, 2);
  EXPECT_DOUBLE_EQ(e.run_s, 1800);
  EXPECT_DOUBLE_EQ(e.total_s, 1862);
  EXPECT_NEAR(e.usd, 1.862, 1e-9);
  EXPECT_TRUE(e.run_known);
  // No catalog given: the reference cannot be scaled to the A100, and the plan says so.
  EXPECT_EQ(e.basis, "workload.reference: RTX_4090 measured 1800 s, unscaled");
}

TEST(Planner, WithoutReferenceTheRunIsUnknown) {
  PipelineSpec spec = spec_with_reference(0);
  spec.workload.reference.reset();
  PlanInput in;
  in.providers = {"runpod"};
  in.gpu_offers = {planner_offer("runpod", "A100", 3.6, 80)};
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_FALSE(plan->estimate.run_known);
  EXPECT_DOUBLE_EQ(plan->estimate.run_s, 0);
  EXPECT_NEAR(plan->estimate.usd, 0.06, 1e-9);  // 60 s of cold start at $3.60/h
  EXPECT_EQ(plan->estimate.basis, "no workload.reference: run time unknown, cost excludes the run");
}

TEST(Planner, SpotPriceIsUsedWhenAskedForAndOffered) {
  PipelineSpec spec = spec_with_reference(3510);  // 3600 s billed with the cold start
  Offer with_spot = planner_offer("p", "A100", 4.0, 80);
  with_spot.spot_usd_per_hour = 1.0;
  Offer without_spot = planner_offer("p", "H100", 2.0, 80);
  PlanInput in;
  in.providers = {"p"};
  in.gpu_offers = {with_spot, without_spot};

  spec.resources.spot = true;
  auto spot = make_plan(spec, in);
  ASSERT_TRUE(spot.ok()) << spot.error().message;
  EXPECT_EQ(spot->gpu.gpu_type, "A100");
  EXPECT_NEAR(spot->estimate.usd, 1.0, 1e-9);

  spec.resources.spot = false;
  auto on_demand = make_plan(spec, in);
  ASSERT_TRUE(on_demand.ok()) << on_demand.error().message;
  EXPECT_EQ(on_demand->gpu.gpu_type, "H100");
  EXPECT_NEAR(on_demand->estimate.usd, 2.0, 1e-9);
}

TEST(Planner, SpotPriceIsWhatMaxPriceIsCheckedAgainst) {
  PipelineSpec spec = spec_with_reference(60);
  spec.resources.max_usd_per_hour = 1.5;
  Offer o = planner_offer("p", "A100", 4.0, 80);
  o.spot_usd_per_hour = 1.0;
  PlanInput in;
  in.providers = {"p"};
  in.gpu_offers = {o};
  spec.resources.spot = true;
  EXPECT_TRUE(make_plan(spec, in).ok());
  spec.resources.spot = false;
  auto plan = make_plan(spec, in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message,
            "no offer satisfies the spec's resources\n"
            "  p A100: $4.00/h is over resources.max_usd_per_hour");
}

TEST(Planner, OverBudgetIsInvalidWithTheExactMessage) {
  PipelineSpec spec = spec_with_reference(1800);
  spec.budget.max_usd = 1.0;
  PlanInput in;
  in.providers = {"runpod"};
  in.gpu_offers = {planner_offer("runpod", "A100", 3.6, 80)};
  in.code_bytes = 40'000'000;
  auto plan = make_plan(spec, in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(plan.error().message,
            "the cheapest plan is estimated at $1.86, over budget.max_usd $1.00");

  spec.budget.max_usd = 2.0;
  EXPECT_TRUE(make_plan(spec, in).ok());
}

TEST(Planner, UploadNeedsACpuOfferFromTheSameProvider) {
  PipelineSpec spec = spec_with_reference(3600);
  spec.upload = UploadSpec{"", "rclone copy out remote:"};
  PlanInput in;
  in.providers = {"a", "b"};
  in.gpu_offers = {planner_offer("a", "RTX_4090", 1.0), planner_offer("b", "RTX_4090", 2.0)};
  in.cpu_offers = {cpu_offer("a", 0.01, /*available=*/false), cpu_offer("b", 0.36),
                   cpu_offer("b", 0.72)};
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.provider, "b");
  ASSERT_TRUE(plan->cpu.has_value());
  EXPECT_EQ(plan->cpu->provider, "b");
  EXPECT_DOUBLE_EQ(plan->cpu->usd_per_hour, 0.36);  // the cheapest available one
  EXPECT_EQ(plan->notes, std::vector<std::string>{"a: no CPU pod for the upload step"});
  EXPECT_DOUBLE_EQ(plan->estimate.upload_s, 100);  // CPU cold start + 10 s
  EXPECT_NEAR(plan->estimate.usd, (90 + 3600) / 3600.0 * 2.0 + 100 / 3600.0 * 0.36, 1e-9);
}

TEST(Planner, UploadWithoutAnyCpuOfferIsNoCapacity) {
  PipelineSpec spec = spec_with_reference(60);
  spec.upload = UploadSpec{"", "true"};
  PlanInput in;
  in.providers = {"a"};
  in.gpu_offers = {planner_offer("a", "RTX_4090", 1.0)};
  auto plan = make_plan(spec, in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(plan.error().message,
            "no offer satisfies the spec's resources\n  a: no CPU pod for the upload step");
}

TEST(Planner, NoUploadNoCpuPod) {
  PlanInput in;
  in.providers = {"a"};
  in.gpu_offers = {planner_offer("a", "RTX_4090", 1.0)};
  in.cpu_offers = {cpu_offer("a", 0.1)};
  auto plan = make_plan(spec_with_reference(60), in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_FALSE(plan->cpu.has_value());
  EXPECT_DOUBLE_EQ(plan->estimate.upload_s, 0);
}

// resources.spot is priced with its risk (plan/spot_risk.h; docs/cost-model.md, "Spot pods").
TEST(Planner, SpotIsPricedWithItsInterruptionPriorAgainstOnDemand) {
  PipelineSpec spec = spec_with_reference(3510);  // about an hour with the cold start
  spec.resources.spot = true;
  spec.workload.items = 100;
  Offer o = planner_offer("vast", "A100", 4.0, 80);
  o.spot_usd_per_hour = 1.0;
  PlanInput in;
  in.providers = {"vast"};
  in.gpu_offers = {o};
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_TRUE(plan->spot.has_value());
  const SpotRisk& r = *plan->spot;
  EXPECT_TRUE(r.offered);
  EXPECT_TRUE(r.chosen) << r.why;
  EXPECT_DOUBLE_EQ(r.rate_per_hour, 0.25);
  EXPECT_NEAR(r.on_demand_usd, 4.0 * plan->estimate.billed_s / 3600, 1e-9);
  EXPECT_NEAR(r.spot_usd, plan->estimate.usd, 1e-9);
  // About one pod-hour at 0.25/h: restarts = rate x billed hours, each a cold start plus half an
  // item (17.55 s of the run: finished items are kept).
  EXPECT_NEAR(r.restarts, 0.25 * plan->estimate.billed_s / 3600, 1e-9);
  EXPECT_NEAR(r.restart_s, plan->estimate.cold_start_s + 3510.0 / 100 / 2, 1e-6);
  EXPECT_NEAR(r.expected_usd, r.spot_usd + r.restarts * r.restart_s / 3600.0, 1e-9);
  EXPECT_NEAR(r.expected_s, plan->estimate.total_s + r.restarts * r.restart_s, 1e-6);
  EXPECT_LT(r.expected_usd, r.on_demand_usd);
  EXPECT_TRUE(plan_rents_spot(*plan));

  // A deadline the expected time plus the 25% margin misses: on-demand, and the plan says why.
  spec.budget.deadline_seconds = r.expected_s * 1.2;
  auto tight = make_plan(spec, in);
  ASSERT_TRUE(tight.ok()) << tight.error().message;
  ASSERT_TRUE(tight->spot.has_value());
  EXPECT_FALSE(tight->spot->chosen);
  EXPECT_FALSE(plan_rents_spot(*tight));
  EXPECT_NE(tight->spot->why.find("25% margin misses budget.deadline"), std::string::npos)
      << tight->spot->why;
  EXPECT_NEAR(tight->estimate.usd, r.on_demand_usd, 1e-9);
}

TEST(Planner, ASpotRestartOnAHostThatBillsDownloadsPaysForThemAgain) {
  PipelineSpec spec = spec_with_reference(3510);
  spec.resources.spot = true;
  spec.workload.items = 100;
  spec.workload.params_b = 20;  // 40 GB of bf16 weights from the hub, fetched by every pod
  spec.workload.weights_from = "hub";
  Offer o = planner_offer("vast", "A100", 4.0, 80);
  o.spot_usd_per_hour = 1.0;
  PlanInput in;
  in.providers = {"vast"};
  in.gpu_offers = {o};
  auto free = make_plan(spec, in);
  in.gpu_offers[0].download_usd_per_gb = 0.02;
  auto billed = make_plan(spec, in);
  ASSERT_TRUE(free.ok()) << free.error().message;
  ASSERT_TRUE(billed.ok()) << billed.error().message;
  ASSERT_TRUE(free->spot && billed->spot);
  const SpotRisk& f = *free->spot;
  const SpotRisk& r = *billed->spot;
  EXPECT_EQ(f.restart_transfer_usd, 0);
  EXPECT_NEAR(r.restart_transfer_usd, 40 * 0.02, 1e-9);  // one pod's 40 GB again
  EXPECT_NEAR(r.expected_usd, r.spot_usd + r.restarts * r.restart_s / 3600.0 + r.restarts * 0.8,
              1e-9);
  EXPECT_GT(r.expected_usd - r.spot_usd, f.expected_usd - f.spot_usd);
  bool said = false;
  for (const std::string& line : plan_summary_lines(spec, *billed))
    said = said || line.find("downloads again $0.8000") != std::string::npos;
  EXPECT_TRUE(said) << "the risk line names the re-download";
}

TEST(Planner, TheStoresSpotHistoryUpdatesThePrior) {
  PipelineSpec spec = spec_with_reference(3510);
  spec.resources.spot = true;
  Offer o = planner_offer("vast", "A100", 4.0, 80);
  o.spot_usd_per_hour = 1.0;
  PlanInput in;
  in.providers = {"vast"};
  in.gpu_offers = {o};
  // 6 preemptions in 8 spot pod-hours on vast (and some on another provider, not counted): the
  // prior's 0.25/h counts as 4 pod-hours, so (0.25 x 4 + 6) / (4 + 8) = 0.5833/h.
  in.spot_history = {{"vast", 5, 4}, {"vast", 3, 2}, {"runpod", 100, 90}};
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_TRUE(plan->spot.has_value());
  EXPECT_NEAR(plan->spot->rate_per_hour, 7.0 / 12.0, 1e-12);
  EXPECT_EQ(plan->spot->prior_source.rfind(
                "updated with this store's 6 preemptions in 8.00 spot pod-hours; assumed 0.25", 0),
            0u)
      << plan->spot->prior_source;
  EXPECT_NEAR(plan->spot->restarts, 7.0 / 12.0 * plan->estimate.billed_s / 3600, 1e-9);
}

TEST(Planner, SpotNotCheaperInExpectationStaysOnDemand) {
  PipelineSpec spec = spec_with_reference(3510);
  spec.resources.spot = true;
  Offer o = planner_offer("vast", "A100", 1.0, 80);
  o.spot_usd_per_hour = 0.999;  // the risk (half the run lost per restart) costs more
  PlanInput in;
  in.providers = {"vast"};
  in.gpu_offers = {o};
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_TRUE(plan->spot.has_value());
  EXPECT_FALSE(plan->spot->chosen);
  EXPECT_NE(plan->spot->why.find("is not below"), std::string::npos) << plan->spot->why;
}

TEST(Planner, ASpotPriceTheDriverCannotRentIsNoSpotOffer) {
  // A spot price on an offer of a provider whose driver rents no interruptible pod (Lambda's
  // launch API has none; RunPod's are rented through GraphQL since issue 33).
  PipelineSpec spec = spec_with_reference(60);
  spec.resources.spot = true;
  Offer o = planner_offer("lambda", "A100", 2.0, 80);
  o.spot_usd_per_hour = 1.0;
  PlanInput in;
  in.providers = {"lambda"};
  in.gpu_offers = {o};
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_TRUE(plan->spot.has_value());
  EXPECT_FALSE(plan->spot->offered);
  EXPECT_FALSE(plan_rents_spot(*plan));
  EXPECT_NE(plan->spot->why.find("launch API has no interruptible"), std::string::npos)
      << plan->spot->why;
  EXPECT_NEAR(plan->estimate.usd, 2.0 * plan->estimate.billed_s / 3600, 1e-9);
  // The same price on RunPod is a spot offer: its driver rents it through GraphQL.
  o.provider = "runpod";
  o.traits = find_provider_traits("runpod");
  in.providers = {"runpod"};
  in.gpu_offers = {o};
  auto rp = make_plan(spec, in);
  ASSERT_TRUE(rp.ok()) << rp.error().message;
  ASSERT_TRUE(rp->spot.has_value());
  EXPECT_TRUE(rp->spot->offered) << rp->spot->why;
}

}  // namespace
}  // namespace burst
