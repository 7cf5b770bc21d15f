// Diffusion from the architecture (docs/cost-model.md, "Diffusion from the architecture"): the
// work of a denoising pass from the denoiser's shape and the latent (resolution, audio seconds),
// guidance's second pass, the decode, the fitted efficiency per architecture; each input moves
// the estimate the documented way; the example's TTS render (the seed's case) on an RTX 5090.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/spec.h"
#include "fakes/temp_dir.h"
#include "plan/estimate.h"
#include "registry.h"

namespace burst {
namespace {

std::vector<GpuSpec> real_catalog() {
  TempDir dir;  // no gpus.yaml there: the built-in catalog
  auto c = load_gpu_catalog(dir.path());
  EXPECT_TRUE(c.ok());
  return c.ok() ? *c : std::vector<GpuSpec>{};
}

const GpuSpec& gpu(const std::vector<GpuSpec>& catalog, const std::string& name) {
  const GpuSpec* g = find_gpu(catalog, name);
  EXPECT_NE(g, nullptr) << name;
  return *g;
}

Workload image(const std::string& model, long resolution) {
  Workload w;
  w.kind = "diffusion";
  w.model = model;
  w.precision = "fp16";
  w.items = 16;
  w.steps = 30;
  w.batch = 4;
  w.resolution = resolution;
  return w;
}

// `items` F5-TTS answers of `seconds` each, 32 steps (F5-TTS's default).
Workload speech(long items, double seconds) {
  Workload w;
  w.kind = "diffusion";
  w.model = "f5-tts";
  w.items = items;
  w.steps = 32;
  w.audio_seconds = seconds;
  return w;
}

DiffusionWork work(const Workload& spec_w) {
  auto w = with_model_shape(spec_w);
  EXPECT_TRUE(w.ok()) << w.error().message;
  auto d = diffusion_work_of(*w, *w->params_b * 1e9);
  EXPECT_TRUE(d.ok()) << d.error().message;
  return d.ok() ? *d : DiffusionWork{};
}

double seconds(const Workload& w, const GpuSpec& g, const std::vector<GpuSpec>& catalog) {
  auto t = run_time(w, g, 1, catalog, default_calibration());
  EXPECT_TRUE(t.ok()) << t.error().message;
  return t.ok() ? t->compute_s : 0;
}

TEST(CostDiffusion, ModelNamesFillTheDenoisersShape) {
  auto w = with_model_shape(image("sdxl", 0));
  ASSERT_TRUE(w.ok());
  EXPECT_DOUBLE_EQ(*w->params_b, 2.57);
  EXPECT_EQ(w->architecture, "unet");
  EXPECT_EQ(*w->resolution, 0);  // the spec's own value wins, even a silly one
  Workload bare = image("sdxl", 0);
  bare.resolution.reset();
  w = with_model_shape(bare);
  EXPECT_EQ(*w->resolution, 1024);
  EXPECT_DOUBLE_EQ(*w->guidance, 5.0);
  EXPECT_EQ(work(image("flux-dev", 1024)).passes, 1);  // guidance-distilled
  EXPECT_EQ(work(image("sd-1.5", 512)).passes, 2);
}

TEST(CostDiffusion, ANamedModelRunsItsPublishersStepsWhenTheWorkloadGivesNone) {
  // Not the diffusers pipeline's 28-50 for a few-step model, nor 1 for every model.
  auto steps_of = [](const std::string& model) {
    Workload w;
    w.kind = "diffusion";
    w.model = model;
    w.items = 1;
    auto shaped = with_model_shape(w);
    EXPECT_TRUE(shaped.ok()) << model;
    return shaped.ok() ? shaped->steps.value_or(0) : -1;
  };
  for (const DiffusionShape& d : diffusion_shapes()) EXPECT_GT(steps_of(d.name), 0) << d.name;
  EXPECT_EQ(steps_of("flux-dev"), 50);
  EXPECT_EQ(steps_of("flux-schnell"), 4);
  EXPECT_EQ(steps_of("flux1-schnell.safetensors"), 4);  // a release name: its row's
  EXPECT_EQ(steps_of("sdxl-turbo"), 1);
  EXPECT_EQ(steps_of("sdxl-refiner"), 15);  // 50 at strength 0.3
  EXPECT_EQ(steps_of("wan2.1-t2v-14b"), 50);
  EXPECT_EQ(steps_of("wan2.1-i2v-14b-720p"), 40);
  EXPECT_EQ(steps_of("mochi-1-preview"), 64);
  EXPECT_EQ(steps_of("f5-tts"), 32);
  // The workload's own count wins; without a model there is no publisher: one step, as before.
  Workload w = image("flux-dev", 1024);
  w.steps = 8;
  EXPECT_EQ(with_model_shape(w)->steps, 8);
  Workload bare;
  bare.kind = "diffusion";
  bare.architecture = "dit";
  bare.params_b = 2;
  bare.items = 1;
  EXPECT_FALSE(with_model_shape(bare)->steps.has_value());
}

TEST(CostDiffusion, DistilledVariantsShareTheirBasesDenoiserAndMakeOnePass) {
  // A step- or adversarially-distilled model runs its base's network without guidance's second
  // pass: the same work per pass, half the passes of a base that guides.
  const struct {
    const char* distilled;
    const char* base;
    long resolution;
  } pairs[] = {{"flux-schnell", "flux-dev", 1024},
               {"sd-3.5-large-turbo", "sd-3.5-large", 1024},
               {"sdxl-turbo", "sdxl", 512},
               {"ByteDance/SDXL-Lightning", "sdxl", 1024},
               {"latent-consistency/lcm-sdxl", "sdxl", 1024},
               {"stabilityai/sd-turbo", "sd-2.1-base", 512},
               {"SimianLuo/LCM_Dreamshaper_v7", "sd-1.5", 768}};
  for (const auto& p : pairs) {
    Workload fast = image(p.distilled, p.resolution), base = image(p.base, p.resolution);
    fast.guidance.reset();  // each model's own default
    base.guidance.reset();
    EXPECT_DOUBLE_EQ(work(fast).flops_per_pass, work(base).flops_per_pass) << p.distilled;
    EXPECT_EQ(work(fast).passes, 1) << p.distilled;
  }
  EXPECT_EQ(work(image("sd-3.5-large", 1024)).passes, 2);
  EXPECT_EQ(work(image("sdxl", 512)).passes, 2);
  // SD 3.5 Medium is SD 3 Medium's width and depth at 2.5B parameters.
  EXPECT_GT(work(image("sd-3.5-medium", 1024)).flops_per_pass,
            work(image("sd-3-medium", 1024)).flops_per_pass);
  EXPECT_LT(work(image("sd-3.5-medium", 1024)).flops_per_pass,
            work(image("sd-3.5-large", 1024)).flops_per_pass);
}

TEST(CostDiffusion, EveryDenoiserRowIsCitedAndComplete) {
  for (const DiffusionShape& d : diffusion_shapes()) {
    const std::string name = d.name;
    EXPECT_EQ(std::string(d.source).rfind("https://", 0), 0u) << name;
    EXPECT_GT(d.params_b, 0) << name;
    if (std::string(d.architecture) == "unet") {
      EXPECT_GT(d.attention[0].blocks, 0) << name;  // else SD 1.5's levels stand in
      EXPECT_GT(d.resolution, 0) << name;
    } else {
      EXPECT_GT(d.layers, 0) << name;
      EXPECT_GT(d.hidden, 0) << name;
    }
    // The hidden width and depth cannot hold more parameters than the row states (12 h^2 a
    // block is attention and a 4x MLP; FLUX's single blocks and GLU MLPs stay under it).
    if (d.layers > 0 && std::string(d.architecture) == "dit") {
      EXPECT_LT(12.0 * d.hidden * d.hidden * d.layers / 1e9, d.params_b * 1.35) << name;
    }
    EXPECT_GE(d.image_inputs, 0) << name;
    EXPECT_TRUE(d.vae_downsample == 0 || d.vae_downsample == 8 || d.vae_downsample == 16 ||
                d.vae_downsample == 32)
        << name;
  }
}

TEST(CostDiffusion, GuidanceThatIsAnInputOfTheDenoiserNeverAddsAPass) {
  // FLUX.1 dev's 3.5 and LCM's 8 are embeddings (one call, one pass a step), so a spec that copies
  // the card's guidance is not priced at twice the work; a model that guides by a second pass is.
  for (const auto& [model, scale] :
       std::vector<std::pair<const char*, double>>{{"black-forest-labs/FLUX.1-dev", 3.5},
                                                   {"black-forest-labs/FLUX.2-dev", 4.0},
                                                   {"black-forest-labs/FLUX.1-schnell", 3.5},
                                                   {"latent-consistency/lcm-sdxl", 8.0}}) {
    Workload w = image(model, 1024);
    w.guidance = scale;
    EXPECT_EQ(work(w).passes, 1) << model;
  }
  Workload sdxl = image("sdxl", 1024);
  sdxl.guidance = 8.0;
  EXPECT_EQ(work(sdxl).passes, 2);
}

TEST(CostDiffusion, AnEditingModelAlsoDenoisesItsInputImagesTokens) {
  // FLUX.1 Kontext is FLUX.1 dev's transformer over the latent's tokens and the input image's
  // (pipeline_flux_kontext.py's torch.cat): twice the tokens, more than twice the work (attention).
  const DiffusionWork dev = work(image("flux-dev", 1024)),
                      kontext = work(image("black-forest-labs/FLUX.1-Kontext-dev", 1024));
  EXPECT_DOUBLE_EQ(kontext.latent_tokens, 2 * dev.latent_tokens);
  EXPECT_GT(kontext.flops_per_pass, 2 * dev.flops_per_pass);
  EXPECT_EQ(kontext.passes, 1);
  const DiffusionWork qwen = work(image("Qwen/Qwen-Image", 1024)),
                      edit = work(image("Qwen/Qwen-Image-Edit-2509", 1024));
  EXPECT_DOUBLE_EQ(edit.latent_tokens, 2 * qwen.latent_tokens);
  EXPECT_EQ(qwen.latent_tokens, 4096);  // (1024 / 8 / 2)^2
}

TEST(CostDiffusion, SanasAutoencoderAndLinearAttentionScaleWithThePixels) {
  // DC-AE downsamples 32x at patch 1: 1024 tokens at 1024 px (FLUX: 4096). Without a quadratic
  // attention term, 4x the side is exactly 16x the work per pass.
  const DiffusionWork small = work(image("Efficient-Large-Model/Sana_1600M_1024px", 1024)),
                      large = work(image("Efficient-Large-Model/Sana_1600M_1024px", 4096));
  EXPECT_EQ(small.latent_tokens, 1024);
  EXPECT_DOUBLE_EQ(large.flops_per_pass, 16 * small.flops_per_pass);
  EXPECT_DOUBLE_EQ(small.flops_per_pass, 2 * 1.6e9 * 1024);
}

TEST(CostDiffusion, APipelineThatGuidesByASecondCallPaysTheFloorTwice) {
  // Qwen-Image's true CFG is a second transformer call (pipeline_qwenimage.py), unless the spec
  // says the passes run as one batch.
  Workload w = image("Qwen/Qwen-Image", 1024);
  w.guidance.reset();
  EXPECT_EQ(work(w).passes, 2);
  EXPECT_EQ(work(w).calls, 2);
  w.guidance_batched = true;
  EXPECT_EQ(work(w).calls, 1);
  EXPECT_EQ(work(image("sdxl", 1024)).calls, 1);
}

TEST(CostDiffusion, DistilledAndRefinerUnetsFromTheirOwnBlocks) {
  // SSD-1B and Vega drop SDXL's blocks (34 and 15 transformer blocks of SDXL's 70); the refiner
  // attends at three levels, the third (its middle, 1/8 of the latent side) counted too.
  const double sdxl = work(image("sdxl", 1024)).flops_per_pass;
  const double ssd = work(image("segmind/SSD-1B", 1024)).flops_per_pass;
  const double vega = work(image("segmind/Segmind-Vega", 1024)).flops_per_pass;
  EXPECT_LT(ssd, sdxl);
  EXPECT_LT(vega, ssd);
  const DiffusionShape* refiner =
      find_diffusion_model("stabilityai/stable-diffusion-xl-refiner-1.0");
  ASSERT_NE(refiner, nullptr);
  const double n = 128.0 * 128;  // latent positions at 1024 px
  double expected = 2 * 2.26e9 * n / 12.7;
  for (const UnetAttention& a : refiner->attention)
    expected +=
        a.blocks * 4 * (n / (a.divisor * a.divisor)) * (n / (a.divisor * a.divisor)) * a.width;
  EXPECT_EQ(refiner->attention[2].divisor, 8);
  EXPECT_NEAR(work(image("sdxl-refiner", 1024)).flops_per_pass, expected, expected * 1e-9);
}

TEST(CostDiffusion, SdOnePointFiveIsTheCitedWorkPerPass) {
  // BK-SDM (Kim et al. 2023): 339 G multiply-adds per UNet pass at 512 x 512.
  EXPECT_NEAR(work(image("sd-1.5", 512)).flops_per_pass, 678e9, 678e9 * 0.01);
}

TEST(CostDiffusion, MorePixelsMoreWorkAndAttentionGrowsFasterThanPixels) {
  const auto catalog = real_catalog();
  const GpuSpec& g = gpu(catalog, "RTX_4090");
  for (const char* model : {"sdxl", "sd-3-medium"}) {
    const DiffusionWork small = work(image(model, 512)), large = work(image(model, 1024));
    EXPECT_GT(large.flops_per_pass, 4 * small.flops_per_pass) << model;  // 4x the latent
    EXPECT_GT(seconds(image(model, 1024), g, catalog), seconds(image(model, 512), g, catalog));
  }
}

TEST(CostDiffusion, GuidanceAboveOneDoublesThePasses) {
  const auto catalog = real_catalog();
  const GpuSpec& g = gpu(catalog, "L40S");
  Workload w = image("sd-3-medium", 1024);
  w.guidance = 1;
  const double one = seconds(w, g, catalog);
  EXPECT_EQ(work(w).passes, 1);
  w.guidance = 7;
  EXPECT_EQ(work(w).passes, 2);
  EXPECT_GT(seconds(w, g, catalog), 1.8 * one);  // compute-bound: nearly twice (decode once)
}

// Guidance's two passes as one call on twice the batch (the default: diffusers, F5-TTS 1.1.6 and
// later) or as two calls in turn (F5-TTS before 1.1.6): the same work, but each call pays the
// per-call floor. One F5-TTS answer on an L40 is floor-bound, so two calls take twice as long;
// a batch of 16 is compute-bound, so the calls change nothing.
TEST(CostDiffusion, GuidanceInTurnPaysTheFloorPerCall) {
  const auto catalog = real_catalog();
  const GpuSpec& g = gpu(catalog, "L40");
  Workload w = speech(1, 10.5);
  w.precision = "fp16";
  w.batch = 1;
  auto step = [&](const Workload& x) {
    auto t = run_time(x, g, 1, catalog, default_calibration());
    EXPECT_TRUE(t.ok()) << t.error().message;
    return t.ok() ? t->step_s : 0;
  };
  EXPECT_EQ(work(w).calls, 1);  // unset: batched
  const double batched = step(w);
  EXPECT_DOUBLE_EQ(batched, diffusion_fit("flow-tts", g.memory)->t0_s);
  w.guidance_batched = false;
  EXPECT_EQ(work(w).calls, 2);
  EXPECT_EQ(work(w).passes, 2);
  EXPECT_DOUBLE_EQ(step(w), 2 * batched);
  w.guidance = 1;  // one pass: one call either way
  EXPECT_EQ(work(w).calls, 1);
  w.guidance.reset();
  w.items = 16;
  w.batch = 16;
  const double unbatched16 = step(w);
  w.guidance_batched = true;
  EXPECT_GT(unbatched16, 2 * batched);  // compute-bound
  EXPECT_DOUBLE_EQ(step(w), unbatched16);
}

TEST(CostDiffusion, MoreAudioSecondsMoreWork) {
  const auto catalog = real_catalog();
  const GpuSpec& g = gpu(catalog, "RTX_3090");
  Workload w = speech(10, 10);
  const double ten = seconds(w, g, catalog);
  const double ten_flops = work(w).flops_per_pass;
  EXPECT_NEAR(work(w).latent_tokens, 937.5, 1e-9);  // 93.75 mel frames a second
  w.audio_seconds = 20;
  EXPECT_GT(work(w).flops_per_pass, 2 * ten_flops);  // attention: more than twice
  EXPECT_GT(seconds(w, g, catalog), 1.5 * ten);      // the fixed per-step overhead does not double
  // flow-tts needs the audio's length.
  w.audio_seconds.reset();
  w.model.clear();
  w.params_b = 0.3;
  w.architecture = "flow-tts";
  auto t = run_time(w, g, 1, catalog, default_calibration());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("workload.audio_seconds"), std::string::npos);
}

TEST(CostDiffusion, TheArchitectureSetsTheWorkOfTheSameParameters) {
  // A UNet applies its parameters at lower resolutions than its latent; a DiT at every token.
  Workload w = image("", 1024);
  w.params_b = 2;
  w.architecture = "unet";
  const double unet = work(w).flops_per_pass;
  w.architecture = "dit";
  EXPECT_GT(work(w).flops_per_pass, 2 * unet);
}

// Until the card saturates: SD 1.5 on an A100 measured 21.7, 46.4 and 48.6 images a second at
// batch 1, 4 and 16 (the diffusers PyTorch 2.0 benchmark, fit rows 73-75).
TEST(CostDiffusion, BatchingRaisesImagesPerSecondUntilTheCardSaturates) {
  const auto catalog = real_catalog();
  const GpuSpec& g = gpu(catalog, "A100_80GB");
  Workload w = image("sd-1.5", 512);
  std::vector<double> per_s;
  for (long batch : {1, 4, 16}) {
    w.batch = batch;
    w.items = batch;
    auto t = run_time(w, g, 1, catalog, default_calibration());
    ASSERT_TRUE(t.ok());
    per_s.push_back(batch / t->step_s);
  }
  EXPECT_GT(per_s[1], 1.5 * per_s[0]);
  EXPECT_GE(per_s[2], per_s[1] * (1 - 1e-9));
  EXPECT_LT(per_s[2], per_s[1] * 1.2);
}

TEST(CostDiffusion, EstimateTakesTheDiffusionInputs) {
  EstimateQuery q;
  q.mode = "diffusion";
  q.model = "sdxl";
  q.items = 100;
  q.steps = 30;
  q.resolution = 1024;
  q.guidance = 5;
  q.guidance_batched = false;
  q.architecture = "unet";
  auto w = workload_from_query(q);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(*w->resolution, 1024);
  EXPECT_DOUBLE_EQ(*w->guidance, 5);
  EXPECT_EQ(w->guidance_batched, false);
  q.guidance_batched.reset();
  q.architecture = "gan";
  EXPECT_EQ(workload_from_query(q).error().message,
            "--arch: \"gan\" is not one of unet, dit, flow-tts");
  q.architecture.clear();
  q.mode = "infer";
  EXPECT_EQ(workload_from_query(q).error().message,
            "--arch, --resolution, --frames, --audio-seconds, --guidance, --guidance-batched, "
            "--attention-kernel, --sequence-parallel, --cfg-parallel and --offload only apply to "
            "--mode diffusion");
}

TEST(CostDiffusion, TheSpecTakesTheDiffusionInputs) {
  const std::string head =
      "name: x\nrun: echo hi\nresources:\n  providers: [local]\nworkload:\n"
      "  kind: diffusion\n  params_b: 2.6\n  items: 10\n";
  std::vector<SpecError> errors;
  auto spec = parse_spec(head + "  architecture: unet\n  resolution: 1024\n  guidance: 7.5\n",
                         "p.yaml", &errors, {"local"});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->workload.architecture, "unet");
  EXPECT_EQ(spec->workload.resolution, 1024);
  EXPECT_EQ(spec->workload.guidance, 7.5);
  EXPECT_FALSE(spec->workload.guidance_batched.has_value());
  spec = parse_spec(head + "  audio_seconds: 12.5\n  guidance_batched: false\n", "p.yaml", &errors,
                    {"local"});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->workload.audio_seconds, 12.5);
  EXPECT_EQ(spec->workload.guidance_batched, false);
  spec = parse_spec(head + "  guidance_batched: twice\n", "p.yaml", &errors, {"local"});
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().message.find("p.yaml:9:21: workload.guidance_batched"), std::string::npos)
      << spec.error().message;
  spec = parse_spec(head + "  architecture: gan\n", "p.yaml", &errors, {"local"});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message,
            "p.yaml:9:17: workload.architecture: must be one of unet, dit, flow-tts; got \"gan\"");
}

