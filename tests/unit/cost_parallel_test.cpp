// Multi-GPU from physics: the layout an offer's cards take (replicas for a model that fits one
// card, the smallest tensor-parallel group otherwise, across nodes above 8), and the collectives'
// cost from the interconnect's bandwidth and latency (docs/cost-model.md, "Multi-GPU").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "plan/planner.h"
#include "registry.h"

namespace burst {
namespace {

GpuSpec tp_card(const std::string& name, const std::string& link, double link_gbs) {
  GpuSpec g;
  g.name = name;
  g.vram_gb = 80;
  g.mem_bw_gbs = 3350;
  g.fp16_tflops = 989;
  g.interconnect = link;
  g.interconnect_gbs = link_gbs;
  return g;
}

Workload tp_llm(double params_b) {
  Workload w;
  w.kind = "llm-inference";
  w.params_b = params_b;
  w.precision = "fp16";
  w.tokens = 256;
  w.layers = 80;
  w.hidden = 8192;
  return w;
}

TEST(CostParallel, AllReduceTimeIsLatencyPlusRingVolumeOverTheLink) {
  // NVLink 900 GB/s both ways: 450 one way at 80% = 360 GB/s; a ring moves 2 (n-1)/n of it.
  EXPECT_NEAR(allreduce_seconds(tp_card("h", "nvlink", 900), 4, 1e9), 10e-6 + 1.5e9 / 360e9, 1e-12);
  // PCIe 4.0 x16: 64 both ways, 25.6 GB/s effective, and the slower per-call latency.
  EXPECT_NEAR(allreduce_seconds(tp_card("p", "pcie", 64), 4, 1e9), 45e-6 + 1.5e9 / 25.6e9, 1e-12);
  // Infinity Fabric has NVLink's per-call latency, but RCCL moves 40% of its one-way rate (an
  // 8 MiB all-reduce on 8 x MI300X measured 91.10 us: 91.9 us here).
  EXPECT_NEAR(allreduce_seconds(tp_card("m", "infinity-fabric", 896), 8, 1e9),
              10e-6 + 1.75e9 / (448e9 * 0.4), 1e-12);
  EXPECT_NEAR(allreduce_seconds(tp_card("m", "infinity-fabric", 896), 8, 8388608), 91.10e-6, 1e-6);
  // Across nodes the network caps the link (50 GB/s per GPU) and the latency is the slow one.
  EXPECT_NEAR(allreduce_seconds(tp_card("h", "nvlink", 900), 16, 1e9),
              45e-6 + 1.875e9 / (50e9 * 0.8), 1e-12);
  EXPECT_EQ(allreduce_seconds(tp_card("h", "nvlink", 900), 1, 1e9), 0);
}

TEST(CostParallel, AModelThatFitsOneCardRunsAsReplicasNeverTensorParallel) {
  const GpuSpec h = tp_card("H", "nvlink", 900);
  Workload w = tp_llm(7);
  w.layers.reset();
  w.hidden.reset();
  w.concurrency = 8;
  w.items = 64;
  auto eight = run_time(w, h, 8, {h}, default_calibration());
  ASSERT_TRUE(eight.ok()) << eight.error().message;
  EXPECT_EQ(eight->layout.group, 1);
  EXPECT_EQ(eight->layout.replicas, 8);
  EXPECT_EQ(eight->comm_s, 0);
  EXPECT_EQ(eight->batch, 64);  // 8 replicas x 8 sequences side by side
  // Each replica takes one round of 8: the time of one card doing 8 items.
  w.items = 8;
  auto one = run_time(w, h, 1, {h}, default_calibration());
  ASSERT_TRUE(one.ok());
  EXPECT_NEAR(eight->compute_s, one->compute_s, 1e-9);
}

TEST(CostParallel, TensorParallelCostComesFromTheInterconnect) {
  const GpuSpec nv = tp_card("NV", "nvlink", 900), pc = tp_card("PC", "pcie", 64);
  const Workload w = tp_llm(70);  // 140 GB of fp16 weights: two 80 GB cards at the least
  auto a = run_time(w, nv, 4, {nv, pc}, default_calibration());
  auto b = run_time(w, pc, 4, {nv, pc}, default_calibration());
  ASSERT_TRUE(a.ok() && b.ok()) << a.error().message;
  // One sequence: splitting 4 ways beats 2-way with an idle replica, on either link.
  EXPECT_EQ(a->layout.group, 4);
  EXPECT_EQ(b->layout.group, 4);
  // Two all-reduces of 8192 x 2 bytes per layer, 80 layers, per token.
  EXPECT_NEAR(a->comm_s, 160 * (10e-6 + 1.5 * 16384 / 360e9), 1e-12);
  EXPECT_NEAR(b->comm_s, 160 * (45e-6 + 1.5 * 16384 / 25.6e9), 1e-12);
  EXPECT_NEAR(b->step_s - a->step_s, b->comm_s - a->comm_s, 1e-12);
}

TEST(CostParallel, LlamaCppSplitsByLayersSoDecodeRunsAtOneCardsBandwidth) {
  // llama.cpp's default --split-mode layer: a token passes the cards in turn. One llama.cpp
  // process spreads 70B fp16 over all 4 PCIe cards it sees, reads all 140 GB at one card's
  // bandwidth, and pays a hop of 8192 x 2 bytes at each of the 3 boundaries.
  const GpuSpec pc = tp_card("PC", "pcie", 64);
  Workload w = tp_llm(70);
  w.engine = "llama.cpp";
  auto split = run_time(w, pc, 4, {pc}, default_calibration());
  ASSERT_TRUE(split.ok()) << split.error().message;
  EXPECT_EQ(split->layout.group, 4);
  EXPECT_NEAR(split->comm_s, 3 * (45e-6 + 16384 / 25.6e9), 1e-12);
  const Calibration cal = effective_calibration(w, pc, default_calibration());
  const double weights = 70e9 * 2;
  EXPECT_GT(split->step_s, weights / (3350e9 * cal.eta_bw));
  EXPECT_NEAR(split->step_s, weights / (3350e9 * cal.eta_bw) + cal.t0_s + split->comm_s,
              0.02 * split->step_s);  // the KV cache of one short sequence is the rest
  // The same cards under tensor parallelism (vLLM) read a quarter each, side by side.
  w.engine = "vllm";
  auto tp = run_time(w, pc, 4, {pc}, default_calibration());
  ASSERT_TRUE(tp.ok());
  EXPECT_LT(tp->step_s * 2, split->step_s);
}

TEST(CostParallel, LlamaCppOnMoreCardsDecodesNoFasterAndPaysAHopPerBoundary) {
  // Llama 3 8B fits one card; one llama.cpp process still spreads it over every card it sees, so
  // 4 cards decode one sequence more slowly than 1 (3 hops), where vLLM's replicas run at one
  // card's speed. With items, burst runs a copy per card and the replicas share the items.
  const GpuSpec pc = tp_card("PC", "pcie", 64);
  Workload w = tp_llm(8);
  w.layers = 32;
  w.hidden = 4096;
  w.engine = "llama.cpp";
  auto one = run_time(w, pc, 1, {pc}, default_calibration());
  auto four = run_time(w, pc, 4, {pc}, default_calibration());
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_EQ(four->layout.group, 4);
  EXPECT_GT(four->step_s, one->step_s);
  EXPECT_NEAR(four->step_s - one->step_s, four->comm_s, 1e-12);
  EXPECT_NEAR(four->comm_s, 3 * collective_seconds(pc, 2, 2 * 4096, 1), 1e-9);
  w.items = 8;
  auto items = run_time(w, pc, 4, {pc}, default_calibration());
  ASSERT_TRUE(items.ok());
  EXPECT_EQ(items->layout.group, 1);
  EXPECT_EQ(items->layout.replicas, 4);
}

TEST(CostParallel, ReplicasWithoutItemsNeverRunMoreSequencesThanExist) {
  // One sequence of a model that fits one card, on 8 cards: 8 replicas, but one decodes.
  const GpuSpec h = tp_card("H", "nvlink", 900);
  Workload w = tp_llm(8);
  w.layers.reset();
  w.hidden.reset();
  auto eight = run_time(w, h, 8, {h}, default_calibration());
  auto one = run_time(w, h, 1, {h}, default_calibration());
  ASSERT_TRUE(eight.ok() && one.ok());
  EXPECT_EQ(eight->layout.replicas, 8);
  EXPECT_EQ(eight->batch, 1);
  EXPECT_NEAR(eight->batch / eight->step_s, one->batch / one->step_s, 1e-9);
  // Eight sequences: one on each replica.
  w.concurrency = 8;
  auto shared = run_time(w, h, 8, {h}, default_calibration());
  ASSERT_TRUE(shared.ok());
  EXPECT_EQ(shared->batch, 8);
}

TEST(CostParallel, ManySequencesOnAModelNeedingTwoCardsUseReplicas) {
  const GpuSpec nv = tp_card("NV", "nvlink", 900);
  Workload w = tp_llm(70);
  w.concurrency = 16;
  w.items = 256;
  auto t = run_time(w, nv, 8, {nv}, default_calibration());
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_GT(t->layout.replicas, 1);
  EXPECT_EQ(t->layout.group * t->layout.replicas, 8);
}

TEST(CostParallel, AboveEightCardsThePipelineAcrossNodesIdlesAtBatchOne) {
  const GpuSpec h = tp_card("H", "nvlink", 900);
  Workload w = tp_llm(405);  // 810 GB of fp16 weights: 16 x 80 GB cards
  w.layers = 126;
  w.hidden = 16384;
  auto t = run_time(w, h, 16, {h}, default_calibration());
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->layout.group, 16);
  EXPECT_EQ(t->layout.nodes, 2);
  // One token passes both nodes in turn: the weights stream at 8 cards' bandwidth.
  const double weights = 405e9 * 2;
  EXPECT_GT(t->step_s, weights / (8 * 3350e9 * default_calibration().eta_bw));
  EXPECT_NEAR(t->comm_s, 2 * 126 * allreduce_seconds(h, 8, 16384 * 2), 1e-12);
}

TEST(CostParallel, ShardedTrainingOnPcieWaitsForItsCollectives) {
  Workload w;
  w.kind = "llm-training";
  w.mode = "full";
  w.params_b = 13;  // 18 bytes per parameter: 234 GB, four 80 GB cards
  w.precision = "bf16";
  w.tokens = 100'000'000;
  const GpuSpec nv = tp_card("NV", "nvlink", 900), pc = tp_card("PC", "pcie", 64);
  auto a = run_time(w, nv, 4, {nv, pc}, default_calibration());
  auto b = run_time(w, pc, 4, {nv, pc}, default_calibration());
  ASSERT_TRUE(a.ok() && b.ok()) << a.error().message;
  EXPECT_EQ(a->layout.group, 4);
  // NVLink moves the state (2 x 26 GB weights + 52 GB gradients, 3/4 of it per card) within
  // the step's compute; PCIe takes ~3 s for it, longer than the compute, and the step waits.
  EXPECT_EQ(a->comm_s, 0);
  EXPECT_GT(b->comm_s, 1.0);
  EXPECT_GT(b->step_s, a->step_s + 1.0);
}

TEST(CostParallel, NoOfferWithEnoughCardsSaysHowManyAreNeeded) {
  PipelineSpec spec;
  spec.name = "train70b";
  spec.run = "python train.py";
  spec.workload.kind = "llm-training";
  spec.workload.mode = "full";
  spec.workload.params_b = 70;
  spec.workload.tokens = 1'000'000;
  const std::vector<GpuSpec> catalog{tp_card("H100_SXM", "nvlink", 900)};
  PlanInput in;
  in.catalog = &catalog;
  in.providers = {"runpod"};
  for (int n : {1, 2, 4, 8}) {
    Offer o;
    o.provider = "runpod";
    o.traits = find_provider_traits("runpod");
    o.gpu_type = "H100_SXM";
    o.gpu_count = n;
    o.vram_gb = 80;
    o.usd_per_hour = 3.0 * n;
    o.price_source = "live offer";
    in.gpu_offers.push_back(o);
  }
  auto plan = make_plan(spec, in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kNoCapacity);
  EXPECT_NE(plan.error().message.find("needs 16 GPUs (16 x H100_SXM, 80 GB each"),
            std::string::npos)
      << plan.error().message;
  EXPECT_NE(plan.error().message.find("no offer has that many (the largest has 8)"),
            std::string::npos)
      << plan.error().message;
}

TEST(CostParallel, VllmOnMi300xReadsEachCardAtTheShareItsTensorParallelRowsShow) {
  // No single-MI300X vLLM row exists; the 8-card rows of three sources (Oracle's FP8 and dstack's
  // BF16 Llama 3.1 405B, ROCm/vllm's FP8 70B, all tensor parallel 8) fit vLLM's share of an AMD
  // HBM card's bandwidth
  // with the all-reduces held at link physics (docs/cost-model.md, "Per engine and memory
  // family"). It is the card's vendor under vLLM that moves the estimate: an MI300X decodes
  // more slowly than an H200 of less bandwidth, and llama.cpp or an NVIDIA card are untouched.
  Result<std::vector<GpuSpec>> loaded = load_gpu_catalog("");  // the built-in catalog
  ASSERT_TRUE(loaded.ok());
  const std::vector<GpuSpec> catalog = *loaded;
  const GpuSpec* mi300x = find_gpu(catalog, "MI300X");
  const GpuSpec* h200 = find_gpu(catalog, "H200");
  ASSERT_TRUE(mi300x && h200);
  ASSERT_GT(mi300x->mem_bw_gbs, h200->mem_bw_gbs);
  Workload w;
  w.kind = "llm-inference";
  w.model = "llama-3.1-405b";
  w.precision = "fp8";
  w.engine = "vllm";
  w.context_tokens = 256;
  w.tokens = 128;
  const Calibration amd = effective_calibration(w, *mi300x, default_calibration());
  const Calibration nvidia = effective_calibration(w, *h200, default_calibration());
  EXPECT_NEAR(amd.eta_bw, 0.335, 1e-9);
  EXPECT_LT(amd.eta_bw, nvidia.eta_bw / 2);
  auto mi = run_time(w, *mi300x, 8, catalog, default_calibration());
  auto h = run_time(w, *h200, 8, catalog, default_calibration());
  ASSERT_TRUE(mi.ok() && h.ok());
  EXPECT_GT(mi->step_s, h->step_s);
  // Oracle's benchmark_latency: 128 in / 128 out at batch 1 in 3.53 s (36 tok/s), prefill
  // included; the fit over all three sources puts it 17% slow (4.3 s; the 70B rows are closer).
  // The link's all-reduces are a tenth of each step.
  EXPECT_NEAR(mi->compute_s, 3.53, 0.25 * 3.53);
  EXPECT_LT(mi->comm_s, 0.15 * mi->step_s);
  w.engine = "llama.cpp";
  const Calibration llama = effective_calibration(w, *mi300x, default_calibration());
  EXPECT_NE(llama.eta_bw, amd.eta_bw);
}

TEST(CostParallel, ANamedTensorParallelSizeShardsOneCopyOverThatManyCards) {
  // vLLM's --tensor-parallel-size 8 on a model that fits one card: the layout the user runs,
  // not the replicas the model would pick. One request then reads an eighth of the weights on
  // each card, and pays the all-reduces; the replicas' layout decodes it on one card.
  const GpuSpec h = tp_card("H", "nvlink", 900);
  Workload w = tp_llm(7);
  w.layers.reset();  // a 7B's own shape: 32 layers of 4096, 64 all-reduces a token
  w.hidden.reset();
  w.engine = "vllm";
  auto picked = run_time(w, h, 8, {h}, default_calibration());
  w.tensor_parallel = 8;
  auto named = run_time(w, h, 8, {h}, default_calibration());
  ASSERT_TRUE(picked.ok() && named.ok()) << named.error().message;
  EXPECT_EQ(picked->layout.group, 1);
  EXPECT_EQ(picked->layout.replicas, 8);
  EXPECT_EQ(named->layout.group, 8);
  EXPECT_EQ(named->layout.replicas, 1);
  EXPECT_GT(named->comm_s, 0);
  // Faster, though far from 8x: the step's fixed overhead and the all-reduces do not shrink.
  EXPECT_LT(named->step_s, picked->step_s);
  EXPECT_GT(named->step_s, picked->step_s / 8);
  // Four cards a copy on eight: two copies, each with its half of the sequences.
  w.tensor_parallel = 4;
  w.concurrency = 8;
  auto two = run_time(w, h, 8, {h}, default_calibration());
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->layout.group, 4);
  EXPECT_EQ(two->layout.replicas, 2);
  EXPECT_EQ(two->batch, 8);
}

