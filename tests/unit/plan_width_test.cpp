// Go wide or go tall, billing granularity, utilization notes and the reasons every candidate not
// chosen carries: the planner's arithmetic on offers given directly.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "plan/billing.h"
#include "plan/plan_summary.h"
#include "plan/planner.h"
#include "registry.h"
#include "report/job_facts.h"

namespace burst {
namespace {

// The provider's billing rule, from its registry row (ProviderTraits::billing).
const BillingRule& billing_rule(const std::string& provider) {
  return find_provider_traits(provider)->billing;
}

Offer offer(const std::string& provider, const std::string& gpu, double usd_per_hour) {
  Offer o;
  o.provider = provider;
  o.traits = find_provider_traits(provider);
  o.gpu_type = gpu;
  o.gpu_count = 1;
  o.vram_gb = 24;
  o.usd_per_hour = usd_per_hour;
  o.price_source = "live offer";
  return o;
}

// `items` independent items of `seconds_each` GPU seconds, measured (not modelled).
PipelineSpec items_spec(long items, double seconds_each) {
  PipelineSpec s;
  s.name = "items";
  s.run = "python work.py";
  s.workload.kind = "custom";
  s.workload.items = items;
  s.workload.reference = WorkloadReference{"RTX_4090", items * seconds_each, "bandwidth"};
  return s;
}

PlanInput one_offer(double boot_s) {
  PlanInput in;
  in.providers = {"runpod"};                           // bills per second
  in.gpu_offers = {offer("runpod", "RTX_4090", 3.6)};  // $0.001 per second
  in.boot_s = boot_s;
  return in;
}

TEST(PlanWidth, TwentyShortItemsWithATenSecondColdStartStayOnOneBatchedWorker) {
  auto plan = make_plan(items_spec(20, 2), one_offer(10));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->estimate.workers, 1);
  EXPECT_DOUBLE_EQ(plan->estimate.total_s, 50);  // 10 s cold start + 20 x 2 s
  EXPECT_NEAR(plan->estimate.usd, 0.050, 1e-9);
  // The curve: every distinct split of 20 items, each worker paying its own 10 s.
  const std::vector<WidthPoint>& curve = plan->curve;
  std::vector<int> ks;
  for (const WidthPoint& p : curve) ks.push_back(p.workers);
  EXPECT_EQ(ks, (std::vector<int>{1, 2, 3, 4, 5, 7, 10, 20}));
  EXPECT_DOUBLE_EQ(curve[1].seconds, 30);      // 10 + 10 x 2 s
  EXPECT_NEAR(curve[1].usd, 0.060, 1e-9);      // 2 x 30 s
  EXPECT_DOUBLE_EQ(curve.back().seconds, 12);  // 10 + 2 s
  EXPECT_NEAR(curve.back().usd, 0.240, 1e-9);  // 20 x 12 s: 4.8x the batched worker
  for (size_t i = 1; i < curve.size(); ++i) EXPECT_GT(curve[i].usd, curve[i - 1].usd);
}

TEST(PlanWidth, ADeadlineForcesMoreWorkers) {
  PipelineSpec spec = items_spec(20, 2);
  spec.budget.deadline_seconds = 30;
  auto plan = make_plan(spec, one_offer(10));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->estimate.workers, 2);
  EXPECT_DOUBLE_EQ(plan->estimate.total_s, 30);
  EXPECT_NEAR(plan->estimate.usd, 0.060, 1e-9);
  EXPECT_FALSE(plan->curve[0].allowed);  // one worker takes 50 s
  EXPECT_EQ(plan->estimate.basis,
            "workload.reference: RTX_4090 measured 40 s, unscaled, 2 workers");

  spec.budget.deadline_seconds = 14;  // 10 s cold start + 2 items x 2 s: 10 workers
  plan = make_plan(spec, one_offer(10));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->estimate.workers, 10);
}

TEST(PlanWidth, ADeadlineNoSplitMeetsNamesTheFastestSplit) {
  PipelineSpec spec = items_spec(20, 2);
  spec.budget.deadline_seconds = 11;
  auto plan = make_plan(spec, one_offer(10));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(plan.error().message,
            "no offer satisfies the spec's resources\n"
            "  runpod RTX_4090: misses the deadline: 12 s > 11 s even with 20 workers");
}

