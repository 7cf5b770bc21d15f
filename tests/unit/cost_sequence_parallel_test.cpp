// One item over several cards (docs/cost-model.md, "One item over several cards"): with
// workload.sequence_parallel N a transformer denoiser's tokens are split over N cards, each
// holding the whole denoiser; the cards pay Ulysses's all-to-alls at their link's rate, the VAE
// decode stays on one card, and what cannot run that way is an error (or a card that cannot hold
// the denoiser, no fit), never a silent price. Guidance parallel (workload.cfg_parallel) below.
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

class SequenceParallel : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cat = load_gpu_catalog(dir_.path());
    ASSERT_TRUE(cat.ok());
    catalog_ = *cat;
  }
  // `items` of a named denoiser's default clip (or image), split over `sp` cards if given.
  static Workload item_of(const char* model, std::optional<long> sp, long items = 1) {
    Workload w;
    w.kind = "diffusion";
    w.model = model;
    w.items = items;
    w.sequence_parallel = sp;
    return w;
  }
  // Wan 2.1 T2V 14B, one 1280 x 720 clip of 81 frames (the model's defaults), with
  // --offload_model True as its README runs one card: one component on the card at a time.
  static Workload wan(std::optional<long> sp, long items = 1) {
    Workload w = item_of("wan2.1-t2v-14b", sp, items);
    w.offload = "model";
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

TEST_F(SequenceParallel, OneClipOnEightCardsRunsFasterThanOneCardByLessThanEight) {
  auto one = time(wan(std::nullopt), "H100_SXM", 8);
  auto split = time(wan(8), "H100_SXM", 8);
  ASSERT_TRUE(one.ok() && split.ok()) << (one.ok() ? split.error().message : one.error().message);
  // Without the input the clip runs on one copy: seven of the eight idle, no traffic.
  EXPECT_EQ(one->layout.group, 1);
  EXPECT_EQ(one->layout.replicas, 8);
  EXPECT_EQ(one->comm_s, 0);
  EXPECT_EQ(split->layout.group, 8);
  EXPECT_EQ(split->layout.replicas, 1);
  EXPECT_EQ(split->bound, "compute");
  // The all-to-alls cost something on NVLink, and the VAE decode is not split: the whole clip
  // speeds up by less than the eight cards.
  EXPECT_GT(split->comm_s, 0);
  EXPECT_DOUBLE_EQ(split->prefill_s, one->prefill_s);
  const double speedup = one->compute_s / split->compute_s;
  EXPECT_GT(speedup, 5.0);
  EXPECT_LT(speedup, 8.0);
  // A step is the card's eighth of the compute plus the traffic.
  EXPECT_NEAR(split->step_s, one->step_s / 8 + split->comm_s, one->step_s * 1e-9);
}

TEST_F(SequenceParallel, TheTrafficWeighsMoreOnPcieCardsThanOnNvlink) {
  auto nvlink = time(wan(4), "H100_SXM", 4);
  auto pcie = time(wan(4), "L40S", 4);
  ASSERT_TRUE(nvlink.ok() && pcie.ok());
  // Four all-to-alls of 3/4 of a card's quarter of 2 passes x 75600 tokens x 5120 x 2 bytes
  // a block, 40 blocks: about 48 GB a step through each card's link.
  const double per_card = 4.0 * 40 * (2 * 75600.0 / 4) * 5120 * 2 * 3 / 4;
  EXPECT_NEAR(nvlink->comm_s,
              per_card / (link_gbs(*find_gpu(catalog_, "H100_SXM"), 4) * 1e9) +
                  4 * 40 * 2 * kAllReduceLatencyFastS,
              1e-9);
  EXPECT_GT(pcie->comm_s / pcie->step_s, 5 * nvlink->comm_s / nvlink->step_s);
}

TEST_F(SequenceParallel, CopiesTakeWholeItemsAndEachSplitsItsOwn) {
  // Two clips on eight cards in groups of four: two copies, one round; in groups of eight, one
  // copy, two rounds.
  auto fours = time(wan(4, 2), "H100_SXM", 8);
  auto eights = time(wan(8, 2), "H100_SXM", 8);
  ASSERT_TRUE(fours.ok() && eights.ok());
  EXPECT_EQ(fours->layout.replicas, 2);
  EXPECT_EQ(fours->rounds, 1);
  EXPECT_EQ(eights->layout.replicas, 1);
  EXPECT_EQ(eights->rounds, 2);
  // Sequence parallel 1 is the one-card copy it names.
  auto ones = time(wan(1, 2), "H100_SXM", 8);
  auto unnamed = time(wan(std::nullopt, 2), "H100_SXM", 8);
  ASSERT_TRUE(ones.ok() && unnamed.ok());
  EXPECT_DOUBLE_EQ(ones->compute_s, unnamed->compute_s);
}

TEST_F(SequenceParallel, ACardThatCannotHoldTheWholeDenoiserDoesNotFit) {
  // 14B in bf16 is 28 GB: a 24 GB RTX 4090 cannot hold it, however many there are. Without
  // sequence parallel the pipeline's components sit whole on cards (the denoiser on one); with
  // it each card of a Ulysses group holds all of the denoiser.
  auto placed = time(wan(std::nullopt), "RTX_4090", 8);
  ASSERT_TRUE(placed.ok());
  EXPECT_EQ(placed->bound, "capacity");
  auto split = time(wan(8), "RTX_4090", 8);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->bound, "capacity");
}

