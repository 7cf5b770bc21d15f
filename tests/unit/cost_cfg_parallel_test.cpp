// Guidance parallel (docs/cost-model.md, "Guidance parallel"): with workload.cfg_parallel and
// sequence_parallel N, classifier-free guidance's two passes run on two halves of the N cards,
// Ulysses over N / 2 within each. The compute per card is unchanged; the all-to-alls shrink to a
// half's, and vanish on two cards. A denoiser with one pass a step, an odd degree or no group is
// refused, never silently priced.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/spec.h"
#include "burst/spec_formats.h"
#include "cli/spec_errors.h"
#include "fakes/temp_dir.h"
#include "plan/estimate.h"
#include "registry.h"

namespace burst {
namespace {

class GuidanceParallel : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cat = load_gpu_catalog(dir_.path());
    ASSERT_TRUE(cat.ok());
    catalog_ = *cat;
  }
  // One clip of a named video denoiser at its defaults, split over `sp` cards.
  static Workload clip(const char* model, long sp, bool cfg) {
    Workload w;
    w.kind = "diffusion";
    w.model = model;
    w.items = 1;
    w.sequence_parallel = sp;
    if (cfg) w.cfg_parallel = true;
    return w;
  }
  Result<RunTime> time(const Workload& spec_w, const char* gpu, int gpus) {
    auto w = with_model_shape(spec_w);
    if (!w) return w.error();
    return run_time(*w, *find_gpu(catalog_, gpu), gpus, catalog_, default_calibration());
  }
  TempDir dir_;
  std::vector<GpuSpec> catalog_;
};

TEST_F(GuidanceParallel, OnTwoCardsEachRunsOnePassWithNoAllToAll) {
  // CogVideoX-2B runs guidance 6: a conditional and an unconditional pass each step.
  auto ulysses = time(clip("cogvideox-2b", 2, false), "L40", 2);
  auto halves = time(clip("cogvideox-2b", 2, true), "L40", 2);
  ASSERT_TRUE(ulysses.ok() && halves.ok())
      << (ulysses.ok() ? halves.error().message : ulysses.error().message);
  EXPECT_GT(ulysses->comm_s, 0);  // both passes' tokens split over the two cards, over PCIe
  EXPECT_EQ(halves->comm_s, 0);   // one pass a card: nothing to exchange inside a half
  EXPECT_EQ(halves->layout.group, 2);
  // Each card still computes half a step: the step falls by the traffic alone, the whole clip by
  // it every step.
  EXPECT_NEAR(halves->step_s, ulysses->step_s - ulysses->comm_s, ulysses->step_s * 1e-9);
  EXPECT_NEAR(ulysses->compute_s - halves->compute_s, 50 * ulysses->comm_s,
              ulysses->compute_s * 1e-9);
}

TEST_F(GuidanceParallel, OnFourCardsTheAllToAllsRunInsideAHalf) {
  auto ulysses = time(clip("wan2.1-t2v-14b", 4, false), "L40S", 4);
  auto halves = time(clip("wan2.1-t2v-14b", 4, true), "L40S", 4);
  ASSERT_TRUE(ulysses.ok() && halves.ok())
      << (ulysses.ok() ? halves.error().message : ulysses.error().message);
  // Each card sends (n-1)/n of its tokens / n per all-to-all: 3/4 of 2T/4 on four cards, 1/2 of
  // T/2 in a half of two, so the bytes fall to 2/3. Wan runs its passes in turn: a card of a half
  // makes one call a step, not two, so the calls' latency halves too.
  EXPECT_GT(halves->comm_s, 0);
  EXPECT_LT(halves->comm_s, ulysses->comm_s * 0.8);
  EXPECT_GT(halves->comm_s, ulysses->comm_s * 0.5);
  // Compute-bound either way: the step falls by the traffic alone.
  EXPECT_EQ(halves->bound, "compute");
  EXPECT_NEAR(halves->step_s - halves->comm_s, ulysses->step_s - ulysses->comm_s,
              ulysses->step_s * 1e-9);
}