TEST(CostParallel, ANamedTensorParallelGroupTooSmallForTheModelDoesNotFitAndAWrongOneIsRefused) {
  const GpuSpec h = tp_card("H", "nvlink", 900);
  Workload w = tp_llm(70);  // 140 GB of fp16 weights: more than one 80 GB card
  w.tensor_parallel = 1;
  auto one = run_time(w, h, 4, {h}, default_calibration());
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->bound, "capacity");
  EXPECT_FALSE(layout_holds(w, h, 4));
  w.tensor_parallel = 2;
  EXPECT_TRUE(layout_holds(w, h, 4));
  w.tensor_parallel = 8;
  auto wide = run_time(w, h, 4, {h}, default_calibration());
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().message, "tensor_parallel 8 needs at least that many GPUs (got 4)");
  w.tensor_parallel = 2;
  w.engine = "llama.cpp";
  auto layers = run_time(w, h, 4, {h}, default_calibration());
  ASSERT_FALSE(layers.ok());
  EXPECT_EQ(layers.error().message,
            "tensor_parallel does not apply to llama.cpp, which splits by layers");
}

TEST(CostParallel, ANamedTensorParallelSizeCountsEachCopysKvCacheNotThePooledCards) {
  // Two copies of a 13B over 2 cards each, on 4 cards: each copy holds its own weights, so four
  // cards serve twice what two do, fewer than the 4 cards pooled into one copy would (where the
  // weights are held once).
  const GpuSpec h = tp_card("H", "nvlink", 900);
  Workload w = tp_llm(13);
  w.engine = "vllm";
  w.context_tokens = 4096;
  const long pooled = max_concurrency(w, h, 4);
  w.tensor_parallel = 2;
  const long copy = max_concurrency(w, h, 2);
  ASSERT_GT(copy, 0);
  EXPECT_EQ(max_concurrency(w, h, 4), 2 * copy);
  EXPECT_EQ(max_concurrency(w, h, 5), 2 * copy) << "the fifth card is spare";
  EXPECT_LT(max_concurrency(w, h, 4), pooled);
  w.tensor_parallel = 4;
  EXPECT_EQ(max_concurrency(w, h, 4), pooled) << "one copy over every card pools them";
}

}  // namespace
}  // namespace burst