TEST(PlanWidth, MaxPricePerHourCapsHowWideItGoes) {
  PipelineSpec spec = items_spec(20, 2);
  spec.budget.deadline_seconds = 14;
  spec.resources.max_usd_per_hour = 3.6 * 4;  // at most 4 pods at once
  auto plan = make_plan(spec, one_offer(10));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message,
            "no offer satisfies the spec's resources\n"
            "  runpod RTX_4090: misses the deadline: 20 s > 14 s even with 4 workers");
}

TEST(PlanWidth, MaxRuntimeLimitsEachWorkersRunStep) {
  PipelineSpec spec = items_spec(20, 2);
  spec.budget.max_runtime_seconds = 25;  // one worker's run is 40 s
  auto plan = make_plan(spec, one_offer(10));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->estimate.workers, 2);
  EXPECT_DOUBLE_EQ(plan->estimate.run_s, 20);
}

TEST(PlanWidth, WorkWithoutItemsIsNeverSplit) {
  PipelineSpec spec = items_spec(20, 2);
  spec.workload.items.reset();
  spec.budget.deadline_seconds = 30;
  auto plan = make_plan(spec, one_offer(10));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message,
            "no offer satisfies the spec's resources\n"
            "  runpod RTX_4090: misses the deadline: 50 s > 30 s");
}

TEST(PlanWidth, BurstRunPlansOneWorker) {
  PipelineSpec spec = items_spec(20, 2);
  spec.budget.deadline_seconds = 30;
  PlanInput in = one_offer(10);
  in.max_workers = 1;
  EXPECT_FALSE(make_plan(spec, in).ok());
}

TEST(PlanWidth, SpecMaxWorkersCapsTheSplitForPlanAndRunAlike) {
  PipelineSpec spec = items_spec(2000, 1);
  spec.budget.deadline_seconds = 900;  // 2,000 s of work: one worker misses it
  auto free = make_plan(spec, one_offer(10));
  ASSERT_TRUE(free.ok()) << free.error().message;
  EXPECT_EQ(free->estimate.workers, 3) << "the cheapest split that meets 900 s";
  spec.resources.max_workers = 4;
  spec.budget.deadline_seconds = 600;
  auto capped = make_plan(spec, one_offer(10));
  ASSERT_TRUE(capped.ok()) << capped.error().message;
  EXPECT_EQ(capped->estimate.workers, 4);
  EXPECT_EQ(capped->curve.back().workers, 4) << "the curve stops at the cap";
  spec.resources.max_workers = 2;
  EXPECT_FALSE(make_plan(spec, one_offer(10)).ok()) << "two workers miss 600 s";
}

TEST(PlanWidth, AWidePlanWithAnUploadHandsOffOnThisMachineOnce) {
  PipelineSpec spec = items_spec(2000, 1);
  spec.budget.deadline_seconds = 600;
  spec.resources.max_workers = 4;
  spec.upload = UploadSpec{"", "python upload.py"};
  PlanInput in = one_offer(10);
  Offer cpu = offer("runpod", "CPU", 0.1);
  cpu.gpu_count = 0;
  in.cpu_offers = {cpu};
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->estimate.workers, 4);
  EXPECT_FALSE(plan->cpu.has_value());
  ASSERT_TRUE(plan->handoff.has_value());
  EXPECT_EQ(plan->handoff->where, Handoff::kLocal);
  EXPECT_NE(plan->handoff->why.find("4 workers"), std::string::npos) << plan->handoff->why;
}

TEST(PlanWidth, TheLocalCloudSplitsOnlyWhenTheSpecAsksForWorkers) {
  PipelineSpec spec = items_spec(2000, 1);
  spec.workload.reference->gpu = "local";
  spec.budget.deadline_seconds = 600;
  PlanInput in;
  in.providers = {"local"};
  in.gpu_offers = {offer("local", "local", 0)};
  EXPECT_FALSE(make_plan(spec, in).ok()) << "its pods share this machine: one worker by default";
  spec.resources.max_workers = 4;
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->estimate.workers, 4);
}