TEST_F(GuidanceParallel, OnePassAStepOrAnOddDegreeIsRefused) {
  // HunyuanVideo embeds guidance: one pass a step, nothing to put on a second half.
  auto one_pass = time(clip("hunyuanvideo", 2, true), "H100_SXM", 2);
  ASSERT_FALSE(one_pass.ok());
  EXPECT_EQ(one_pass.error().message,
            "cfg_parallel runs guidance's two passes on two halves of the group; hunyuanvideo "
            "runs one pass a step (guidance 1 or less, or distilled into one pass)");
  auto odd = time(clip("cogvideox-2b", 3, true), "L40", 3);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error().message,
            "cfg_parallel needs an even sequence_parallel, two halves of the group (got 3)");
}

TEST_F(GuidanceParallel, EstimateFlagNeedsASequenceParallelGroup) {
  EstimateQuery q;
  q.mode = "diffusion";
  q.model = "cogvideox-2b";
  q.items = 1;
  q.cfg_parallel = true;
  EXPECT_EQ(workload_from_query(q).error().message,
            "--cfg-parallel needs --sequence-parallel: guidance's two passes run on two halves "
            "of a sequence-parallel group (--sequence-parallel 2 runs one pass a card)");
  q.sequence_parallel = 2;
  auto two = estimate_workload(q, catalog_, PriceTable{}, default_calibration());
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_TRUE(two->workload.cfg_parallel.value_or(false));
  q.model = "hunyuanvideo";
  auto one_pass = estimate_workload(q, catalog_, PriceTable{}, default_calibration());
  ASSERT_FALSE(one_pass.ok());
  EXPECT_EQ(one_pass.error().message.rfind("--cfg-parallel runs guidance's two passes", 0), 0u)
      << one_pass.error().message;
}

Result<PipelineSpec> cfg_spec(const char* model, const std::string& tail,
                              std::vector<std::string>* errors) {
  std::vector<SpecError> found;
  Result<PipelineSpec> spec =
      parse_spec(std::string("name: x\nrun: echo hi\nworkload:\n  kind: diffusion\n  model: ") +
                     model + "\n  items: 1\n" + tail,
                 "p.yaml", &found, provider_names());
  for (const SpecError& e : found) errors->push_back(e.text);
  return spec;
}

TEST(GuidanceParallelSpec, ReadsBackFromTheWriter) {
  std::vector<std::string> errors;
  auto spec = cfg_spec("wan2.1-t2v-14b", "  sequence_parallel: 4\n  cfg_parallel: true\n", &errors);
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0]);
  EXPECT_TRUE(spec->workload.cfg_parallel.value_or(false));
  EXPECT_TRUE(spec_refusals(*spec).empty());
  const std::string yaml = write_spec_yaml(*spec, SpecReadInfo{});
  EXPECT_NE(yaml.find("cfg_parallel: true"), std::string::npos) << yaml;
  std::vector<SpecError> found;
  auto read = parse_spec(yaml, "w.yaml", &found, provider_names());
  ASSERT_TRUE(read.ok()) << yaml;
  EXPECT_TRUE(read->workload.cfg_parallel.value_or(false));
}

TEST(GuidanceParallelSpec, WhatCannotRunItIsAnErrorAtItsLineAndColumn) {
  std::vector<std::string> errors;
  EXPECT_FALSE(cfg_spec("wan2.1-t2v-14b", "  cfg_parallel: true\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:7:17: workload.cfg_parallel: needs sequence_parallel: guidance's "
                        "two passes run on two halves of a sequence_parallel group "
                        "(sequence_parallel: 2 runs one pass a card)"}));
  errors.clear();
  EXPECT_FALSE(
      cfg_spec("wan2.1-t2v-14b", "  sequence_parallel: 5\n  cfg_parallel: true\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:8:17: workload.cfg_parallel: needs an even sequence_parallel, two "
                        "halves of the group (got 5)"}));
  // A named model's single pass is known once shaped: refused at the field's line before any plan.
  errors.clear();
  auto one_pass =
      cfg_spec("hunyuanvideo", "  sequence_parallel: 2\n  cfg_parallel: true\n", &errors);
  ASSERT_TRUE(one_pass.ok()) << (errors.empty() ? "" : errors[0]);
  EXPECT_EQ(spec_refusals(*one_pass),
            (std::vector<std::string>{
                "p.yaml:8:17: workload.cfg_parallel: runs guidance's two passes on two halves of "
                "the group; hunyuanvideo runs one pass a step (guidance 1 or less, or distilled "
                "into one pass)"}));
}

}  // namespace
}  // namespace burst
