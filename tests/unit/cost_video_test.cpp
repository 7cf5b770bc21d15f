// Diffusion at a frame's width x height, and video denoisers (docs/cost-model.md, "Video"): a
// video's tokens are its latent frames times a frame's latent positions; the spec and
// `burst estimate` take both; a frame count where it means nothing is an error, not ignored.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/spec.h"
#include "fakes/temp_dir.h"
#include "plan/estimate.h"

namespace burst {
namespace {

Workload video_dit(long width, long height, std::optional<long> frames) {
  Workload w;
  w.kind = "diffusion";
  w.architecture = "dit";
  w.params_b = 1.3;
  w.layers = 30;
  w.hidden = 1536;
  w.items = 1;
  w.steps = 50;
  w.resolution = width;
  w.height = height;
  w.frames = frames;
  return w;
}

// `burst estimate --mode diffusion --arch dit --params 1.3B --resolution 832x480 --frames 81`.
EstimateQuery video_query() {
  EstimateQuery q;
  q.mode = "diffusion";
  q.architecture = "dit";
  q.params_b = 1.3;
  q.items = 1;
  q.resolution = 832;
  q.height = 480;
  q.frames = 81;
  return q;
}

Result<DiffusionWork> work_of(const Workload& spec_w) {
  auto w = with_model_shape(spec_w);
  if (!w) return w.error();
  return diffusion_work_of(*w, *w->params_b * 1e9);
}

TEST(CostVideo, AVideosTokensAreItsLatentFramesTimesAFramesPositions) {
  // 81 frames at 832 x 480 (Wan 2.1's default): 1 + 80 / 4 = 21 latent frames of 104 x 60
  // positions, 2 x 2 a token: 21 x 52 x 30.
  auto d = work_of(video_dit(832, 480, 81));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_DOUBLE_EQ(d->latent_tokens, 21 * 52 * 30);
  // 80 frames are cut down to 77 (1 + a multiple of 4), as the pipelines do: 20 latent frames.
  EXPECT_DOUBLE_EQ(work_of(video_dit(832, 480, 80))->latent_tokens, 20 * 52 * 30);
  // One frame is an image.
  EXPECT_DOUBLE_EQ(work_of(video_dit(832, 480, 1))->latent_tokens, 52 * 30);
  // Every frame is decoded: 81 frames of 0.4 megapixels at the VAE's cost per megapixel.
  EXPECT_NEAR(d->decode_flops, 9.2e12 * 832 * 480 / 1e6 * 81, 1e6);
}

TEST(CostVideo, EachRowsDefaultClipIsThePipelinesTokenCount) {
  // Each row at its pipeline's default size and frames, against the token count its source
  // states or its formula gives there (Mochi's README: 44520 visual tokens; Wan's seq_len).
  const struct {
    const char* model;
    double tokens;
  } rows[] = {{"wan2.1-t2v-1.3b", 21 * 30 * 52},     {"wan2.1-t2v-14b", 21 * 45 * 80},
              {"wan2.1-i2v-14b-720p", 21 * 45 * 80}, {"wan2.2-ti2v-5b", 31 * 22 * 40},
              {"wan2.2-t2v-a14b", 21 * 45 * 80},     {"hunyuanvideo", 33 * 45 * 80},
              {"cogvideox-5b", 13 * 30 * 45},        {"cogvideox1.5-5b", 11 * 48 * 85},
              {"ltx-video-2b", 21 * 16 * 22},        {"mochi-1-preview", 44520}};
  for (const auto& r : rows) {
    Workload w;
    w.kind = "diffusion";
    w.model = r.model;
    w.items = 1;
    auto d = work_of(w);
    ASSERT_TRUE(d.ok()) << r.model << ": " << d.error().message;
    EXPECT_DOUBLE_EQ(d->latent_tokens, r.tokens) << r.model;
  }
  // Releases and files of a row's transformer find it.
  for (const auto& [asked, row] : std::vector<std::pair<std::string, std::string>>{
           {"THUDM/CogVideoX-5b-I2V", "cogvideox-5b"},
           {"Wan-AI/Wan2.1-I2V-14B-480P-Diffusers", "wan2.1-i2v-14b-720p"},
           {"hunyuan_video_t2v_720p_bf16.safetensors", "hunyuanvideo"},
           {"ltx-video-2b-v0.9.1.safetensors", "ltx-video-2b"},
           {"Lightricks/LTX-Video-0.9.8-13B-distilled", "ltx-video-13b-distilled"}}) {
    const DiffusionShape* found = find_diffusion_model(asked);
    ASSERT_NE(found, nullptr) << asked;
    EXPECT_EQ(std::string(found->name), row) << asked;
  }
  // HunyuanVideo's guidance is an embedding (one pass); Wan's is a second call a step.
  Workload hy;
  hy.kind = "diffusion";
  hy.model = "hunyuanvideo";
  hy.items = 1;
  EXPECT_EQ(work_of(hy)->passes, 1);
  hy.model = "wan2.1-t2v-14b";
  EXPECT_EQ(work_of(hy)->passes, 2);
  EXPECT_EQ(work_of(hy)->calls, 2);
}

TEST(CostVideo, AVideoTokenRunsThroughItsTokenPathNotEveryParameter) {
  // HunyuanVideo's 12.82B: a video token runs each block's video stream, 12 d^2 a block over 60
  // blocks of 3072 (6.79B); the modulation and the text stream run once a step or on the text.
  Workload w;
  w.kind = "diffusion";
  w.model = "hunyuanvideo";
  w.items = 1;
  auto d = work_of(w);
  ASSERT_TRUE(d.ok());
  const double t = 33.0 * 45 * 80;
  EXPECT_NEAR(d->flops_per_pass, 2 * 6.79e9 * t + 60 * 4 * t * t * 3072, 1e9);
  // A spec that gives its own parameter count scales the token path with it.
  w.params_b = 12.82 * 2;
  EXPECT_NEAR(work_of(w)->flops_per_pass, 2 * 2 * 6.79e9 * t + 60 * 4 * t * t * 3072, 1e9);
}

TEST(CostVideo, AVideoDenoiserComputesAtItsFittedEfficiency) {
  // One frame of 832 x 480 is the same work as the image, and both are priced at eta 0.625,
  // fitted on the fit set's video rows (an image DiT is priced as a video one: bench/README.md,
  // "An image DiT priced as a video DiT"), not the MFU prior's 0.45. (On an A100, where the
  // attention kernel runs at the linear layers' share.)
  TempDir dir;
  auto catalog = load_gpu_catalog(dir.path());
  ASSERT_TRUE(catalog.ok());
  const GpuSpec* a100 = find_gpu(*catalog, "A100_80GB");
  ASSERT_NE(a100, nullptr);
  Workload video = video_dit(832, 480, 1);
  Workload image = video;
  image.frames.reset();
  ASSERT_DOUBLE_EQ(work_of(video)->flops_per_pass, work_of(image)->flops_per_pass);
  video.batch = image.batch = 16;  // compute-bound: past the per-call floor
  video.items = image.items = 16;  // a batch holds at most the items there are
  auto tv = run_time(video, *a100, 1, *catalog, default_calibration());
  auto ti = run_time(image, *a100, 1, *catalog, default_calibration());
  ASSERT_TRUE(tv.ok() && ti.ok());
  EXPECT_EQ(tv->bound, "compute");
  EXPECT_NEAR(tv->step_s / ti->step_s, 1, 1e-9);
  EXPECT_NEAR(tv->step_s,
              work_of(video)->flops_per_pass * work_of(video)->passes * 16 / (312e12 * 0.625),
              1e-9);
  EXPECT_NEAR(diffusion_fit("video", "hbm")->eta_compute, 0.625, 1e-12);
}

TEST(CostVideo, OnAHopperCardFa2sAttentionRunsAtItsShareOfTheRateAndFa3AtTheFullRate) {
  // FlashAttention 2 reaches 73% of an A100's peak and 35% of an H100's; FA3 75% of an H100's
  // (docs/cost-model.md, "Video"). So on an H100 a video's self-attention under FA2 costs
  // 0.73 / 0.35 times its FLOPs at the linear layers' rate; under FA3, or on an A100 or an H20
  // (whose listed rate is under FA2's reach), the FLOPs themselves.
  TempDir dir;
  auto catalog = load_gpu_catalog(dir.path());
  ASSERT_TRUE(catalog.ok());
  Workload fa2 = video_dit(832, 480, 81);
  Workload fa3 = fa2;
  fa3.attention_kernel = "fa3";
  auto d = work_of(fa2);
  ASSERT_TRUE(d.ok());
  const double attention = d->attention_flops_per_pass;
  EXPECT_DOUBLE_EQ(attention, 30 * 4.0 * 32760.0 * 32760.0 * 1536);
  const double linear = d->flops_per_pass - attention;
  auto step = [&](const Workload& w, const char* gpu) {
    auto t = run_time(w, *find_gpu(*catalog, gpu), 1, *catalog, default_calibration());
    EXPECT_TRUE(t.ok());
    EXPECT_EQ(t->bound, "compute") << gpu;
    return t->step_s;
  };
  for (const char* hopper : {"H100_SXM", "H100_PCIE", "H800_SXM", "H200", "GH200"})
    EXPECT_NEAR(step(fa2, hopper) / step(fa3, hopper),
                (linear + attention * 0.73 / 0.35) / (linear + attention), 1e-9)
        << hopper;
  for (const char* other : {"A100_80GB", "H20", "L40", "RTX_4090"})
    EXPECT_DOUBLE_EQ(step(fa2, other), step(fa3, other)) << other;
  // An image DiT is priced as a video one: the kernel moves it the same way.
  Workload image = fa2, image3 = fa3;
  image.frames.reset();
  image3.frames.reset();
  image.batch = image3.batch = 4;  // one image is bound by the per-call overhead, four by compute
  image.items = image3.items = 4;
  EXPECT_GT(step(image, "H100_SXM"), step(image3, "H100_SXM"));
  EXPECT_DOUBLE_EQ(step(image, "A100_80GB"), step(image3, "A100_80GB"));
}

TEST(CostVideo, TheAttentionKernelIsAnInputOfTheSpecAndOfEstimate) {
  const std::string head =
      "name: x\nrun: echo hi\nresources:\n  providers: [local]\nworkload:\n"
      "  kind: diffusion\n  params_b: 1.3\n  architecture: dit\n  items: 10\n"
      "  resolution: 832x480\n  frames: 81\n";
  std::vector<SpecError> errors;
  auto spec = parse_spec(head + "  attention_kernel: fa3\n", "p.yaml", &errors, {"local"});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->workload.attention_kernel, "fa3");
  spec = parse_spec(head, "p.yaml", &errors, {"local"});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->workload.attention_kernel, "");
  spec = parse_spec(head + "  attention_kernel: sage\n", "p.yaml", &errors, {"local"});
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().message.find("p.yaml:12:21: workload.attention_kernel"), std::string::npos)
      << spec.error().message;
  EXPECT_NE(spec.error().message.find("fa2, fa3"), std::string::npos) << spec.error().message;

  EstimateQuery q = video_query();
  q.attention_kernel = "fa3";
  auto w = workload_from_query(q);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->attention_kernel, "fa3");
  q.attention_kernel = "fa4";
  EXPECT_EQ(workload_from_query(q).error().message,
            "--attention-kernel: \"fa4\" is not one of fa2, fa3");
  q.attention_kernel = "fa3";
  q.mode = "infer";
  q.architecture.clear();
  q.resolution.reset();
  q.height.reset();
  q.frames.reset();
  EXPECT_NE(workload_from_query(q).error().message.find(
                "--sequence-parallel, --cfg-parallel and --offload only apply to --mode diffusion"),
            std::string::npos);
}