TEST(PlanWidth, FixedWorkersIsTheOnlyWidthPricedEvenWhenOneIsCheaper) {
  // resources.workers (a SkyPilot file's num_nodes): 3 pods, not the plan's choice of 1.
  PipelineSpec spec = items_spec(20, 2);
  spec.resources.workers = 3;
  auto plan = make_plan(spec, one_offer(10));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->estimate.workers, 3);
  ASSERT_EQ(plan->curve.size(), 1u);
  EXPECT_EQ(plan->curve[0].workers, 3);
  EXPECT_DOUBLE_EQ(plan->estimate.total_s, 24);  // 10 s cold start + 7 of 20 items x 2 s
  // No items: every worker runs the whole run step, each pod billed for it.
  spec.workload.items.reset();
  plan = make_plan(spec, one_offer(10));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->estimate.workers, 3);
  EXPECT_DOUBLE_EQ(plan->estimate.total_s, 50);
  EXPECT_NEAR(plan->estimate.usd, 3 * 0.050, 1e-9);
  // The local cloud goes to that width too: the spec asked for it.
  spec.workload.reference->gpu = "local";
  PlanInput local;
  local.providers = {"local"};
  local.gpu_offers = {offer("local", "local", 0)};
  plan = make_plan(spec, local);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->estimate.workers, 3);
}

TEST(PlanWidth, FixedWorkersAboveThePriceCapSaySo) {
  PipelineSpec spec = items_spec(20, 2);
  spec.resources.workers = 3;
  spec.resources.max_usd_per_hour = 10;
  auto plan = make_plan(spec, one_offer(10));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message,
            "no offer satisfies the spec's resources\n"
            "  runpod RTX_4090: 3 workers x $3.60/h exceed max_usd_per_hour $10.00");
}

TEST(PlanBilling, EachProviderRoundsBilledTimeToItsPublishedUnit) {
  EXPECT_EQ(billing_rule("runpod").unit, "second");
  EXPECT_EQ(billing_rule("vast").unit, "second");
  EXPECT_EQ(billing_rule("lambda").unit, "minute");
  EXPECT_EQ(billing_rule("local").unit, "second");
  EXPECT_DOUBLE_EQ(billed_seconds(billing_rule("runpod"), 61.2), 62);
  EXPECT_DOUBLE_EQ(billed_seconds(billing_rule("lambda"), 61.2), 120);
  EXPECT_DOUBLE_EQ(billed_seconds(billing_rule("lambda"), 120), 120);
  EXPECT_DOUBLE_EQ(billed_seconds(billing_rule("lambda"), 0), 0);
  const BillingRule hourly{3600, 0, "hour", "test"};
  EXPECT_DOUBLE_EQ(billed_seconds(hourly, 1), 3600);
  const BillingRule with_minimum{1, 300, "second", "test"};
  EXPECT_DOUBLE_EQ(billed_seconds(with_minimum, 10), 300);
}

TEST(PlanBilling, APerMinuteProviderBillsTheRoundedTime) {
  PipelineSpec spec = items_spec(1, 20);
  PlanInput in;
  in.providers = {"lambda"};
  in.gpu_offers = {offer("lambda", "A10", 0.6)};
  in.boot_s = 41;  // 61 s of wall time: two minutes billed
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_DOUBLE_EQ(plan->estimate.total_s, 61);
  EXPECT_DOUBLE_EQ(plan->estimate.billed_s, 120);
  EXPECT_NEAR(plan->estimate.usd, 0.02, 1e-9);
}

TEST(PlanBilling, RoundingUpCanMakeThePerSecondCloudCheaper) {
  PipelineSpec spec = items_spec(1, 20);
  PlanInput in;
  in.providers = {"lambda", "runpod"};
  in.gpu_offers = {offer("lambda", "A10", 0.60), offer("runpod", "A10", 0.70)};
  in.boot_s = 41;
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.provider, "runpod");  // 61 s x $0.70/h < 120 s x $0.60/h
}

TEST(PlanUtilization, ColdStartDominatingIsNotedAsOverProvisioned) {
  auto plan = make_plan(items_spec(20, 2), one_offer(100));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_NEAR(plan->estimate.utilization, 40.0 / 140, 1e-9);
  ASSERT_FALSE(plan->notes.empty());
  EXPECT_EQ(plan->notes[0],
            "over-provisioned: expected utilization 29% (compute 40 s of 2.3 min billed); the cold "
            "start (100 s: provisioning, image pull, weights) dominates");
}

TEST(PlanUtilization, AWellUsedPodHasNoNote) {
  auto plan = make_plan(items_spec(20, 20), one_offer(10));  // 400 s of 410 s
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_GE(plan->estimate.utilization, kLowUtilization);
  EXPECT_TRUE(plan->notes.empty());
}