TEST(CostDiffusion, TheSeedsTtsRenderOnAnRtx5090) {
  // The case burst exists for: a 0.5B diffusion TTS voicing 300 answers, about 20 minutes and
  // $0.40 on an RTX 5090 as the seed tells it. The example models it as a flow-matching TTS
  // (F5-TTS's design) in bf16 at 40 s an answer, 32 steps with guidance, batch 8: at the
  // published-MFU efficiency, 17.4 minutes of compute, compute-bound (870 ms a step, far above
  // the per-step overhead's floor; 37 batches of 8 and one of 4): 13% under the seed's 20
  // (docs/cost-model.md, "The example").
  TempDir dir;
  std::ifstream f(std::string(BURST_SOURCE_DIR) + "/examples/tts-render.yaml");
  std::stringstream text;
  text << f.rdbuf();
  std::filesystem::create_directory(dir.path() + "/tts-render");
  dir.write("tts-render.yaml", text.str());
  std::vector<SpecError> errors;
  auto spec = load_spec_file(dir.path() + "/tts-render.yaml", &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? "" : errors[0].text);
  const auto catalog = real_catalog();
  const GpuSpec& g = gpu(catalog, "RTX_5090");
  auto t = run_time(spec->workload, g, 1, catalog, default_calibration());
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->bound, "compute");
  EXPECT_NEAR(t->compute_s / 60, 17.4, 0.1);
}