TEST(CostVideo, AttentionMakesLongerVideosCostMoreThanTheirFrames) {
  auto short_clip = work_of(video_dit(832, 480, 41));  // 11 latent frames
  auto long_clip = work_of(video_dit(832, 480, 81));   // 21
  ASSERT_TRUE(short_clip.ok() && long_clip.ok());
  const double tokens = long_clip->latent_tokens / short_clip->latent_tokens;
  EXPECT_DOUBLE_EQ(tokens, 21.0 / 11.0);
  EXPECT_GT(long_clip->flops_per_pass / short_clip->flops_per_pass, tokens * 1.3);
}

TEST(CostVideo, AWidthByHeightImageIsItsPixelsNotASquare) {
  Workload w;
  w.kind = "diffusion";
  w.model = "sdxl";
  w.items = 1;
  w.resolution = 1024;
  w.height = 768;
  auto wide = work_of(w);
  ASSERT_TRUE(wide.ok()) << wide.error().message;
  EXPECT_DOUBLE_EQ(wide->latent_tokens, 128 * 96);
  w.height.reset();
  auto square = work_of(w);
  EXPECT_DOUBLE_EQ(square->latent_tokens, 128 * 128);
  EXPECT_LT(wide->flops_per_pass, square->flops_per_pass);
  EXPECT_NEAR(wide->decode_flops / square->decode_flops, 0.75, 1e-12);
}

