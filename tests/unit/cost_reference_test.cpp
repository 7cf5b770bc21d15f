// The reference worked numbers users check burst against (issue 18 item 6): the batch-1 decode
// table at 100% of peak bandwidth and at a given efficiency, owned-hardware $/1M tokens at a
// utilization, and the A100 rent-vs-buy totals; and precision support from the catalog: a card
// without native bf16 is rejected, with that reason, for a bf16 workload.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/spec.h"
#include "fakes/temp_dir.h"
#include "plan/estimate.h"
#include "plan/planner.h"
#include "registry.h"

namespace burst {
namespace {

const std::vector<GpuSpec>& builtin() {
  static const std::vector<GpuSpec> c = *load_gpu_catalog("/nonexistent-config-dir");
  return c;
}

TEST(CostReference, BatchOneDecodeTableForSevenBillionFp16) {
  // 7B x 2 bytes = 14 GB read per token. The reference rounds the bandwidths (A100 "2 TB/s",
  // RTX 4090 "1 TB/s"); from the catalog's datasheet figures each row is within 2% of it.
  const std::vector<DecodeRow> full = decode_table(builtin(), 7e9 * 2, 1.0);
  const std::vector<DecodeRow> at70 = decode_table(builtin(), 7e9 * 2, 0.7);
  std::map<std::string, double> peak, eff;
  for (const DecodeRow& d : full) peak[d.gpu] = d.peak_tokens_per_s;
  for (const DecodeRow& d : at70) eff[d.gpu] = d.tokens_per_s;
  EXPECT_NEAR(peak["H100_SXM"], 239.29, 0.005);   // reference ~240
  EXPECT_NEAR(peak["A100_80GB"], 145.64, 0.005);  // reference ~143
  EXPECT_NEAR(peak["RTX_4090"], 72.00, 0.005);    // reference ~71
  EXPECT_NEAR(peak["RTX_3090"], 66.86, 0.005);    // reference ~67
  const std::map<std::string, double> reference = {
      {"H100_SXM", 240}, {"A100_80GB", 143}, {"RTX_4090", 71}, {"RTX_3090", 67}};
  for (const auto& [gpu, ref] : reference) {
    EXPECT_LT(std::fabs(peak[gpu] - ref) / ref, 0.02) << gpu;
    EXPECT_NEAR(eff[gpu], 0.7 * peak[gpu], 1e-9) << gpu;
  }
  EXPECT_EQ(full.front().gpu, "B200") << "fastest first";
}

TEST(CostReference, AHundredRentVersusBuyTotals) {
  // $5.12/GPU-hour rented vs a $12,000 card, 3 years at 70% utilization.
  const RentBuyTotals r = rent_buy_totals(5.12, 12000, 0.70, 3);
  EXPECT_DOUBLE_EQ(r.gpu_hours, 18396);
  EXPECT_NEAR(r.rented_usd, 94187.52, 1e-6);  // reference $94,187
  EXPECT_DOUBLE_EQ(r.bought_usd, 12000);
  ASSERT_TRUE(r.breakeven_utilization);
  EXPECT_NEAR(*r.breakeven_utilization, 0.0892, 0.00005);  // 12000 / (26280 h x $5.12)
  // With power counted, buying costs more and breaks even later.
  const RentBuyTotals powered = rent_buy_totals(5.12, 12000, 0.70, 3, 0.06);
  EXPECT_NEAR(powered.bought_usd, 12000 + 18396 * 0.06, 1e-6);
  EXPECT_GT(*powered.breakeven_utilization, *r.breakeven_utilization);
}

TEST(CostReference, OwnedDollarsPerMillionTokensAtAUtilization) {
  // A $12,000 card over 3 years, busy 70% of the time, 400 W at $0.15/kWh, 143 tokens/s.
  EXPECT_NEAR(own_usd_per_mtok(12000, 3, 0.70, 0.06, 143), 1.3837, 0.00005);
  // Idle time costs: at 100% the capital is spread over more tokens.
  EXPECT_LT(own_usd_per_mtok(12000, 3, 1.0, 0.06, 143), own_usd_per_mtok(12000, 3, 0.7, 0.06, 143));
}

TEST(CostReference, EstimateTakesUtilizationForOwnedCost) {
  EstimateQuery q;
  q.model = "llama-3-8b";
  q.mode = "infer";
  q.tokens = 100000;
  PriceTable prices;
  prices.entries = {{"runpod", "A100_80GB", 1, 1.89, std::nullopt, "any"}};
  auto full = estimate_workload(q, builtin(), prices, default_calibration());
  q.utilization = 0.7;
  auto seventy = estimate_workload(q, builtin(), prices, default_calibration());
  ASSERT_TRUE(full.ok() && seventy.ok());
  for (size_t i = 0; i < full->gpus.size(); ++i) {
    const GpuEstimate& a = full->gpus[i];
    const GpuEstimate& b = seventy->gpus[i];
    if (!a.own_usd_per_mtok) continue;
    EXPECT_GT(*b.own_usd_per_mtok, *a.own_usd_per_mtok) << a.gpu;
  }
  q.utilization = 1.5;
  EXPECT_FALSE(estimate_workload(q, builtin(), prices, default_calibration()).ok());
}

TEST(CostReference, CatalogSaysWhichPrecisionsEachCardRunsNatively) {
  EXPECT_FALSE(supports_precision(*find_gpu(builtin(), "V100"), "bf16"));
  EXPECT_FALSE(supports_precision(*find_gpu(builtin(), "T4"), "bf16"));
  EXPECT_TRUE(supports_precision(*find_gpu(builtin(), "A100_80GB"), "bf16"));
  EXPECT_FALSE(supports_precision(*find_gpu(builtin(), "A100_80GB"), "fp8"));
  EXPECT_TRUE(supports_precision(*find_gpu(builtin(), "H100_SXM"), "fp8"));
  for (const GpuSpec& g : builtin()) {
    EXPECT_FALSE(g.precisions.empty()) << g.name;
    EXPECT_EQ(g.fp8_tflops.has_value(), supports_precision(g, "fp8")) << g.name;
    EXPECT_TRUE(g.memory == "hbm" || g.memory == "gddr") << g.name;
  }
}

// The TTS example (bf16) with its GPU allow-list removed, over every provider's offline offers:
// the cheap V100 and the Turing cards lose, each with the reason.
TEST(CostReference, TtsExampleWithoutAllowListNeverPicksACardWithoutNativeBf16) {
  TempDir dir;
  std::ifstream f(std::string(BURST_SOURCE_DIR) + "/examples/tts-render.yaml");
  std::stringstream s;
  s << f.rdbuf();
  std::string text = s.str();
  const size_t pos = text.find("  gpus: [");
  ASSERT_NE(pos, std::string::npos);
  text.erase(pos, text.find('\n', pos) + 1 - pos);
  std::filesystem::create_directory(dir.path() + "/tts-render");
  dir.write("tts-render.yaml", text);
  std::vector<SpecError> errors;
  auto spec = load_spec_file(dir.path() + "/tts-render.yaml", &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? "" : errors[0].text);
  ASSERT_TRUE(spec->resources.gpus.empty());
  auto table = load_price_table(dir.path(), offline_price_provider_names());
  ASSERT_TRUE(table.ok());
  PlanInput in;
  in.providers = {"runpod", "vast", "lambda"};
  in.catalog = &builtin();
  for (const PriceEntry& e : table->entries) {
    const GpuSpec* g = find_gpu(builtin(), e.gpu);
    in.gpu_offers.push_back(Offer{e.provider, e.gpu, e.gpu_count, g->vram_gb, e.usd_per_hour,
                                  e.spot_usd_per_hour, e.region, true, "offline table"});
  }
  auto plan = make_plan(*spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_TRUE(supports_precision(*find_gpu(builtin(), plan->gpu.gpu_type), "bf16"))
      << plan->gpu.gpu_type;
  int without = 0, by_precision = 0;
  for (const Candidate& c : plan->candidates) {
    const GpuSpec* g = find_gpu(builtin(), c.offer.gpu_type);
    if (supports_precision(*g, "bf16")) continue;
    ++without;
    ASSERT_FALSE(c.rejected.empty()) << g->name;
    // A static limit (the price cap) may speak first; otherwise the precision is the reason.
    if (c.rejected.find("resources.") != std::string::npos) continue;
    ++by_precision;
    EXPECT_EQ(c.rejected.rfind(g->name + " has no native bf16 (it runs fp32, fp16", 0), 0u)
        << c.rejected;
    EXPECT_NE(why_not_chosen(*plan, c).find("has no native bf16"), std::string::npos);
  }
  EXPECT_GT(without, 0) << "the table offers V100 and Turing cards";
  EXPECT_GT(by_precision, 0) << "the $0.20 V100 is under the price cap";
}

}  // namespace
}  // namespace burst