// PyTorch runs fp16 with FP32 accumulation (pytorch/pytorch#123157), so fp16 diffusion on a
// GeForce card runs at the catalog's FP32-accumulate rate, as bf16 does; a datacenter card runs
// both at one rate anyway.
TEST(CostDiffusion, Fp16OnGeForceRunsAtTheFp32AccumulateRate) {
  const auto catalog = real_catalog();
  auto compute = [&](const std::string& card, const std::string& precision) {
    Workload w = image("sd-3-medium", 1024);  // a DiT: its step is its compute
    w.precision = precision;
    auto t = run_time(w, gpu(catalog, card), 1, catalog, default_calibration());
    EXPECT_TRUE(t.ok());
    EXPECT_EQ(t->bound, "compute");
    return t->step_s;
  };
  EXPECT_NEAR(compute("RTX_4090", "bf16") / compute("RTX_4090", "fp16"), 1, 1e-9);
  EXPECT_NEAR(compute("A100_80GB", "bf16") / compute("A100_80GB", "fp16"), 1, 1e-9);
}

// PyTorch keeps TF32 off for fp32 matmuls, so an fp32 model computes on the CUDA cores: the RTX
// 3090 at 35.6 TFLOPS, half its 71 FP16 tensor (FP32-accumulate) rate (cost/fp32_rate.cpp). F5-TTS
// in fp32, as its paper's code ran, at 16 NFE on 10 s of speech: the paper's RTF 0.15 (Table 1).
// A card with no listed FP32 rate keeps its tensor rate.
TEST(CostDiffusion, Fp32ComputesAtTheCardsFp32RateNotItsTensorRate) {
  const auto catalog = real_catalog();
  auto tts = [&](const std::string& precision) {
    Workload w = speech(1, 10);
    w.precision = precision;
    w.steps = 16;
    auto t = run_time(w, gpu(catalog, "RTX_3090"), 1, catalog, default_calibration());
    EXPECT_TRUE(t.ok());
    EXPECT_EQ(t->bound, "compute");
    return *t;
  };
  EXPECT_NEAR(tts("fp32").step_s / tts("fp16").step_s, 71 / 35.6, 1e-6);
  EXPECT_NEAR(tts("fp32").compute_s / 10, 0.15, 0.015);
  auto image_step = [&](const std::string& card, const std::string& precision) {
    Workload w = image("sd-3-medium", 1024);  // a DiT: its step is its compute
    w.precision = precision;
    auto t = run_time(w, gpu(catalog, card), 1, catalog, default_calibration());
    EXPECT_TRUE(t.ok());
    EXPECT_EQ(t->bound, "compute");
    return t->step_s;
  };
  EXPECT_NEAR(image_step("RTX_5090", "fp32") / image_step("RTX_5090", "fp16"), 1, 1e-9);
  EXPECT_NEAR(image_step("A100_80GB", "fp32") / image_step("A100_80GB", "fp16"), 312 / 19.5, 1e-6);
}