TEST(CostVideo, FramesWhereTheyMeanNothingAreAnErrorNotIgnored) {
  Workload w = video_dit(1024, 1024, 9);
  w.model = "sdxl";
  w.architecture.clear();
  w.params_b.reset();
  EXPECT_EQ(work_of(w).error().message,
            "workload.frames: \"sdxl\" is an image or audio denoiser; frames are for a video one");
  w = video_dit(1024, 1024, 9);
  w.architecture = "unet";
  EXPECT_EQ(work_of(w).error().message, "workload.frames: a video denoiser is a dit, not unet");
  w = video_dit(1024, 1024, 9);
  w.resolution.reset();
  w.height.reset();
  EXPECT_EQ(work_of(w).error().message,
            "workload.frames needs workload.resolution (a frame's width x height)");
}

TEST(CostVideo, EstimateTakesWidthByHeightAndFrames) {
  EstimateQuery q = video_query();
  auto w = workload_from_query(q);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->resolution, 832);
  EXPECT_EQ(w->height, 480);
  EXPECT_EQ(w->frames, 81);
  q.mode = "infer";
  EXPECT_FALSE(workload_from_query(q).ok());
  EXPECT_EQ(parse_image_size("1280x720")->height, 720);
  EXPECT_EQ(parse_image_size("1280X720")->width, 1280);
  EXPECT_FALSE(parse_image_size("1024")->height.has_value());
  for (const char* bad : {"1280x", "x720", "1280x720x3", "4", "1280x99999", "-8", "wide", ""})
    EXPECT_EQ(parse_image_size(bad).error().message,
              std::string("expected a side in pixels (1024) or width x height (1280x720), each "
                          "from 8 to 65536, got \"") +
                  bad + "\"")
        << bad;
}

