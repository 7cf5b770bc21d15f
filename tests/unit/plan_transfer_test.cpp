// A host that bills its traffic per GB (Vast's inet_down_cost, REFERENCE §4.2: "bandwidth billed
// separately per GB"): the plan prices what each worker's host downloads, picks between offers
// with it, says so, and records it apart so the report compares the pods alone.
#include <gtest/gtest.h>

#include "json/json_value.h"
#include "plan/planner.h"
#include "registry.h"

namespace burst {
namespace {

Offer vast_offer(double usd_per_hour, double download_usd_per_gb, double upload_usd_per_gb = 0) {
  Offer o;
  o.provider = "vast";
  o.traits = find_provider_traits("vast");
  o.gpu_type = "RTX_4090";
  o.gpu_count = 1;
  o.vram_gb = 24;
  o.usd_per_hour = usd_per_hour;
  o.region = "eu";
  o.price_source = "live offer";
  o.download_usd_per_gb = download_usd_per_gb;
  o.upload_usd_per_gb = upload_usd_per_gb;
  return o;
}

// A 600 s job on one RTX 4090 with 16 GB of bf16 weights from the hub.
PipelineSpec transfer_spec(const std::string& weights_from = "hub") {
  PipelineSpec s;
  s.name = "render";
  s.run = "python render.py";
  s.workload.kind = "custom";
  s.workload.reference = WorkloadReference{"RTX_4090", 600, ""};
  s.workload.params_b = 8;
  s.workload.weights_from = weights_from;
  return s;
}

PlanInput vast_input(std::vector<Offer> offers) {
  PlanInput in;
  in.providers = {"vast"};
  in.gpu_offers = std::move(offers);
  in.code_bytes = 1'000'000'000;  // 1 GB of code synced to each host
  return in;
}

TEST(PlanTransfer, TheHostsPerGbChargeOnWhatItDownloadsIsInTheEstimateAndSaysSo) {
  auto free = make_plan(transfer_spec(), vast_input({vast_offer(0.40, 0)}));
  auto billed = make_plan(transfer_spec(), vast_input({vast_offer(0.40, 0.02, 0.01)}));
  ASSERT_TRUE(free.ok()) << free.error().message;
  ASSERT_TRUE(billed.ok()) << billed.error().message;
  // 16 GB of weights from the hub + 1 GB of code, at $0.02/GB: $0.34 on top of the same pods.
  EXPECT_EQ(free->estimate.transfer_usd, 0);
  EXPECT_NEAR(billed->estimate.transfer_usd, 17 * 0.02, 1e-9);
  EXPECT_NEAR(billed->estimate.usd, free->estimate.usd + 0.34, 1e-9);
  EXPECT_NEAR(billed->candidates.front().usd, free->candidates.front().usd + 0.34, 1e-9);
  bool said = false;
  for (const std::string& n : billed->notes)
    said = said ||
           n == "transfer: the host bills downloads at $0.020/GB, 17.0 GB per worker (weights, "
                "image, code): $0.34 in the estimate; uploads (artefacts pulled, the upload "
                "step) at $0.010/GB, not priced: their size is unknown";
  EXPECT_TRUE(said) << "no transfer line among the plan's notes";
  for (const std::string& n : free->notes) EXPECT_EQ(n.find("transfer:"), std::string::npos) << n;
  // Recorded with the job's estimate, apart, so its report can leave it out of the comparison.
  auto j = JsonValue::parse(estimate_to_json(billed->estimate));
  ASSERT_TRUE(j && j->is_object());
  EXPECT_NEAR(j->number_or("transfer_usd", -1), 0.34, 1e-9);
  // The upload charge goes with it, for the report to price what the pull moves.
  EXPECT_NEAR(j->number_or("upload_usd_per_gb", -1), 0.01, 1e-12);
}

TEST(PlanTransfer, OfTwoOffersAtOnePriceTheOneThatBillsNoDownloadsIsChosen) {
  // Dearer by $0.01/h, but the cheaper one's downloads cost more than the 10 minutes save.
  auto plan = make_plan(transfer_spec(), vast_input({vast_offer(0.40, 0.05), vast_offer(0.41, 0)}));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_DOUBLE_EQ(plan->gpu.usd_per_hour, 0.41);
  EXPECT_EQ(plan->estimate.transfer_usd, 0);
}

TEST(PlanTransfer, WeightsOnTheVolumeAreNotDownloadedAgain) {
  // From the volume, only the code crosses the host's link: 1 GB at $0.02.
  auto plan = make_plan(transfer_spec("volume"), vast_input({vast_offer(0.40, 0.02)}));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_NEAR(plan->estimate.transfer_usd, 0.02, 1e-9);
}

}  // namespace
}  // namespace burst
