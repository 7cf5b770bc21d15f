// The acceptance cases of the cost model on the real example (examples/tts-render.yaml, a 0.5B
// flow-matching TTS render of 300 answers), planned on RunPod's offline prices: the card it lands
// on with and without a 30-minute deadline, and why the H100 never wins.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "burst/gpu_catalog.h"
#include "fakes/temp_dir.h"
#include "plan/planner.h"
#include "registry.h"

namespace burst {
namespace {

std::string example_text() {
  std::ifstream f(std::string(BURST_SOURCE_DIR) + "/examples/tts-render.yaml");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The example, edited as `edit` says, loaded from a copy in a temp dir (with its code dir).
PipelineSpec load_copy(const TempDir& dir, const std::string& text) {
  std::filesystem::create_directory(dir.path() + "/tts-render");
  dir.write("tts-render.yaml", text);
  std::vector<SpecError> errors;
  auto spec = load_spec_file(dir.path() + "/tts-render.yaml", &errors, provider_names());
  EXPECT_TRUE(spec.ok()) << (errors.empty() ? "" : errors[0].text);
  return spec.ok() ? *spec : PipelineSpec{};
}

std::string with_deadline(std::string text) {
  const std::string at = "  max_runtime: 45m\n";
  const size_t pos = text.find(at);
  EXPECT_NE(pos, std::string::npos);
  return text.insert(pos + at.size(), "  deadline: 30m\n");
}

std::string without_allow_list(std::string text) {
  const size_t pos = text.find("  gpus: [");
  EXPECT_NE(pos, std::string::npos);
  return text.erase(pos, text.find('\n', pos) + 1 - pos);
}

class PlanExample : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cat = load_gpu_catalog(dir_.path());
    auto table = load_price_table(dir_.path(), offline_price_provider_names());
    ASSERT_TRUE(cat.ok() && table.ok());
    catalog_ = *cat;
    for (const PriceEntry& e : table->entries) {
      if (e.provider != "runpod") continue;
      const GpuSpec* g = find_gpu(catalog_, e.gpu);
      offers_.push_back(Offer{e.provider, e.gpu, e.gpu_count, g->vram_gb, e.usd_per_hour,
                              e.spot_usd_per_hour, e.region, true, "offline table"});
    }
    attach_traits(&offers_);  // as gather_offers does: RunPod's row (its 60 s boot prior)
  }
  Result<Plan> plan(const PipelineSpec& spec) {
    PlanInput in;
    in.providers = {"runpod"};  // the example's own list is [local]: `--provider runpod`
    in.gpu_offers = offers_;
    in.catalog = &catalog_;
    return make_plan(spec, in);
  }
  // Among offers the spec allows (its list and its $/hour cap) on one card: the lowest $/hour per
  // tensor TFLOPS.
  std::string cheapest_per_compute(const PipelineSpec& spec) {
    std::string best;
    double best_ratio = 1e9;
    for (const Offer& o : offers_) {
      if (spec.resources.max_usd_per_hour && o.usd_per_hour > *spec.resources.max_usd_per_hour)
        continue;
      const auto& allowed = spec.resources.gpus;
      if (o.gpu_count != 1 || (!allowed.empty() && std::find(allowed.begin(), allowed.end(),
                                                             o.gpu_type) == allowed.end()))
        continue;
      const double ratio = o.usd_per_hour / find_gpu(catalog_, o.gpu_type)->fp16_tflops;
      if (ratio < best_ratio) best_ratio = ratio, best = o.gpu_type;
    }
    return best;
  }
  void expect_h100_out_with_the_models_reason(const Plan& p) {
    int h100s = 0;
    for (const Candidate& c : p.candidates) {
      if (c.offer.gpu_type.find("H100") == std::string::npos) continue;
      ++h100s;
      const std::string why = why_not_chosen(p, c);
      EXPECT_NE(why.find("costs "), std::string::npos) << why;
      // More than the chosen plan, or (the H100 PCIe against two L4s under the deadline) the same.
      EXPECT_TRUE(why.find("x the chosen plan") != std::string::npos ||
                  why.find("costs the same as the chosen plan") != std::string::npos)
          << why;
      EXPECT_NE(why.find("compute-bound and uses"), std::string::npos) << why;
    }
    EXPECT_EQ(h100s, 12);  // H100 PCIe, NVL and SXM, each x1, x2, x4, x8
  }