TEST_F(SequenceParallel, WhatCannotBeSplitIsAnErrorNotAPrice) {
  auto few = time(wan(8), "H100_SXM", 4);
  ASSERT_FALSE(few.ok());
  EXPECT_EQ(few.error().message, "sequence_parallel 8 needs at least that many GPUs (got 4)");
  auto u = time(item_of("sdxl", 2), "H100_SXM", 2);
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.error().message,
            "sequence_parallel splits a transformer denoiser's tokens; sdxl is a unet");
  Workload llm;
  llm.kind = "llm-inference";
  llm.model = "llama-3-8b";
  llm.tokens = 10;
  llm.sequence_parallel = 2;
  auto l = time(llm, "H100_SXM", 2);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message, "sequence_parallel only applies to diffusion");
}

TEST_F(SequenceParallel, TheDegreeMustDivideTheHeadsAsUlyssesGivesEachCardWholeOnes) {
  // HunyuanVideo: 24 heads, guidance embedded (one pass). 5 does not divide them; 8 does.
  Workload hv = item_of("hunyuanvideo", 5);
  auto five = time(hv, "H100_SXM", 8);
  ASSERT_FALSE(five.ok());
  EXPECT_EQ(five.error().message,
            "sequence_parallel 5 does not divide the 24 attention heads of hunyuanvideo: Ulysses "
            "gives each card whole heads; degrees that split them: 2, 3, 4, 6, 8, 12, 24");
  hv.sequence_parallel = 8;
  EXPECT_TRUE(time(hv, "H100_SXM", 8).ok());
  // Wan 2.1 1.3B: 12 heads, two guidance passes, so 8 runs as 2 x 4 (guidance parallel times
  // Ulysses, as xDiT runs it); 5 is refused, and without guidance 8 is too.
  Workload small = item_of("wan2.1-t2v-1.3b", 8);
  EXPECT_TRUE(time(small, "H100_SXM", 8).ok());
  small.sequence_parallel = 5;
  ASSERT_FALSE(time(small, "H100_SXM", 8).ok());
  small.sequence_parallel = 8;
  small.guidance = 1;
  auto one_pass = time(small, "H100_SXM", 8);
  ASSERT_FALSE(one_pass.ok());
  EXPECT_NE(one_pass.error().message.find("8 does not divide the 12 attention heads"),
            std::string::npos)
      << one_pass.error().message;
  // A spec's own heads count where the table has none.
  Workload own;
  own.kind = "diffusion";
  own.architecture = "dit";
  own.params_b = 2;
  own.layers = 28;
  own.hidden = 1152;
  own.heads = 16;
  own.items = 1;
  own.resolution = 512;
  own.guidance = 1;
  own.sequence_parallel = 3;
  ASSERT_FALSE(time(own, "H100_SXM", 4).ok());
  own.sequence_parallel = 4;
  EXPECT_TRUE(time(own, "H100_SXM", 4).ok());
}

