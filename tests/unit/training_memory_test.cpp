// Training memory by method (src/cost/training_memory.cpp, docs/cost-model.md "llm-training"):
// each input moves the peak the documented way, bad inputs are refused with the flag or field
// named, and the plan refuses a card the training peak does not fit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "fakes/temp_dir.h"
#include "plan/candidates.h"
#include "plan/estimate.h"
#include "registry.h"

namespace burst {
namespace {

Workload llama3_8b(const std::string& mode) {
  Workload w;
  w.kind = "llm-training";
  w.mode = mode;
  w.model = "llama-3-8b";
  w.tokens = 1'000'000;
  w.batch = 2;
  w.context_tokens = 2048;
  return w;
}

double peak(const Workload& w) {
  auto m = memory_need(w);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return m.ok() ? m->total_gib() : 0;
}

TEST(CostTrainingMemory, CheckpointingLowersThePeak) {
  for (const char* mode : {"full", "lora", "qlora"}) {
    Workload on = llama3_8b(mode), off = llama3_8b(mode);
    on.gradient_checkpointing = true;
    off.gradient_checkpointing = false;
    EXPECT_LT(peak(on), peak(off)) << mode;
  }
  // LoRA and QLoRA checkpoint by default, a full fine-tune does not.
  Workload lora = llama3_8b("lora"), lora_on = lora;
  lora_on.gradient_checkpointing = true;
  EXPECT_DOUBLE_EQ(peak(lora), peak(lora_on));
  Workload full = llama3_8b("full"), full_off = full;
  full_off.gradient_checkpointing = false;
  EXPECT_DOUBLE_EQ(peak(full), peak(full_off));
}

TEST(CostTrainingMemory, AHigherRankRaisesThePeak) {
  for (const char* mode : {"lora", "qlora"}) {
    double last = 0;
    for (long rank : {4L, 16L, 64L, 256L}) {
      Workload w = llama3_8b(mode);
      w.lora_rank = rank;
      EXPECT_GT(peak(w), last) << mode << " r=" << rank;
      last = peak(w);
    }
  }
}

TEST(CostTrainingMemory, FewerAdaptedProjectionsLowerThePeak) {
  Workload all = llama3_8b("lora"), qv = all;
  qv.lora_targets = {"q", "v"};
  EXPECT_LT(peak(qv), peak(all));
  auto a = memory_need(all), b = memory_need(qv);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_LT(b->optimizer_gib, a->optimizer_gib);  // fewer adapters, less AdamW state
}

TEST(CostTrainingMemory, QloraBelowLoraBelowFull) {
  for (const char* model : {"llama-3-8b", "llama-2-13b", "qwen2.5-0.5b"}) {
    Workload q = llama3_8b("qlora"), l = llama3_8b("lora"), f = llama3_8b("full");
    q.model = l.model = f.model = model;
    EXPECT_LT(peak(q), peak(l)) << model;
    EXPECT_LT(peak(l), peak(f)) << model;
  }
}

TEST(CostTrainingMemory, LongerSequencesAndBiggerMicroBatchesRaiseThePeak) {
  Workload w = llama3_8b("lora");
  const double base = peak(w);
  Workload longer = w, wider = w;
  longer.context_tokens = 4096;
  wider.batch = 4;
  EXPECT_GT(peak(longer), base);
  EXPECT_GT(peak(wider), base);
}

// QLoRA's base: NF4 with double quantization (0.516 B/param) for the decoder's matrices, the
// embeddings and head at fp32 as PEFT's prepare_model_for_kbit_training leaves them, and one
// layer's weights dequantized to bf16 for its matrix products.
TEST(CostTrainingMemory, QloraBaseIsNf4PlusFp32EmbeddingsPlusOneDequantizedLayer) {
  Workload w = llama3_8b("qlora");
  w.lora_targets = {"q"};
  w.lora_rank = 1;
  auto m = memory_need(w);
  ASSERT_TRUE(m.ok());
  const double embeddings = 128256.0 * 4096 * 2, quantized = 8.03e9 - embeddings;
  const double adapters = 1.0 * (4096 + 4096) * 32;
  EXPECT_NEAR(m->weights_gib * 1073741824.0,
              0.516 * quantized + 4 * embeddings + 2 * quantized / 32 + 2 * adapters, 1);
}

TEST(CostTrainingMemory, BadLoraInputsAreRefused) {
  Workload w = llama3_8b("lora");
  w.lora_targets = {"q", "wq"};
  auto m = memory_need(w);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message,
            "unknown lora target \"wq\" (expected q, k, v, o, gate, up or down)");
  Workload f = llama3_8b("full");
  f.lora_rank = 8;
  ASSERT_FALSE(memory_need(f).ok());
  EXPECT_EQ(memory_need(f).error().message,
            "workload.lora_rank and lora_targets only apply to mode lora or qlora");
}

EstimateQuery train_query(const std::string& method) {
  EstimateQuery q;
  q.mode = "train";
  q.method = method;
  q.model = "llama-3-8b";
  return q;
}

TEST(CostTrainingMemory, EstimateFlagsReachTheWorkloadAndMoveThePeak) {
  EstimateQuery q = train_query("qlora");
  q.gradient_checkpointing = false;
  q.lora_rank = 64;
  q.lora_targets = {"q", "v"};
  auto w = workload_from_query(q);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->gradient_checkpointing, false);
  EXPECT_EQ(w->lora_rank, 64);
  EXPECT_EQ(w->lora_targets, (std::vector<std::string>{"q", "v"}));
  auto plain = workload_from_query(train_query("qlora"));
  ASSERT_TRUE(plain.ok());
  EXPECT_GT(peak(*w), peak(*plain));  // no checkpointing outweighs two targets
}

