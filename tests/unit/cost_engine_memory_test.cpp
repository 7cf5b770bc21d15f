// Memory as the driver reports it and what each serving engine reserves before its KV cache
// (src/cost/engine_memory.cpp; docs/cost-model.md, "llm-inference" and "Headroom").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"

namespace burst {
namespace {

GpuSpec card48() {
  GpuSpec g;
  g.name = "CARD";
  g.vendor = "nvidia";
  g.memory = "gddr";
  g.vram_gb = 48;
  g.mem_bw_gbs = 1000;
  g.fp16_tflops = 165.2;
  g.interconnect = "pcie";
  return g;
}

Workload llama8b(const std::string& engine) {
  Workload w;
  w.kind = "llm-inference";
  w.model = "llama-3-8b";
  w.precision = "fp16";
  w.engine = engine;
  w.context_tokens = 4096;
  return w;
}

TEST(CostEngineMemory, EachEngineLeavesTheKvCacheWhatItsDocumentedDefaultsReserve) {
  // Llama 3 8B fp16 (14.96 GiB) at 4096 tokens (0.5 GiB each) on a 48 GiB card. llama.cpp: the
  // usable 46.54 GiB, 63 sequences. vLLM: 0.9 of the card less an 8192-token profiling batch
  // (0.69 GiB), 55. TensorRT-LLM: 0.9 of what is free after the runtime (0.5 GiB), the
  // activation workspace and the weights, 0.9 x 31.85 = 28.67 GiB, 57.
  const GpuSpec g = card48();
  EXPECT_EQ(max_concurrency(llama8b("llama.cpp"), g, 1), 63);
  EXPECT_EQ(max_concurrency(llama8b(""), g, 1), 63);
  EXPECT_EQ(max_concurrency(llama8b("vllm"), g, 1), 55);
  EXPECT_EQ(max_concurrency(llama8b("tensorrt-llm"), g, 1), 57);
  // Every engine's KV capacity is below the raw card's (48 GiB less the weights: 66 sequences).
  for (const char* engine : {"llama.cpp", "vllm", "sglang", "tensorrt-llm"})
    EXPECT_LT(max_concurrency(llama8b(engine), g, 1), 66) << engine;
}

TEST(CostEngineMemory, ANamedMemoryShareReplacesTheEnginesDefault) {
  // The same card at workload.gpu_memory_utilization 0.95: vLLM takes 0.95 of 48 GiB less the
  // profiling batch and the weights, 29.95 GiB, 59 sequences (55 at the default 0.9); SGLang
  // alike; TensorRT-LLM 0.95 of the 31.85 GiB free, 30.26 GiB, 60 (57). llama.cpp has no share.
  const GpuSpec g = card48();
  for (const auto& [engine, want] : std::vector<std::pair<std::string, long>>{
           {"vllm", 59}, {"sglang", 59}, {"tensorrt-llm", 60}}) {
    Workload w = llama8b(engine);
    w.gpu_memory_utilization = 0.95;
    EXPECT_EQ(max_concurrency(w, g, 1), want) << engine;
    w.gpu_memory_utilization = 0.5;  // less than the weights and the batch leave room for
    EXPECT_LT(max_concurrency(w, g, 1), max_concurrency(llama8b(engine), g, 1)) << engine;
  }
}

TEST(CostEngineMemory, AnEngineWhoseShareCannotHoldTheModelNeedsMoreCardsThanTheMemoryDoes) {
  // Llama 3 8B fp16 (14.96 GiB) and one sequence of 1024 tokens (0.125 GiB) on a 16 GiB card:
  // its usable 15.18 GiB holds them, one card by memory. vLLM takes 0.9 of 16 GiB less its
  // 0.69 GiB workspace, 13.71 GiB, below the weights: it cannot start there, and needs two.
  GpuSpec g = card48();
  g.vram_gb = 16;
  Workload w = llama8b("vllm");
  w.context_tokens = 1024;
  auto need = memory_need(w);
  ASSERT_TRUE(need.ok());
  EXPECT_EQ(gpus_needed(*need, g), 1);  // the memory alone
  EXPECT_FALSE(engine_holds(w, g, 1));
  EXPECT_EQ(gpus_needed(w, g), 2);
  EXPECT_FALSE(layout_holds(w, g, 1));
  EXPECT_TRUE(layout_holds(w, g, 2));
  // llama.cpp reserves no share: one card.
  Workload cpp = llama8b("llama.cpp");
  cpp.context_tokens = 1024;
  EXPECT_EQ(gpus_needed(cpp, g), 1);
  EXPECT_TRUE(layout_holds(cpp, g, 1));
  // A run time on one card is a capacity bound the planner never prices.
  auto rt = run_time(w, g, 1, {g}, default_calibration());
  ASSERT_TRUE(rt.ok());
  EXPECT_EQ(rt->bound, "capacity");
}

TEST(CostEngineMemory, ABatchingEngineRunsWhatItsShareHoldsAndQueuesTheRest) {
  // 64 sequences of Llama 3 8B at 4096 tokens on the 48 GiB card: vLLM's share holds 55 beside
  // the weights, so it runs 55 and queues the rest (its scheduler admits what its KV cache
  // holds): the 64 requests in two rounds of 256 tokens, as if asked for 64 items at 55.
  const GpuSpec g = card48();
  Workload w = llama8b("vllm");
  w.concurrency = 64;
  w.tokens = 256;
  const Workload run = engine_admits(w, g, 1);
  ASSERT_TRUE(run.concurrency && run.items);
  EXPECT_EQ(*run.concurrency, 55);
  EXPECT_EQ(*run.items, 64);
  auto queued = run_time(w, g, 1, {g}, default_calibration());
  ASSERT_TRUE(queued.ok()) << queued.error().message;
  EXPECT_NE(queued->bound, "capacity");
  EXPECT_EQ(queued->rounds, 2);
  EXPECT_EQ(queued->steps, 2 * 256);
  auto same = run_time(run, g, 1, {g}, default_calibration());
  ASSERT_TRUE(same.ok());
  EXPECT_DOUBLE_EQ(queued->compute_s, same->compute_s);
  Workload held = w;
  held.concurrency = 55;
  auto one_round = run_time(held, g, 1, {g}, default_calibration());
  ASSERT_TRUE(one_round.ok());
  EXPECT_DOUBLE_EQ(queued->compute_s, 2 * one_round->compute_s);
  // Items already set: each round still runs what the share holds.
  w.items = 200;
  EXPECT_EQ(*engine_admits(w, g, 1).concurrency, 55);
  EXPECT_EQ(*engine_admits(w, g, 1).items, 200);
  // llama.cpp allocates the sequences it is started with: 64 do not fit beside the weights (63
  // do), and it is not queued.
  Workload cpp = llama8b("llama.cpp");
  cpp.concurrency = 64;
  cpp.tokens = 256;
  EXPECT_EQ(engine_admits(cpp, g, 1).concurrency, 64);
  auto refused = run_time(cpp, g, 1, {g}, default_calibration());
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->bound, "capacity");
}

TEST(CostEngineMemory, VllmRunsAtMostItsDefaultMaxNumSeqsHoweverMuchItsCacheHolds) {
  // 512 sequences of 512 tokens of Llama 3 8B: the 48 GiB card's cache holds 440 of them, and
  // vLLM's scheduler runs 256 (max_num_seqs below 70 GiB); a 141 GB card holds all 512 and runs
  // them at once (1024 there); an A100 80GB stays at 256 (vLLM leaves A100s out by name).
  Workload w = llama8b("vllm");
  w.context_tokens = 512;
  w.concurrency = 512;
  w.tokens = 128;
  const GpuSpec small = card48();
  EXPECT_EQ(engine_max_sequences("vllm", small), 256);
  EXPECT_GT(max_concurrency(w, small, 1), 256);
  EXPECT_EQ(engine_admits(w, small, 1).concurrency, 256);
  EXPECT_EQ(engine_admits(w, small, 1).items, 512);
  EXPECT_EQ(sequences_at_once(w, small, 1), 256);  // what the plan and estimate say it runs
  auto queued = run_time(w, small, 1, {small}, default_calibration());
  ASSERT_TRUE(queued.ok()) << queued.error().message;
  EXPECT_EQ(queued->rounds, 2);
  GpuSpec big = card48();
  big.vram_gb = 141;
  EXPECT_EQ(engine_max_sequences("vllm", big), 1024);
  EXPECT_EQ(engine_admits(w, big, 1).concurrency, 512);
  EXPECT_FALSE(engine_admits(w, big, 1).items);
  EXPECT_EQ(sequences_at_once(w, big, 1), 512);
  GpuSpec a100 = big;
  a100.name = "A100_80GB";
  a100.vram_gb = 80;
  EXPECT_EQ(engine_max_sequences("vllm", a100), 256);
  EXPECT_EQ(engine_admits(w, a100, 1).concurrency, 256);
  // Other engines have no such default here: SGLang's share holds what memory holds.
  Workload sg = w;
  sg.engine = "sglang";
  EXPECT_EQ(engine_max_sequences("sglang", small), 0);
  EXPECT_EQ(engine_admits(sg, big, 1).concurrency, 512);
}

TEST(CostEngineMemory, AMaxNumSeqsTheUserSetsReplacesTheEnginesDefaultCap) {
  // 512 sequences of 512 tokens of Llama 3 8B on an A100 80GB, whose cache holds them all:
  // vLLM's default runs 256 at a time in two rounds; started with --max-num-seqs 1024 it runs
  // them at once, no slower (both batches are compute-bound, so the work is the same); with 64
  // in eight rounds of bandwidth-bound steps, later. SGLang, with no default cap here, takes the
  // one it is given.
  Workload w = llama8b("vllm");
  w.context_tokens = 512;
  w.concurrency = 512;
  w.tokens = 128;
  GpuSpec a100 = card48();
  a100.name = "A100_80GB";
  a100.vram_gb = 80;
  auto seconds = [&](const Workload& load) {
    auto t = run_time(load, a100, 1, {a100}, default_calibration());
    EXPECT_TRUE(t.ok());
    return t.ok() ? std::make_pair(t->compute_s, static_cast<long>(t->rounds))
                  : std::make_pair(0.0, 0L);
  };
  EXPECT_EQ(engine_sequence_cap(w, a100), 256);
  const auto by_default = seconds(w);
  EXPECT_EQ(by_default.second, 2);
  w.max_num_seqs = 1024;
  EXPECT_EQ(engine_sequence_cap(w, a100), 1024);
  EXPECT_EQ(sequences_at_once(w, a100, 1), 512);
  const auto raised = seconds(w);
  EXPECT_EQ(raised.second, 1);
  EXPECT_LE(raised.first, by_default.first);
  w.max_num_seqs = 64;
  EXPECT_EQ(sequences_at_once(w, a100, 1), 64);
  const auto lowered = seconds(w);
  EXPECT_EQ(lowered.second, 8);
  EXPECT_GT(lowered.first, by_default.first);
  Workload sg = w;
  sg.engine = "sglang";
  sg.max_num_seqs.reset();
  EXPECT_EQ(sequences_at_once(sg, a100, 1), 512);
  sg.max_num_seqs = 100;
  EXPECT_EQ(sequences_at_once(sg, a100, 1), 100);
}

TEST(CostEngineMemory, MemoryIsCountedAsTheDriverReportsIt) {
  // A "24 GB" card with ECC on GDDR (an A10) shows 23028 MiB, 22.49 GiB: usable and KV capacity
  // fall below the same card read as 24 GiB.
  GpuSpec raw = card48();
  raw.vram_gb = 24;
  GpuSpec ecc = raw;
  ecc.vram_mib = 23028;
  EXPECT_NEAR(driver_vram_gib(ecc), 22.488, 1e-3);
  EXPECT_NEAR(driver_vram_gib(raw), 24, 1e-12);
  EXPECT_NEAR(usable_gib(ecc), 22.488 * 0.98 - 0.5, 1e-3);
  for (const char* engine : {"llama.cpp", "vllm", "tensorrt-llm"})
    EXPECT_LT(max_concurrency(llama8b(engine), ecc, 1), max_concurrency(llama8b(engine), raw, 1))
        << engine;
  // The compiled catalog carries the cited figures: an A10 and an H100 SXM as nvidia-smi shows.
  auto catalog = load_gpu_catalog("");
  ASSERT_TRUE(catalog.ok()) << catalog.error().message;
  const GpuSpec* a10 = find_gpu(*catalog, "A10");
  const GpuSpec* h100 = find_gpu(*catalog, "H100_SXM");
  ASSERT_TRUE(a10 && h100);
  EXPECT_NEAR(driver_vram_gib(*a10), 23028.0 / 1024, 1e-9);
  EXPECT_NEAR(driver_vram_gib(*h100), 81559.0 / 1024, 1e-9);
  EXPECT_LT(usable_gib(*a10), 24 * 0.98 - 0.5);
}

TEST(CostEngineMemory, CatalogReadsTheDriversTotal) {
  const std::string yaml =
      "version: 1\nas_of: \"2026-11-29\"\ngpus:\n  - name: X\n    vendor: nvidia\n"
      "    segment: datacenter\n    vram_gb: 24\n    vram_mib: 23028\n    mem_bw_gbs: 600\n"
      "    fp16_tflops: 125\n    tdp_w: 150\n    interconnect: pcie\n    interconnect_gbs: 64\n"
      "    source: test\n";
  auto c = parse_gpu_catalog(yaml, "gpus.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE((*c)[0].vram_mib.has_value());
  EXPECT_EQ(*(*c)[0].vram_mib, 23028);
  auto bad = parse_gpu_catalog(
      yaml.substr(0, yaml.find("23028")) + "-1\n" + yaml.substr(yaml.find("23028") + 6),
      "gpus.yaml");
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace burst