TEST(CostVideo, TheSpecTakesWidthByHeightAndFramesAtTheirLine) {
  const std::string head =
      "name: x\nrun: echo hi\nresources:\n  providers: [local]\nworkload:\n"
      "  kind: diffusion\n  params_b: 1.3\n  architecture: dit\n  items: 10\n";
  std::vector<SpecError> errors;
  auto spec =
      parse_spec(head + "  resolution: 1280x720\n  frames: 81\n", "p.yaml", &errors, {"local"});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->workload.resolution, 1280);
  EXPECT_EQ(spec->workload.height, 720);
  EXPECT_EQ(spec->workload.frames, 81);
  spec = parse_spec(head + "  resolution: 1024\n", "p.yaml", &errors, {"local"});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->workload.resolution, 1024);
  EXPECT_FALSE(spec->workload.height.has_value());
  spec = parse_spec(head + "  resolution: 1280x\n", "p.yaml", &errors, {"local"});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message,
            "p.yaml:10:15: workload.resolution: expected a side in pixels (1024) or width x "
            "height (1280x720), each from 8 to 65536, got \"1280x\"");
  spec = parse_spec(head + "  resolution: 1024\n  frames: 0\n", "p.yaml", &errors, {"local"});
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().message.find("p.yaml:11:11: workload.frames"), std::string::npos)
      << spec.error().message;
}

}  // namespace
}  // namespace burst