  TempDir dir_;
  std::vector<GpuSpec> catalog_;
  std::vector<Offer> offers_;
};

TEST_F(PlanExample, WithoutADeadlineTtsRenderTakesTheCheapestCardPerUnitOfCompute) {
  PipelineSpec spec = load_copy(dir_, example_text());
  ASSERT_FALSE(spec.budget.deadline_seconds.has_value());
  auto p = plan(spec);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->gpu.gpu_type, cheapest_per_compute(spec));
  EXPECT_EQ(p->gpu.gpu_type, "L4");
  EXPECT_EQ(p->candidates[0].bound(), "compute");
  EXPECT_EQ(p->estimate.workers, 1);
  EXPECT_NEAR(p->estimate.usd, 0.2328, 0.0001);
  EXPECT_NEAR(p->estimate.total_s / 60, 31.7, 0.05);
  EXPECT_GT(p->curve.size(), 10u);  // the go-wide curve is priced and kept
  expect_h100_out_with_the_models_reason(*p);
}

TEST_F(PlanExample, WithAThirtyMinuteDeadlineTtsRenderStillTakesTheCheapestCardThatMeetsIt) {
  PipelineSpec spec = load_copy(dir_, with_deadline(example_text()));
  ASSERT_EQ(spec.budget.deadline_seconds, 1800);
  auto p = plan(spec);
  ASSERT_TRUE(p.ok()) << p.error().message;
  // One L4 takes 31.7 min: two of them meet 30 min, and the deadline rules out nothing cheaper.
  EXPECT_EQ(p->gpu.gpu_type, "L4");
  EXPECT_EQ(p->estimate.workers, 2);
  EXPECT_LE(p->estimate.total_s, 1800);
  expect_h100_out_with_the_models_reason(*p);
  for (const Candidate& c : p->candidates) {
    if (c.offer.gpu_type == "H100_SXM" && c.offer.gpu_count == 1) {
      EXPECT_EQ(why_not_chosen(*p, c),
                "H100_SXM is not in resources.gpus; costs 1.0x the chosen plan ($0.2475 vs "
                "$0.2418), though it finishes sooner (5.0 min vs 16.5 min); the workload is "
                "compute-bound and uses 3% of its 80 GiB");
    }
  }
}

TEST_F(PlanExample, WithoutTheAllowListTheModelAloneStillNeverPicksAnH100) {
  for (bool deadline : {false, true}) {
    std::string text = without_allow_list(example_text());
    PipelineSpec spec = load_copy(dir_, deadline ? with_deadline(text) : text);
    ASSERT_TRUE(spec.resources.gpus.empty());
    auto p = plan(spec);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->gpu.gpu_type.find("H100"), std::string::npos) << p->gpu.gpu_type;
    EXPECT_EQ(p->gpu.gpu_type, cheapest_per_compute(spec)) << "deadline " << deadline;
    EXPECT_EQ(p->gpu.gpu_type, "RTX_6000_ADA");
    expect_h100_out_with_the_models_reason(*p);
  }
}

TEST_F(PlanExample, ADeadlineTheRenderCannotMeetRejectsEveryCardWithItsReason) {
  std::string text = example_text();
  text.insert(text.find("  max_runtime: 45m\n") + 19, "  deadline: 3m\n");
  PipelineSpec spec = load_copy(dir_, text);
  auto p = plan(spec);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::kNoCapacity);
  EXPECT_NE(p.error().message.find("runpod RTX_4090: misses the deadline: 12 min > 3 min even "
                                   "with 2 workers"),
            std::string::npos)
      << p.error().message;
}

}  // namespace
}  // namespace burst
