// A diffusion pipeline's peak memory from its parts by phase (docs/cost-model.md, "Diffusion
// memory"): the text encoders and the VAE count beside the denoiser, offload moves the peak in
// the documented direction, the activations grow with the tokens of one call, and the input is
// refused where it means nothing, at the spec's line or by `burst estimate`.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/spec.h"
#include "burst/spec_formats.h"
#include "cost/cost_internal.h"
#include "fakes/temp_dir.h"
#include "plan/candidates.h"
#include "plan/estimate.h"
#include "registry.h"

namespace burst {
namespace {

constexpr double kGib = 1024.0 * 1024 * 1024;

Workload pipeline(const char* model, const char* offload = "") {
  Workload w;
  w.kind = "diffusion";
  w.model = model;
  w.items = 1;
  w.offload = offload;
  return *with_model_shape(w);
}

double peak_gib(const Workload& w) {
  auto m = memory_need(w);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? m->total_gib() : 0;
}

TEST(CostDiffusionMemory, ABatchLargerThanTheItemsRunsTheItems) {
  // SDXL, 4 images asked at batch 8: the pipeline runs one batch of 4, so its activations and its
  // time are those of batch 4, not of 8 items (half of them absent).
  Workload asked = pipeline("sdxl");
  asked.items = 4;
  asked.steps = 30;
  asked.batch = 8;
  Workload four = asked;
  four.batch = 4;
  EXPECT_DOUBLE_EQ(memory_need(asked)->activations_gib, memory_need(four)->activations_gib);
  TempDir dir;  // no gpus.yaml there: the built-in catalog
  const auto catalog = load_gpu_catalog(dir.path());
  ASSERT_TRUE(catalog.ok());
  const GpuSpec g = *find_gpu(*catalog, "RTX_4090");
  auto t8 = run_time(asked, g, 1, *catalog, default_calibration());
  auto t4 = run_time(four, g, 1, *catalog, default_calibration());
  ASSERT_TRUE(t8.ok() && t4.ok());
  EXPECT_DOUBLE_EQ(t8->compute_s, t4->compute_s);
  EXPECT_EQ(t8->batch, 4);
  // 12 items at batch 8 still run a full batch of 8, then 4.
  asked.items = 12;
  EXPECT_GT(memory_need(asked)->activations_gib, memory_need(four)->activations_gib);
}

TEST(CostDiffusionMemory, ThePipelinesEncodersAndVaeCountBesideTheDenoiser) {
  // FLUX.1 dev in bf16 on the card whole: its 11.9B transformer, T5-XXL and CLIP-L (4.88B) and
  // its VAE (0.084B), 2 bytes each (the blog's 'about 31.447 GB' loaded, in GiB).
  auto m = memory_need(pipeline("flux-dev"));
  ASSERT_TRUE(m.ok());
  EXPECT_NEAR(m->weights_gib, (11.9 + 0.123 + 4.76 + 0.084) * 2e9 / kGib, 1e-9);
  // The activations: the allowance of 0.5 bytes a denoiser parameter per item.
  EXPECT_NEAR(m->activations_gib, 0.5 * 11.9e9 / kGib, 1e-9);
  // Every built-in pipeline the table knows is one of the shape table's names.
  for (const char* name :
       {"sdxl", "sd-3-medium", "pixart-sigma", "cogview4", "hunyuan-dit", "wan2.1-t2v-14b",
        "wan2.2-t2v-a14b", "hunyuanvideo", "cogvideox-5b", "ltx-video-2b", "mochi-1-preview"}) {
    ASSERT_NE(cost::pipeline_components(name), nullptr) << name;
    EXPECT_NE(find_diffusion_model(name), nullptr) << name;
  }
}

TEST(CostDiffusionMemory, OffloadLowersThePeakInTheDocumentedOrder) {
  // Wan 2.2 T2V-A14B at 720p: without offload both experts, umT5 and the VAE stay on the card;
  // model offload holds one expert and its activations (Wan's --offload_model True); sequential
  // holds one block and the activations.
  const double none = peak_gib(pipeline("wan2.2-t2v-a14b"));
  const double model = peak_gib(pipeline("wan2.2-t2v-a14b", "model"));
  const double sequential = peak_gib(pipeline("wan2.2-t2v-a14b", "sequential"));
  EXPECT_GT(none, model);
  EXPECT_GT(model, sequential);
  auto parts = diffusion_memory_parts(pipeline("wan2.2-t2v-a14b"), 14.29e9, 2);
  ASSERT_TRUE(parts.ok());
  EXPECT_EQ(parts->experts, 2);
  const double act = parts->activations_gib;
  EXPECT_NEAR(none, 2 * parts->denoiser_gib + parts->encoders_gib + parts->vae_gib + act, 1e-9);
  EXPECT_NEAR(model, parts->denoiser_gib + act, 1e-9);
  EXPECT_NEAR(sequential, parts->denoiser_gib / 40 + act, 1e-9);
  // A small denoiser with a large text encoder: under model offload the encoder's phase is the
  // peak (CogView4's GLM-4-9B against its 6B transformer at 512 x 512).
  Workload cog = pipeline("cogview4", "model");
  cog.resolution = 512;
  auto m = memory_need(cog);
  ASSERT_TRUE(m.ok());
  EXPECT_NEAR(m->weights_gib, 9.4 * 2e9 / kGib, 1e-9);
  EXPECT_EQ(m->activations_gib, 0);
}

TEST(CostDiffusionMemory, TheActivationsAreTheAllowanceAnItem) {
  // Nothing fitted (bench/README.md, "Diffusion peak memory: scored, and the form not kept"): the
  // denoiser's activations are 0.5 bytes a parameter per item, so a batch of four holds four
  // times one item's, and the pipeline's weights do not move with the batch.
  Workload one = pipeline("sdxl");
  Workload four = one;
  four.batch = 4;
  four.items = 4;  // a batch holds at most the items there are
  auto a = memory_need(one), b = memory_need(four);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NEAR(b->activations_gib, 4 * a->activations_gib, 1e-9);
  EXPECT_NEAR(a->activations_gib, 0.5 * 2.57e9 / kGib, 1e-9);
  EXPECT_DOUBLE_EQ(a->weights_gib, b->weights_gib);
}

TEST(CostDiffusionMemory, WhatACallReadsIsTheDenoiserNotThePipeline) {
  // The run time's bytes a call are the denoiser's weights and its traffic, as before the
  // pipeline's parts were counted: adding offload or encoders moves the fit, not the step.
  TempDir dir;
  auto catalog = load_gpu_catalog(dir.path());
  ASSERT_TRUE(catalog.ok());
  Workload none = pipeline("sdxl"), model = pipeline("sdxl", "model");
  const GpuSpec* gpu = find_gpu(*catalog, "A100_80GB");
  auto a = run_time(none, *gpu, 1, *catalog, default_calibration());
  auto b = run_time(model, *gpu, 1, *catalog, default_calibration());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_DOUBLE_EQ(a->step_s, b->step_s);
  // FLUX.2 dev (a 32B transformer, a 24B text encoder) does not fit one 80 GB card whole; with
  // model offload it does.
  const GpuSpec* h100 = find_gpu(*catalog, "H100_SXM");
  EXPECT_EQ(run_time(pipeline("flux-2-dev"), *h100, 1, *catalog, default_calibration())->bound,
            "capacity");
  EXPECT_NE(
      run_time(pipeline("flux-2-dev", "model"), *h100, 1, *catalog, default_calibration())->bound,
      "capacity");
}

TEST(CostDiffusionMemory, APipelineOverSeveralCardsRunsItsDenoiserOnOne) {
  // FLUX.2 dev, nothing offloaded: more than one 80 GB card holds, so two H100s take it with its
  // transformer and activations on one and its Mistral text encoder and VAE on the other
  // (diffusers' device_map "balanced"). The step is one card's: the same as with model offload
  // on one card, which reads the same denoiser; not halved, no collectives.
  TempDir dir;
  auto catalog = load_gpu_catalog(dir.path());
  ASSERT_TRUE(catalog.ok());
  const GpuSpec* h100 = find_gpu(*catalog, "H100_SXM");
  const Workload whole = pipeline("flux-2-dev");
  EXPECT_EQ(gpus_needed(whole, *h100), 2);
  EXPECT_LE(diffusion_card_gib(whole), usable_gib(*h100));
  auto two = run_time(whole, *h100, 2, *catalog, default_calibration());
  auto one = run_time(pipeline("flux-2-dev", "model"), *h100, 1, *catalog, default_calibration());
  ASSERT_TRUE(two.ok() && one.ok());
  EXPECT_EQ(two->layout.group, 2);
  EXPECT_DOUBLE_EQ(two->step_s, one->step_s);
  EXPECT_EQ(two->comm_s, 0);
  // A denoiser and activations that no one card holds do not fit, however many cards: an
  // RTX 4090 cannot take Wan 2.1's 14B denoiser.
  EXPECT_EQ(gpus_needed(pipeline("wan2.1-t2v-14b"), *find_gpu(*catalog, "RTX_4090")), 0);
}

// The plan refuses two RTX 4090s for Wan 2.1 14B with the reason and what lowers it, and takes
// two H100s.
TEST(CostDiffusionMemory, ThePlanSaysWhyADenoiserThatNoOneCardHoldsDoesNotFit) {
  TempDir dir;
  auto catalog = load_gpu_catalog(dir.path());
  ASSERT_TRUE(catalog.ok()) << catalog.error().message;
  const GpuSpec* g = find_gpu(*catalog, "RTX_4090");
  const GpuSpec* h = find_gpu(*catalog, "H100_SXM");
  std::vector<Offer> offers{
      Offer{"runpod", "RTX_4090", 2, g->vram_gb, 1.38, std::nullopt, "", true, "test"},
      Offer{"runpod", "H100_SXM", 2, h->vram_gb, 5.38, std::nullopt, "", true, "test"}};
  attach_traits(&offers);
  CandidateInput in;
  in.catalog = &*catalog;
  in.calibration = default_calibration();
  PipelineSpec spec;
  spec.name = "wan";
  spec.run = "true";
  spec.workload = pipeline("wan2.1-t2v-14b");
  auto c = price_candidates(spec, offers, in);
  ASSERT_EQ(c.size(), 2u);
  for (const auto& one : c) {
    if (one.offer.gpu_type == "RTX_4090") {
      EXPECT_EQ(
          one.rejected.rfind("does not fit: the denoiser and its activations sit on one card", 0),
          0u)
          << one.rejected;
      EXPECT_NE(one.rejected.find("workload.offload sequential"), std::string::npos)
          << one.rejected;
    } else {
      EXPECT_EQ(one.rejected, "");
    }
  }
}

TEST(CostDiffusionMemory, OffloadIsAnInputOfTheSpecAndOfEstimateAndRefusedElsewhere) {
  const std::string head =
      "name: x\nrun: echo hi\nresources:\n  providers: [local]\nworkload:\n"
      "  kind: diffusion\n  model: sdxl\n  items: 10\n";
  std::vector<SpecError> errors;
  auto spec = parse_spec(head + "  offload: sequential\n", "p.yaml", &errors, {"local"});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->workload.offload, "sequential");
  spec = parse_spec(head + "  offload: cpu\n", "p.yaml", &errors, {"local"});
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().message.find("p.yaml:9:12: workload.offload"), std::string::npos)
      << spec.error().message;
  EXPECT_NE(spec.error().message.find("none, model, sequential"), std::string::npos)
      << spec.error().message;
  const std::string llm =
      "name: x\nrun: echo hi\nresources:\n  providers: [local]\nworkload:\n"
      "  kind: llm-inference\n  model: llama-3-8b\n  offload: model\n";
  spec = parse_spec(llm, "p.yaml", &errors, {"local"});
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().message.find("p.yaml:8:12: workload.offload"), std::string::npos)
      << spec.error().message;
  EXPECT_NE(spec.error().message.find("only applies to workload kind diffusion"), std::string::npos)
      << spec.error().message;

  EstimateQuery q;
  q.mode = "diffusion";
  q.model = "sdxl";
  q.items = 1;
  q.offload = "model";
  auto w = workload_from_query(q);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->offload, "model");
  q.offload = "disk";
  EXPECT_EQ(workload_from_query(q).error().message,
            "--offload: \"disk\" is not one of none, model, sequential");
  q.offload = "model";
  q.mode = "infer";
  EXPECT_NE(workload_from_query(q).error().message.find("--offload only apply to --mode diffusion"),
            std::string::npos);
}

}  // namespace
}  // namespace burst