// The per-call host overhead is a floor the batch amortises: SD 1.5 at batch 1 takes the UNet's
// t0 on an A100; past the point where the step's activation traffic exceeds it, the images per
// second stop rising (the diffusers benchmark: 3.04 it/s at batch 16, 48.6 images a second, about
// what batch 4 gives). The A100's tensor rate would allow twice that: the UNet's activation roof
// binds first (cost_internal.h, kUnetActivationBytesPerPosition).
TEST(CostDiffusion, BatchingAmortisesTheStepOverheadThenSaturates) {
  const auto catalog = real_catalog();
  const GpuSpec& g = gpu(catalog, "A100_80GB");
  auto step = [&](long batch) {
    Workload w = image("sd-1.5", 512);
    w.batch = batch;
    w.items = batch;
    auto t = run_time(w, g, 1, catalog, default_calibration());
    EXPECT_TRUE(t.ok());
    return t.ok() ? t->step_s : 0;
  };
  EXPECT_DOUBLE_EQ(step(1), diffusion_fit("unet", g.memory)->t0_s);
  EXPECT_NEAR(32 / step(32), 16 / step(16), 1e-9 * 16 / step(16));
  EXPECT_NEAR(16 / step(16), 48.6, 0.15 * 48.6);
  // What bounds the step is named: the host's floor at batch 1, the memory traffic at 32.
  auto bound = [&](long batch) {
    Workload w = image("sd-1.5", 512);
    w.batch = batch;
    w.items = batch;
    auto t = run_time(w, g, 1, catalog, default_calibration());
    return t.ok() ? t->bound : t.error().message;
  };
  EXPECT_EQ(bound(1), "overhead");
  EXPECT_EQ(bound(32), "bandwidth");
}