TEST(PlanReasons, EveryCandidateNotChosenSaysWhy) {
  PipelineSpec spec = items_spec(20, 20);
  spec.resources.gpus = {"RTX_4090", "L4"};
  PlanInput in = one_offer(10);
  in.gpu_offers.push_back(offer("runpod", "L4", 7.2));
  in.gpu_offers.push_back(offer("runpod", "H100_SXM", 18.0));
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->candidates.size(), 3u);
  EXPECT_EQ(plan->candidates[0].offer.gpu_type, "RTX_4090");
  EXPECT_EQ(why_not_chosen(*plan, plan->candidates[0]), "");
  EXPECT_EQ(plan->candidates[1].offer.gpu_type, "L4");
  EXPECT_EQ(why_not_chosen(*plan, plan->candidates[1]),
            "costs 2.0x the chosen plan ($0.8200 vs $0.4100)");
  EXPECT_EQ(plan->candidates[2].offer.gpu_type, "H100_SXM");
  EXPECT_EQ(why_not_chosen(*plan, plan->candidates[2]),
            "H100_SXM is not in resources.gpus; costs 5.0x the chosen plan ($2.0500 vs $0.4100)");
}

// A wide plan whose spec allows two providers lists the fleet's fallbacks (Plan::fallbacks):
// the next-cheapest candidates at the same width, any allowed provider, each meeting the
// deadline and the budget on its own, cheapest first; `burst plan` and `burst run` print them in
// the one summary.
TEST(PlanFallbacks, AWidePlanOverTwoProvidersListsTheNextCheapestAtItsWidth) {
  PipelineSpec spec = items_spec(20, 2);
  spec.budget.deadline_seconds = 30;  // 2 workers (ADeadlineForcesMoreWorkers)
  spec.budget.max_usd = 0.08;
  PlanInput in = one_offer(10);
  in.providers = {"runpod", "vast"};
  in.gpu_offers.push_back(offer("vast", "RTX_4090", 4.0));  // $0.0667 at 2 workers
  in.gpu_offers.push_back(offer("vast", "RTX_4090", 6.0));  // $0.10: over the budget
  in.gpu_offers.back().region = "m2";
  in.gpu_offers.push_back(offer("runpod", "RTX_4090", 3.8));  // another data centre
  in.gpu_offers.back().region = "EU-RO-1";
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->estimate.workers, 2);
  EXPECT_EQ(plan->gpu.provider, "runpod");
  EXPECT_NEAR(plan->worker_usd, 0.030, 1e-9);
  ASSERT_EQ(plan->fallbacks.size(), 2u);
  EXPECT_EQ(plan->fallbacks[0].offer.region, "EU-RO-1");
  EXPECT_NEAR(plan->fallbacks[0].worker_usd, 30 * 3.8 / 3600, 1e-9);
  EXPECT_EQ(plan->fallbacks[1].offer.provider, "vast");
  EXPECT_DOUBLE_EQ(plan->fallbacks[1].price, 4.0);
  bool shown = false;
  for (const std::string& line : plan_summary_lines(spec, *plan))
    if (line.rfind("  fallback:", 0) == 0) {
      shown = true;
      EXPECT_EQ(line,
                "  fallback: a worker the chosen offer has no pod for goes to runpod RTX_4090 in "
                "EU-RO-1 at $3.80/h, vast RTX_4090 at $4.00/h, the first with capacity");
    }
  EXPECT_TRUE(shown);
  // The report bills a pod on a fallback's provider by that provider's rule.
  const ReportFacts facts =
      report_facts_from_json(report_facts_to_json(report_facts_from_plan(spec, *plan)));
  ASSERT_EQ(facts.billing_by_provider.count("vast"), 1u);
  EXPECT_DOUBLE_EQ(facts.billing_by_provider.at("vast").first,
                   billing_rule("vast").increment_s > 0 ? billing_rule("vast").increment_s : 1);
}

// One provider allowed: no fallback, and the summary is what it was.
TEST(PlanFallbacks, ASingleProviderPlanHasNone) {
  PipelineSpec spec = items_spec(20, 2);
  spec.budget.deadline_seconds = 30;
  PlanInput in = one_offer(10);
  in.gpu_offers.push_back(offer("runpod", "RTX_4090", 3.8));
  in.gpu_offers.back().region = "EU-RO-1";
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->estimate.workers, 2);
  EXPECT_TRUE(plan->fallbacks.empty());
  for (const std::string& line : plan_summary_lines(spec, *plan))
    EXPECT_EQ(line.find("fallback"), std::string::npos) << line;
}

}  // namespace
}  // namespace burst