TEST_F(SequenceParallel, EstimateTakesTheFlagAndRefusesItWhereItCannotApply) {
  EstimateQuery q;
  q.mode = "diffusion";
  q.model = "wan2.1-t2v-14b";
  q.items = 1;
  q.sequence_parallel = 8;
  auto w = workload_from_query(q);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->sequence_parallel, 8);
  auto r = estimate_workload(q, catalog_, PriceTable{}, default_calibration());
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (const GpuEstimate& g : r->gpus) {
    if (g.gpu == "H100_SXM") {
      EXPECT_EQ(g.count, 8);  // one copy, its own eight cards
    } else if (g.gpu == "RTX_4090") {
      EXPECT_EQ(g.count, 0);  // no card of it holds the whole denoiser
    }
  }
  q.gpus = 4;
  EXPECT_EQ(workload_from_query(q).error().message, "--gpus 4 is fewer than --sequence-parallel 8");
  q.gpus.reset();
  q.model = "sdxl";  // a UNet, known once the model is shaped
  auto unet = estimate_workload(q, catalog_, PriceTable{}, default_calibration());
  ASSERT_FALSE(unet.ok());
  EXPECT_EQ(unet.error().message,
            "--sequence-parallel splits a transformer denoiser's tokens; sdxl is a unet");
  q.gpus.reset();
  q.mode = "infer";
  q.model = "llama-3-8b";
  EXPECT_NE(workload_from_query(q).error().message.find(
                "--sequence-parallel, --cfg-parallel and --offload only apply to --mode diffusion"),
            std::string::npos);
}

// Guidance parallel (docs/cost-model.md, "Guidance parallel"): with workload.cfg_parallel and
// sequence_parallel N, classifier-free guidance's two passes run on two halves of the N cards,
// Ulysses over N / 2 within each. The compute per card is unchanged; the all-to-alls shrink to a
// half's, and vanish on two cards. A denoiser with one pass a step, an odd degree or no group is
// refused, never silently priced.
class GuidanceParallel : public SequenceParallel {
 protected:
  // One clip of a named video denoiser at its defaults, split over `sp` cards.
  static Workload clip(const char* model, long sp, bool cfg) {
    Workload w = item_of(model, sp);
    if (cfg) w.cfg_parallel = true;
    return w;
  }
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

// A diffusion spec of `model` whose workload ends with `tail` (its first line is line 6).
Result<PipelineSpec> sp_spec(const std::string& tail, std::vector<std::string>* errors,
                             const std::string& model = "wan2.1-t2v-14b") {
  std::vector<SpecError> found;
  Result<PipelineSpec> spec = parse_spec(
      "name: x\nrun: echo hi\nworkload:\n  kind: diffusion\n  model: " + model + "\n" + tail,
      "p.yaml", &found, provider_names());
  for (const SpecError& e : found) errors->push_back(e.text);
  return spec;
}

TEST(SequenceParallelSpec, RaisesTheDefaultGpuCountAndReadsBackFromTheWriter) {
  std::vector<std::string> errors;
  auto spec = sp_spec("  items: 1\n  sequence_parallel: 4\n", &errors);
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0]);
  EXPECT_EQ(spec->workload.sequence_parallel, 4);
  EXPECT_EQ(spec->resources.gpu_count, 4);
  const std::string yaml = write_spec_yaml(*spec, SpecReadInfo{});
  EXPECT_NE(yaml.find("sequence_parallel: 4"), std::string::npos) << yaml;
  std::vector<SpecError> found;
  auto read = parse_spec(yaml, "w.yaml", &found, provider_names());
  ASSERT_TRUE(read.ok()) << yaml;
  EXPECT_EQ(read->workload.sequence_parallel, 4);
}

