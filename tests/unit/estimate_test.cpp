// `burst estimate`'s arithmetic: flags to a workload, the per-GPU table, and rent vs own.
#include "plan/estimate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace burst {
namespace {

GpuSpec card(const std::string& name, double vram, double bw, double tflops, double tdp,
             std::optional<double> purchase) {
  GpuSpec g;
  g.name = name;
  g.vram_gb = vram;
  g.mem_bw_gbs = bw;
  g.fp16_tflops = tflops;
  g.tdp_w = tdp;
  g.interconnect = "pcie";
  g.purchase_usd = purchase;
  return g;
}

PriceTable prices() {
  PriceTable t;
  t.entries = {{"runpod", "BIG", 1, 2.0, std::nullopt, "any"},
               {"runpod", "BIG", 4, 8.0, std::nullopt, "any"},
               {"runpod", "SMALL", 1, 0.5, std::nullopt, "any"},
               {"vast", "SMALL", 8, 3.2, std::nullopt, "any"}};
  return t;
}

std::vector<GpuSpec> catalog() {
  return {card("BIG", 80, 2000, 400, 700, 25000), card("SMALL", 24, 1000, 80, 450, 1800),
          card("UNPRICED", 48, 800, 90, 300, std::nullopt)};
}

TEST(CostEstimate, ParsesSizesWithSuffixes) {
  EXPECT_DOUBLE_EQ(*parse_params("7B"), 7);
  EXPECT_DOUBLE_EQ(*parse_params("500m"), 0.5);
  EXPECT_DOUBLE_EQ(*parse_params("70"), 70);
  EXPECT_EQ(*parse_count("1M", "--tokens"), 1000000);
  EXPECT_EQ(*parse_count("100k", "--tokens"), 100000);
  EXPECT_EQ(*parse_count("4096", "--context"), 4096);
  EXPECT_EQ(parse_params("-7B").error().message, "--params: must be > 0 (got -7B)");
  EXPECT_EQ(parse_params("7X").error().message,
            "--params: \"7X\" is not a number like 7B, 500M, 100k or 4096");
}

TEST(CostEstimate, SevenBillionTrainingMatchesThePinnedBreakdownAndCardCounts) {
  EstimateQuery q;
  q.params_b = 7;
  q.mode = "train";
  q.precision = "bf16";
  auto r = estimate_workload(q, catalog(), prices(), default_calibration());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NEAR(r->memory.total_gib(), 126.56, 0.005);
  for (const GpuEstimate& g : r->gpus) {
    if (g.gpu == "BIG") {
      EXPECT_EQ(g.count, 2);  // 80 x 0.98 - 0.5 = 77.9 GiB each < 126.6 GiB <= 2 cards
    }
    if (g.gpu == "SMALL") {
      EXPECT_EQ(g.count, 8);
    }
    EXPECT_FALSE(g.seconds.has_value()) << "no --tokens, no time";
  }
  // No tokens: ranked by $/hour of the smallest instance with enough GPUs: 8 x SMALL at $3.20
  // beats 2 of the 4 x BIG box at $8.00 pro rata ($4.00).
  EXPECT_EQ(r->gpus[0].gpu, "SMALL");
  EXPECT_DOUBLE_EQ(*r->gpus[0].usd_per_hour, 3.2);
  EXPECT_EQ(r->gpus[0].provider, "vast");
}

// 1M tokens of a 7B fp16 model, 8 sequences at a time.
EstimateQuery seven_b_infer() {
  EstimateQuery q;
  q.params_b = 7;
  q.mode = "infer";
  q.precision = "fp16";
  q.tokens = 1'000'000;
  q.concurrency = 8;
  return q;
}

TEST(CostEstimate, InferenceTokensAreSplitAmongTheRequestsItemsNames) {
  // --tokens is the total to generate. 1M tokens over 32 requests run 8 at a time is 31,250 a
  // request in four rounds: the same decode steps as 8 sequences of 125,000, not four times them.
  EstimateQuery q = seven_b_infer();
  auto seconds_on_big = [&]() {
    auto r = estimate_workload(q, catalog(), prices(), default_calibration());
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (!r.ok()) return 0.0;
    for (const GpuEstimate& g : r->gpus)
      if (g.gpu == "BIG" && g.seconds) return *g.seconds;
    ADD_FAILURE() << "no estimate on BIG";
    return 0.0;
  };
  const double eight = seconds_on_big();
  EXPECT_EQ(workload_from_query(q)->tokens, 125'000);
  q.items = 32;
  EXPECT_EQ(workload_from_query(q)->tokens, 31'250);
  EXPECT_NEAR(seconds_on_big(), eight, 1e-9 * eight);
}

TEST(CostEstimate, InferenceRentVersusOwnAndBreakEven) {
  const EstimateQuery q = seven_b_infer();
  auto r = estimate_workload(q, catalog(), prices(), default_calibration());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const GpuEstimate* big = nullptr;
  for (const GpuEstimate& g : r->gpus)
    if (g.gpu == "BIG") big = &g;
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->count, 1);
  EXPECT_EQ(big->bound, "bandwidth");
  ASSERT_TRUE(big->seconds && big->rent_usd_per_mtok && big->own_usd_per_mtok);
  EXPECT_NEAR(*big->seconds * big->tokens_per_s, 1'000'000, 8);  // 125,000 steps x 8 tokens
  const double mtok_per_hour = big->tokens_per_s * 3600 / 1e6;
  EXPECT_NEAR(*big->rent_usd_per_mtok, 2.0 / mtok_per_hour, 1e-9);
  const double capex_h = 25000 / (3 * 8760.0);
  const double power_h = 0.7 * 0.15;
  EXPECT_NEAR(*big->own_usd_per_mtok, (capex_h + power_h) / mtok_per_hour, 1e-9);
  ASSERT_TRUE(big->breakeven_utilization.has_value());
  EXPECT_NEAR(*big->breakeven_utilization, capex_h / (2.0 - power_h), 1e-12);  // about 50%
  for (const GpuEstimate& g : r->gpus) {
    if (g.gpu == "UNPRICED") {
      EXPECT_FALSE(g.rent_usd_per_mtok || g.breakeven_utilization);
    }
  }
}

TEST(CostEstimate, DiffusionTimesItemsTimesSteps) {
  EstimateQuery q;
  q.params_b = 0.5;
  q.mode = "diffusion";
  q.items = 300;
  q.steps = 8;
  auto r = estimate_workload(q, catalog(), prices(), default_calibration());
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (const GpuEstimate& g : r->gpus) EXPECT_TRUE(g.seconds.has_value()) << g.gpu;
  EXPECT_TRUE(r->gpus[0].usd.has_value());
  EXPECT_LE(*r->gpus[0].usd, *r->gpus[1].usd);  // cheapest first
}

TEST(CostEstimate, BadFlagsAreClearErrors) {
  EstimateQuery q;
  q.params_b = 7;
  q.mode = "serve";
  EXPECT_EQ(workload_from_query(q).error().message,
            "--mode: \"serve\" is not one of train, infer, diffusion");
  q.mode = "train";
  q.precision = "fp7";
  EXPECT_EQ(workload_from_query(q).error().message,
            "--precision: unknown precision \"fp7\" (expected fp32, fp16, bf16, fp8, int8, int4, "
            "q8_0, q4_k_m or q4_0)");
  q.precision = "";
  q.method = "dpo";
  EXPECT_EQ(workload_from_query(q).error().message,
            "--method: \"dpo\" is not one of full, lora, qlora");
  q.method = "lora";
  q.mode = "infer";
  EXPECT_EQ(workload_from_query(q).error().message, "--method only applies to --mode train");
  q.method = "";
  q.gpu_memory_utilization = 0.95;
  EXPECT_EQ(workload_from_query(q).error().message,
            "--gpu-memory-utilization is the share a batching engine reserves: give --engine "
            "vllm, sglang or tensorrt-llm");
  q.engine = "vllm";
  q.gpu_memory_utilization = 1.5;
  EXPECT_EQ(workload_from_query(q).error().message, "--gpu-memory-utilization must be in (0, 1]");
  q.gpu_memory_utilization = 0.95;
  ASSERT_TRUE(workload_from_query(q).ok());
  EXPECT_EQ(workload_from_query(q)->gpu_memory_utilization, 0.95);
  q.max_num_seqs = 512;
  EXPECT_EQ(workload_from_query(q)->max_num_seqs, 512);
  q.engine = "llama.cpp";
  q.gpu_memory_utilization.reset();
  EXPECT_EQ(workload_from_query(q).error().message,
            "--max-num-seqs is a batching engine's cap on sequences at once: give --engine "
            "vllm, sglang or tensorrt-llm");
}

TEST(CostEstimate, SeventyBillionFitsNoSingleCard) {
  EstimateQuery q;
  q.params_b = 70;
  q.mode = "infer";
  auto r = estimate_workload(q, catalog(), prices(), default_calibration());
  ASSERT_TRUE(r.ok());
  for (const GpuEstimate& g : r->gpus) EXPECT_NE(g.count, 1) << g.gpu;
}

TEST(CostEstimate, ExactlyNGpusFitWhenTheirMemoryHoldsTheModel) {
  // 70B fp16 (130 GiB) on 6 SMALL cards of 24 GB (6 x 23.0 GiB usable): a measured 6-card node
  // holds it though gpus_needed would round to 8; 5 cards do not.
  EstimateQuery q;
  q.params_b = 70;
  q.mode = "infer";
  q.precision = "fp16";
  q.context_tokens = 512;
  q.tokens = 128;
  for (int n : {6, 5}) {
    q.gpus = n;
    auto r = estimate_workload(q, catalog(), prices(), default_calibration());
    ASSERT_TRUE(r.ok()) << r.error().message;
    for (const GpuEstimate& g : r->gpus)
      if (g.gpu == "SMALL") {
        EXPECT_EQ(g.count, n == 6 ? 6 : 0);
        if (n == 6) {
          EXPECT_GT(g.tokens_per_s, 0);
        }
      }
  }
}

TEST(CostEstimate, MaxConcurrencyIsNeverZeroForAModelThatFitsOneSequence) {
  // Llama 3 8B fp16 (14.96 GiB) at 8192 tokens (1.0 GiB of KV each): a million sequences fit no
  // number of cards, but one 24 GB card (23.02 GiB usable) holds 8 of them, and says so.
  EstimateQuery q;
  q.model = "llama-3-8b";
  q.mode = "infer";
  q.precision = "fp16";
  q.context_tokens = 8192;
  q.concurrency = 1000000;
  for (std::optional<int> gpus : {std::optional<int>(), std::optional<int>(1)}) {
    q.gpus = gpus;
    auto r = estimate_workload(q, catalog(), prices(), default_calibration());
    ASSERT_TRUE(r.ok()) << r.error().message;
    for (const GpuEstimate& g : r->gpus)
      if (g.gpu == "SMALL") {
        EXPECT_EQ(g.count, 0);
        EXPECT_EQ(g.max_concurrency, 8);
      }
  }
}

TEST(CostEstimate, AMixtureOfExpertsDecodesFromItsActiveParametersAndABatchReadsMoreExperts) {
  // An 80B model with 3B active a token, 512 experts of which 10 a token (Qwen3-Next's): at batch
  // 1 a token reads about 3B parameters' weights, over three times faster than the dense 80B (the
  // step's fixed overhead stays); a batch of 32
  // touches about 240 experts a layer, so its step reads more (beside the batch's KV cache).
  EstimateQuery q;
  q.params_b = 80;
  q.mode = "infer";
  q.precision = "bf16";
  q.engine = "vllm";
  q.tokens = 1000;
  auto dense = estimate_workload(q, catalog(), prices(), default_calibration());
  q.active_params_b = 3;
  auto sparse = estimate_workload(q, catalog(), prices(), default_calibration());
  ASSERT_TRUE(dense.ok() && sparse.ok());
  const GpuEstimate& d = dense->gpus.front();
  const GpuEstimate* s = nullptr;
  for (const GpuEstimate& g : sparse->gpus)
    if (g.gpu == d.gpu) s = &g;
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->count, d.count) << "every expert stays resident";
  // Beside its layers' fused-MoE floors (the next test), the step reads a third of the bytes.
  ASSERT_TRUE(s->moe_s.has_value());
  EXPECT_LT((*s->step_s - *s->moe_s) * 3, *d.step_s) << d.gpu;
  q.experts = 512;
  q.experts_per_token = 10;
  q.concurrency = 32;
  q.tokens = 32000;
  auto routed = estimate_workload(q, catalog(), prices(), default_calibration());
  q.experts.reset();
  q.experts_per_token.reset();
  auto active_only = estimate_workload(q, catalog(), prices(), default_calibration());
  ASSERT_TRUE(routed.ok() && active_only.ok());
  int compared = 0;
  for (const GpuEstimate& r : routed->gpus) {
    for (const GpuEstimate& a : active_only->gpus) {
      if (r.gpu != a.gpu || !r.step_s || !a.step_s || !r.moe_s || !a.moe_s) continue;
      EXPECT_GT(*r.step_s - *r.moe_s, (*a.step_s - *a.moe_s) * 1.3) << r.gpu;
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
  // The flags go together and need the active count to split the weights.
  q.experts = 512;
  EXPECT_EQ(estimate_workload(q, catalog(), prices(), default_calibration()).error().message,
            "--experts and --experts-per-token go together");
  q.experts_per_token = 600;
  EXPECT_EQ(estimate_workload(q, catalog(), prices(), default_calibration()).error().message,
            "--experts-per-token is more than --experts");
  q.experts_per_token = 10;
  q.active_params_b = 0;
  EXPECT_EQ(estimate_workload(q, catalog(), prices(), default_calibration()).error().message,
            "--experts needs --active-params (or --model) to tell the experts' weights from the "
            "shared ones");
  q.active_params_b = 90;
  EXPECT_EQ(estimate_workload(q, catalog(), prices(), default_calibration()).error().message,
            "--active-params is more than --params");
}

TEST(CostEstimate, EachLayerOfAMixtureOfExpertsPaysAFusedMoeCallsFixedCostADecodeStep) {
  // Kernel benchmarks put a fused-MoE layer call at a fixed 25-54 us beside its bytes (median
  // 29.7 us; bench/validation/moe_search.md): Qwen3-30B-A3B's 48 layers add 48 x 29.7 us to each
  // decode step, on one card or sharded over two; a dense model of its active size adds nothing,
  // nor does the prefill.
  EstimateQuery q;
  q.mode = "infer";
  q.model = "qwen3-30b-a3b";
  q.engine = "vllm";
  q.tokens = 100;
  q.gpus = 1;
  auto moe = estimate_workload(q, catalog(), prices(), default_calibration());
  q.gpus = 2;
  q.tensor_parallel = 2;
  auto sharded = estimate_workload(q, catalog(), prices(), default_calibration());
  q.model = "qwen3-4b";
  auto dense = estimate_workload(q, catalog(), prices(), default_calibration());
  ASSERT_TRUE(moe.ok() && sharded.ok() && dense.ok());
  int checked = 0;
  for (const auto* r : {&*moe, &*sharded}) {
    for (const GpuEstimate& g : r->gpus) {
      if (g.count == 0) continue;
      ASSERT_TRUE(g.moe_s.has_value()) << g.gpu;
      EXPECT_NEAR(*g.moe_s, 48 * 29.7e-6, 1e-12) << g.gpu;
      ++checked;
    }
  }
  EXPECT_GT(checked, 2);
  for (const GpuEstimate& g : dense->gpus) EXPECT_FALSE(g.moe_s.has_value()) << g.gpu;
  // The term is inside the step: without it the step is that much shorter.
  const std::vector<GpuSpec> cards = catalog();
  const GpuSpec& card = cards.front();
  Workload w;
  w.kind = "llm-inference";
  w.model = "qwen3-30b-a3b";
  w.engine = "vllm";
  w.tokens = 100;
  auto t = run_time(w, card, 1, cards, default_calibration());
  ASSERT_TRUE(t.ok());
  EXPECT_NEAR(t->moe_s, 48 * kMoeLayerFloorS, 1e-12);
  EXPECT_GE(t->step_s, t->moe_s + default_calibration().t0_s);
}

// A mixture of experts' estimate says what its decode step reads (`moe_read_gib`) and how much of
// it is the routed experts its tokens touch (`moe_expert_gib`, streamed at
// kMoeExpertBandwidthShare): Qwen3-30B-A3B at 16 sequences touches 82 of its 128 experts, at 1
// only its 8; a dense model reports neither.
TEST(CostEstimate, AMixtureOfExpertsSaysWhatItsDecodeStepReads) {
  EstimateQuery q;
  q.mode = "infer";
  q.model = "qwen3-30b-a3b";
  q.engine = "vllm";
  q.tokens = 100;
  q.gpus = 1;
  auto one = estimate_workload(q, catalog(), prices(), default_calibration());
  q.concurrency = 16;
  q.tokens = 1600;
  auto many = estimate_workload(q, catalog(), prices(), default_calibration());
  q.model = "qwen3-4b";
  auto dense = estimate_workload(q, catalog(), prices(), default_calibration());
  ASSERT_TRUE(one.ok() && many.ok() && dense.ok());
  int checked = 0;
  for (const GpuEstimate& a : one->gpus) {
    for (const GpuEstimate& b : many->gpus) {
      // One copy holding all 16 sequences (more copies share them; a small card's KV holds fewer).
      if (a.gpu != b.gpu || b.replicas != 1 || b.max_concurrency < 16) continue;
      ASSERT_TRUE(a.expert_gib && b.expert_gib && a.read_gib && b.read_gib) << a.gpu;
      EXPECT_GT(*a.expert_gib, 0) << a.gpu;
      EXPECT_LT(*a.expert_gib, *a.read_gib) << a.gpu;  // the shared weights and KV read too
      // 8 of 128 experts at batch 1; 128 (1 - (1 - 8/128)^16) = 82.4 at 16.
      EXPECT_NEAR(*b.expert_gib / *a.expert_gib, 128 * (1 - std::pow(1 - 8.0 / 128, 16)) / 8, 1e-6)
          << a.gpu;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 1);  // of the test catalog, BIG (80 GB) alone holds it on one card
  for (const GpuEstimate& g : dense->gpus) {
    EXPECT_FALSE(g.expert_gib.has_value()) << g.gpu;
    EXPECT_FALSE(g.read_gib.has_value()) << g.gpu;
  }
}

TEST(CostEstimate, TensorParallelPricesOneCopyOnThatManyCardsAndRefusesWhatCannotRunIt) {
  EstimateQuery q;
  q.params_b = 7;
  q.mode = "infer";
  q.precision = "fp16";
  q.engine = "vllm";
  q.tokens = 1000;
  q.tensor_parallel = 4;
  auto r = estimate_workload(q, catalog(), prices(), default_calibration());
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (const GpuEstimate& g : r->gpus) {
    EXPECT_EQ(g.count, 4) << g.gpu;  // 14 GB fits one card of each, but one copy spans four
    EXPECT_EQ(g.group, 4) << g.gpu;
    EXPECT_EQ(g.replicas, 1) << g.gpu;
  }
  q.gpus = 8;
  r = estimate_workload(q, catalog(), prices(), default_calibration());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->gpus.front().replicas, 2);
  q.gpus = 2;
  EXPECT_EQ(estimate_workload(q, catalog(), prices(), default_calibration()).error().message,
            "--gpus 2 is fewer than --tensor-parallel 4");
  q.gpus.reset();
  q.engine = "llama.cpp";
  EXPECT_EQ(estimate_workload(q, catalog(), prices(), default_calibration()).error().message,
            "--tensor-parallel: llama.cpp splits a model across cards by layers, not tensors; "
            "give --gpus instead");
  q.engine = "vllm";
  q.mode = "train";
  q.engine.clear();
  EXPECT_EQ(estimate_workload(q, catalog(), prices(), default_calibration()).error().message,
            "--tensor-parallel only applies to --mode infer");
}

TEST(CostEstimate, CardsBeyondTheLargestMachineArePricedOnlyAsAClusterOfNvlinkBoards) {
  // 405B fp16 needs 16 cards of 80 GB; each card's largest machine has 8. The NVLink board is
  // rented as two machines of a cluster; the PCIe card has no machine of 16 and no cluster.
  GpuSpec sxm = card("SXM80", 80, 2000, 400, 700, 25000);
  sxm.interconnect = "nvlink";
  GpuSpec pcie = card("PCIE80", 80, 2000, 400, 350, 25000);
  PriceTable t;
  t.entries = {{"runpod", "SXM80", 8, 16.0, std::nullopt, "any"},
               {"vast", "PCIE80", 8, 8.0, std::nullopt, "any"}};
  EstimateQuery q;
  q.params_b = 405;
  q.mode = "infer";
  q.precision = "fp16";
  q.context_tokens = 4096;
  q.tokens = 100000;
  auto r = estimate_workload(q, {pcie, sxm}, t, default_calibration());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->gpus.size(), 2u);
  // The cheaper-per-card PCIe node would rank first if it were priced; it is not.
  EXPECT_EQ(r->gpus[0].gpu, "SXM80");
  EXPECT_EQ(r->gpus[0].count, 16);
  EXPECT_EQ(r->gpus[0].machines, 2);
  ASSERT_TRUE(r->gpus[0].usd_per_hour);
  EXPECT_DOUBLE_EQ(*r->gpus[0].usd_per_hour, 32.0);
  EXPECT_EQ(r->gpus[1].gpu, "PCIE80");
  EXPECT_EQ(r->gpus[1].count, 16);
  EXPECT_FALSE(r->gpus[1].usd_per_hour);
  EXPECT_FALSE(r->gpus[1].usd);
  EXPECT_EQ(r->gpus[1].unpriced_why,
            "no machine has 16 (the largest has 8), and PCIe cards are not rented as multi-node "
            "clusters");
  EXPECT_GT(r->gpus[1].tokens_per_s, 0);  // still timed: what the cards would do
}

TEST(CostEstimate, ABatchingEngineQueuesWhatItsShareDoesNotHoldAndSaysHowManyRunAtOnce) {
  // Llama 3 8B fp16 at 4096 tokens on one 24 GiB card: vLLM's share (21.6 GiB less its 0.69 GiB
  // workspace and the 14.96 GiB of weights) holds 11 sequences, so 32 asked run 11 at a time and
  // the row is priced; llama.cpp allocates all 32 and does not fit one card (it holds 16).
  EstimateQuery q;
  q.model = "llama-3-8b";
  q.mode = "infer";
  q.precision = "fp16";
  q.context_tokens = 4096;
  q.concurrency = 32;
  q.tokens = 32 * 256;
  q.gpus = 1;
  const std::vector<GpuSpec> small{card("SMALL", 24, 1000, 80, 450, 1800)};
  for (const std::string engine : {"vllm", "llama.cpp"}) {
    q.engine = engine;
    auto r = estimate_workload(q, small, prices(), default_calibration());
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->gpus.size(), 1u);
    const GpuEstimate& e = r->gpus[0];
    if (engine == "llama.cpp") {
      EXPECT_EQ(e.count, 0);
      EXPECT_EQ(e.runs_at_once, 0);
      EXPECT_EQ(e.max_concurrency, 16);  // how many fit: never 0 for a model that fits one
      continue;
    }
    EXPECT_EQ(e.count, 1);
    EXPECT_EQ(e.runs_at_once, 11);
    EXPECT_EQ(e.max_concurrency, 11);
    ASSERT_TRUE(e.seconds && e.usd);
    EXPECT_GT(*e.usd, 0);
  }
  // No count holds a million sequences; vLLM runs on the fewest cards that hold one, and queues.
  q.gpus.reset();
  q.engine = "vllm";
  q.concurrency = 1000000;
  auto r = estimate_workload(q, small, prices(), default_calibration());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->gpus[0].count, 1);
  EXPECT_EQ(r->gpus[0].runs_at_once, 11);
}

}  // namespace
}  // namespace burst
