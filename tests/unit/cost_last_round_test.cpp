// A diffusion job's last batch is priced at the items it holds (run_time,
// src/cost/last_round.cpp): 12 images at batch 8 cost a batch of 8 and one of 4, not two of 8.
// A batching engine's queued rounds stay full.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/spec.h"
#include "fakes/temp_dir.h"

namespace burst {
namespace {

class CostLastRound : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = load_gpu_catalog(dir_.path());  // no gpus.yaml there: the built-in catalog
    ASSERT_TRUE(c.ok());
    catalog_ = *c;
  }
  // `w` with `field` (items, concurrency) set to `n`.
  static Workload with(Workload w, std::optional<long> Workload::*field, long n) {
    w.*field = n;
    return w;
  }
  double seconds(const Workload& w, const char* gpu, long want_rounds) {
    const GpuSpec g = *find_gpu(catalog_, gpu);
    auto t = run_time(w, g, 1, catalog_, default_calibration());
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
    if (!t.ok()) return 0;
    EXPECT_EQ(t->rounds, want_rounds);
    return t->compute_s;
  }
  TempDir dir_;
  std::vector<GpuSpec> catalog_;
};

TEST_F(CostLastRound, TwelveImagesAtBatchEightCostABatchOfEightAndOneOfFour) {
  Workload w;
  w.kind = "diffusion";
  w.model = "sdxl";
  w.steps = 30;
  w.batch = 8;
  const double twelve = seconds(with(w, &Workload::items, 12), "RTX_4090", 2);
  const double eight = seconds(with(w, &Workload::items, 8), "RTX_4090", 1);
  const double four = seconds(with(w, &Workload::items, 4), "RTX_4090", 1);  // a batch of 4
  const double sixteen = seconds(with(w, &Workload::items, 16), "RTX_4090", 2);
  EXPECT_NEAR(twelve, eight + four, 1e-9 * twelve);
  EXPECT_LT(twelve, sixteen) << "the last round of 4 was priced as a full batch of 8";
  EXPECT_GT(twelve, eight);
}

TEST_F(CostLastRound, RequestsAnEngineQueuesStayFullRounds) {
  // Llama 3 8B on an A100 80GB: vLLM started with --max-num-seqs 256 runs 320 requests as 256
  // at once, then the 64 left; the queue is priced as two full rounds (bench/README.md, "A
  // partial last round priced at the items it holds: scored, not kept").
  Workload w;
  w.kind = "llm-inference";
  w.model = "llama-3-8b";
  w.precision = "fp16";
  w.engine = "vllm";
  w.context_tokens = 512;
  w.tokens = 128;
  w.max_num_seqs = 256;
  const double asked = seconds(with(w, &Workload::concurrency, 320), "A100_80GB", 2);
  const double first = seconds(with(w, &Workload::concurrency, 256), "A100_80GB", 1);
  EXPECT_NEAR(asked, 2 * first, 1e-9 * asked);
}

}  // namespace
}  // namespace burst