TEST(SequenceParallelSpec, WhatCannotRunItIsAnErrorAtItsLineAndColumn) {
  std::vector<std::string> errors;
  EXPECT_FALSE(sp_spec("  sequence_parallel: 4\nresources:\n  gpu_count: 2\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:8:14: resources.gpu_count: 2 is fewer than "
                        "workload.sequence_parallel (4): each copy of the denoiser spans that "
                        "many GPUs"}));
  errors.clear();
  EXPECT_FALSE(sp_spec("  architecture: unet\n  sequence_parallel: 2\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:7:22: workload.sequence_parallel: splits a transformer "
                        "denoiser's tokens: architecture unet has no such split (give "
                        "architecture dit, or leave it out)"}));
  errors.clear();
  std::vector<SpecError> found;
  EXPECT_FALSE(parse_spec("name: x\nrun: echo hi\nworkload:\n  kind: llm-inference\n"
                          "  sequence_parallel: 2\n",
                          "p.yaml", &found, provider_names())
                   .ok());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].text,
            "p.yaml:5:22: workload.sequence_parallel: only applies to workload kind diffusion "
            "(llm-inference splits a model with tensor_parallel)");
  // A named model's UNet is known once shaped: refused at the field's line before any plan.
  auto unet = parse_spec(
      "name: x\nrun: echo hi\nworkload:\n  kind: diffusion\n  model: sdxl\n"
      "  items: 1\n  sequence_parallel: 2\n",
      "p.yaml", &found, provider_names());
  ASSERT_TRUE(unet.ok());
  EXPECT_EQ(spec_refusals(*unet),
            (std::vector<std::string>{"p.yaml:7:22: workload.sequence_parallel: splits a "
                                      "transformer denoiser's tokens; sdxl is a unet"}));
  auto heads = parse_spec(
      "name: x\nrun: echo hi\nworkload:\n  kind: diffusion\n"
      "  model: hunyuanvideo\n  items: 1\n  sequence_parallel: 5\n",
      "p.yaml", &found, provider_names());
  ASSERT_TRUE(heads.ok());
  const std::vector<std::string> refused = spec_refusals(*heads);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].rfind("p.yaml:7:22: workload.sequence_parallel: 5 does not divide the 24 "
                             "attention heads of hunyuanvideo",
                             0),
            0u)
      << refused[0];
}

TEST(GuidanceParallelSpec, ReadsBackFromTheWriter) {
  std::vector<std::string> errors;
  auto spec = sp_spec("  items: 1\n  sequence_parallel: 4\n  cfg_parallel: true\n", &errors);
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
  EXPECT_FALSE(sp_spec("  items: 1\n  cfg_parallel: true\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:7:17: workload.cfg_parallel: needs sequence_parallel: guidance's "
                        "two passes run on two halves of a sequence_parallel group "
                        "(sequence_parallel: 2 runs one pass a card)"}));
  errors.clear();
  EXPECT_FALSE(sp_spec("  items: 1\n  sequence_parallel: 5\n  cfg_parallel: true\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:8:17: workload.cfg_parallel: needs an even sequence_parallel, two "
                        "halves of the group (got 5)"}));
  // A named model's single pass is known once shaped: refused at the field's line before any plan.
  errors.clear();
  auto one_pass = sp_spec("  items: 1\n  sequence_parallel: 2\n  cfg_parallel: true\n", &errors,
                          "hunyuanvideo");
  ASSERT_TRUE(one_pass.ok()) << (errors.empty() ? "" : errors[0]);
  EXPECT_EQ(spec_refusals(*one_pass),
            (std::vector<std::string>{
                "p.yaml:8:17: workload.cfg_parallel: runs guidance's two passes on two halves of "
                "the group; hunyuanvideo runs one pass a step (guidance 1 or less, or distilled "
                "into one pass)"}));
}

}  // namespace
}  // namespace burst