// An image DiT is priced as a video denoiser (bench/README.md, "An image DiT priced as a video
// DiT"): FLUX.1-dev at 1024 px on an A100 computes at the video fit's efficiency, and on an H100
// its self-attention runs at FlashAttention 2's share there, as a video denoiser's does.
TEST(CostDiffusion, AnImageDitIsPricedAtTheVideoFitsEfficiency) {
  const auto catalog = real_catalog();
  Workload w = image("flux-dev", 1024);
  w.batch = 1;
  w.items = 1;
  auto a100 = run_time(w, gpu(catalog, "A100_80GB"), 1, catalog, default_calibration());
  ASSERT_TRUE(a100.ok()) << a100.error().message;
  const DiffusionWork d = work(w);
  const double eta = diffusion_fit("video", "hbm")->eta_compute;
  EXPECT_EQ(a100->bound, "compute");
  EXPECT_NEAR(a100->step_s, d.flops_per_pass * d.passes / (312e12 * eta), 1e-9);
  auto h100 = [&](const std::string& kernel) {
    Workload k = w;
    k.attention_kernel = kernel;
    auto t = run_time(k, gpu(catalog, "H100_SXM"), 1, catalog, default_calibration());
    EXPECT_TRUE(t.ok());
    return t.ok() ? t->step_s : 0;
  };
  EXPECT_GT(h100("fa2"), h100("fa3"));
  EXPECT_NEAR(h100("fa2") - h100("fa3"),
              d.attention_flops_per_pass * d.passes * (0.73 / 0.35 - 1) / (989e12 * eta), 1e-9);
}

