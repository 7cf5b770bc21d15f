// Offload's transfer time (docs/cost-model.md, "Offload's transfer time"): sequential offload
// copies the denoiser to the card for every call, model offload each component once a round, and
// the estimate grows in that order; nothing moves without an offload.
#include <gtest/gtest.h>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "cost/cost_internal.h"
#include "fakes/temp_dir.h"

namespace burst {
namespace {

constexpr double kOffloadTestGib = 1024.0 * 1024 * 1024;

Workload video(const char* offload, long items = 1) {
  Workload w;
  w.kind = "diffusion";
  w.model = "cogvideox-5b";
  w.resolution = 720;
  w.height = 480;
  w.frames = 49;
  w.steps = 50;
  w.items = items;
  w.offload = offload;
  return *with_model_shape(w);
}

TEST(CostOffloadTime, SequentialCopiesTheDenoiserEveryCallModelEachComponentOnceARound) {
  TempDir dir;
  auto catalog = load_gpu_catalog(dir.path());
  ASSERT_TRUE(catalog.ok());
  const GpuSpec* a100 = find_gpu(*catalog, "A100_80GB");
  auto none = run_time(video(""), *a100, 1, *catalog, default_calibration());
  auto model = run_time(video("model"), *a100, 1, *catalog, default_calibration());
  auto seq = run_time(video("sequential"), *a100, 1, *catalog, default_calibration());
  ASSERT_TRUE(none.ok() && model.ok() && seq.ok());
  auto params = cost::param_count(video(""));
  ASSERT_TRUE(params.ok());
  auto parts = diffusion_memory_parts(video(""), *params, 2);
  ASSERT_TRUE(parts.ok());
  const double s_per_gib = kOffloadTestGib / cost::kOffloadHostToDeviceBps;
  const double others = (parts->encoders_gib + parts->vae_gib) * s_per_gib;
  const double denoiser = parts->denoiser_gib * s_per_gib;
  ASSERT_GT(denoiser, 0);
  EXPECT_EQ(none->offload_s, 0);
  // Model offload: the denoising steps are as without it; the round pays one copy of each part.
  EXPECT_DOUBLE_EQ(model->step_s, none->step_s);
  EXPECT_NEAR(model->compute_s - none->compute_s, denoiser + others, 1e-9);
  EXPECT_NEAR(model->offload_s, denoiser + others, 1e-9);
  // Sequential: every step's call brings the denoiser again; the encoders and VAE once a round.
  EXPECT_NEAR(seq->step_s - none->step_s, denoiser, 1e-9);
  EXPECT_NEAR(seq->compute_s - none->compute_s, 50 * denoiser + others, 1e-6);
  EXPECT_LT(none->compute_s, model->compute_s);
  EXPECT_LT(model->compute_s, seq->compute_s);
  // Two rounds copy twice as much.
  auto two = run_time(video("model", 2), *a100, 1, *catalog, default_calibration());
  ASSERT_TRUE(two.ok());
  EXPECT_NEAR(two->offload_s, 2 * model->offload_s, 1e-9);
}

TEST(CostOffloadTime, AnAlternatingDenoiserCopiesEveryExpertUnderModelOffload) {
  // Wan 2.2 A14B alternates two 14B experts: model offload brings each once a round, sequential
  // one expert's weights a call.
  Workload w;
  w.kind = "diffusion";
  w.model = "wan2.2-t2v-a14b";
  w.items = 1;
  w.offload = "model";
  w = *with_model_shape(w);
  auto params = cost::param_count(w);
  ASSERT_TRUE(params.ok());
  auto parts = diffusion_memory_parts(w, *params, 2);
  ASSERT_TRUE(parts.ok());
  ASSERT_EQ(parts->experts, 2);
  const double s_per_gib = kOffloadTestGib / cost::kOffloadHostToDeviceBps;
  const cost::OffloadCopies model = cost::offload_copies(w, *params);
  EXPECT_NEAR(model.per_round_s,
              (2 * parts->denoiser_gib + parts->encoders_gib + parts->vae_gib) * s_per_gib, 1e-9);
  EXPECT_EQ(model.per_call_s, 0);
  w.offload = "sequential";
  EXPECT_NEAR(cost::offload_copies(w, *params).per_call_s, parts->denoiser_gib * s_per_gib, 1e-9);
  w.offload = "none";
  EXPECT_EQ(cost::offload_copies(w, *params).per_round_s, 0);
}

}  // namespace
}  // namespace burst