TEST(CostTrainingMemory, EstimateFlagsAreRefusedWhereTheyDoNotApply) {
  auto message = [](const EstimateQuery& q) {
    auto w = workload_from_query(q);
    return w.ok() ? std::string("ok") : w.error().message;
  };
  EstimateQuery infer = train_query("");
  infer.mode = "infer";
  infer.gradient_checkpointing = true;
  EXPECT_EQ(message(infer), "--gradient-checkpointing only applies to --mode train");
  EstimateQuery full = train_query("full");
  full.lora_rank = 8;
  EXPECT_EQ(message(full), "--lora-rank and --lora-targets only apply to --method lora or qlora");
  EstimateQuery bad = train_query("lora");
  bad.lora_targets = {"q", "mlp"};
  EXPECT_EQ(message(bad), "--lora-targets: \"mlp\" is not one of q, k, v, o, gate, up, down");
}

// The plan refuses one 24 GB card for a full fine-tune of Llama 3 8B (its peak is far above the
// card) and prices it for QLoRA, naming the need.
TEST(CostTrainingMemory, ThePlanRefusesACardTheTrainingPeakDoesNotFit) {
  TempDir dir;
  auto catalog = load_gpu_catalog(dir.path());
  ASSERT_TRUE(catalog.ok()) << catalog.error().message;
  const GpuSpec* g = find_gpu(*catalog, "RTX_4090");
  ASSERT_NE(g, nullptr);
  std::vector<Offer> offers{
      Offer{"runpod", "RTX_4090", 1, g->vram_gb, 0.69, std::nullopt, "", true, "test"}};
  attach_traits(&offers);
  CandidateInput in;
  in.catalog = &*catalog;
  in.calibration = default_calibration();
  PipelineSpec spec;
  spec.name = "train";
  spec.run = "true";
  spec.workload = llama3_8b("full");
  auto full = price_candidates(spec, offers, in);
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(full[0].rejected.rfind("does not fit: needs ", 0), 0u) << full[0].rejected;
  spec.workload = llama3_8b("qlora");
  auto qlora = price_candidates(spec, offers, in);
  ASSERT_EQ(qlora.size(), 1u);
  EXPECT_EQ(qlora[0].rejected, "");
}

}  // namespace
}  // namespace burst