// The roof is a UNet's: a DiT of the same parameters at the same latent keeps its compute bound.
TEST(CostDiffusion, TheActivationRoofIsAUnetsAlone) {
  const auto catalog = real_catalog();
  const GpuSpec& g = gpu(catalog, "A100_80GB");
  Workload w = image("", 512);
  w.params_b = 0.86;
  w.batch = 32;
  w.items = 32;
  w.architecture = "unet";
  auto unet = run_time(w, g, 1, catalog, default_calibration());
  w.architecture = "dit";
  auto dit = run_time(w, g, 1, catalog, default_calibration());
  ASSERT_TRUE(unet.ok() && dit.ok());
  EXPECT_EQ(unet->bound, "bandwidth");
  EXPECT_EQ(dit->bound, "compute");
}

// A card whose L2 is 64 MB or more takes no activation roof (cost/l2_cache.h): SD 1.5 at batch 16
// on an RTX 4090 runs at its tensor rate, about the 3.17 it/s the diffusers benchmark measured and
// level with the A100 (3.04), which keeps its roof. The same card under a name with no listed L2
// keeps the roof, and is priced at about half that.
TEST(CostDiffusion, ACardWithALargeL2RunsAUnetPastTheActivationRoof) {
  const auto catalog = real_catalog();
  auto step = [&](const GpuSpec& g) {
    Workload w = image("sd-1.5", 512);
    w.steps = 50;
    w.batch = 16;
    w.items = 16;
    auto t = run_time(w, g, 1, catalog, default_calibration());
    EXPECT_TRUE(t.ok()) << t.error().message;
    return t.ok() ? std::make_pair(t->step_s, t->bound) : std::make_pair(0.0, std::string());
  };
  const GpuSpec& rtx4090 = gpu(catalog, "RTX_4090");
  const auto [s4090, b4090] = step(rtx4090);
  EXPECT_EQ(b4090, "compute");
  EXPECT_NEAR(1 / s4090, 3.17, 0.15 * 3.17);
  const auto [s100, b100] = step(gpu(catalog, "A100_80GB"));
  EXPECT_EQ(b100, "bandwidth");
  EXPECT_NEAR(s4090 / s100, 1.0, 0.15);
  GpuSpec unlisted = rtx4090;
  unlisted.name = "RTX_4090_UNLISTED";
  const auto [s_unlisted, b_unlisted] = step(unlisted);
  EXPECT_EQ(b_unlisted, "bandwidth");
  EXPECT_GT(s_unlisted, 1.7 * s4090);
}

// A power-capped card holds a fraction of its listed tensor rate under continuous work: the T4
// (70 W) about 24 of its 65 TFLOPS (NVIDIA's forum, cost/sustained_rate.cpp). The same card
// under another name (no sustained figure) holds the datasheet rate.
TEST(CostDiffusion, APowerCappedT4SustainsAFractionOfItsListedRate) {
  const auto catalog = real_catalog();
  GpuSpec listed = gpu(catalog, "T4");
  listed.name = "T4_at_its_boost_clock";
  Workload w = image("pixart-sigma", 1024);  // a DiT that fits the card: its step is its compute
  auto capped = run_time(w, gpu(catalog, "T4"), 1, catalog, default_calibration());
  auto boost = run_time(w, listed, 1, catalog, default_calibration());
  ASSERT_TRUE(capped.ok() && boost.ok());
  EXPECT_EQ(capped->bound, "compute");
  EXPECT_NEAR(capped->step_s / boost->step_s, 65.0 / 24.0, 1e-6);
}

}  // namespace
}  // namespace burst
