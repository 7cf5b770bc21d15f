// LLM decode time per serving engine and memory family (the fitted efficiencies of
// docs/cost-model.md, "Validation"), prefill, GGUF formats at their real size, and the estimate's
// --engine / --gpus.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/spec.h"
#include "plan/estimate.h"

namespace burst {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

GpuSpec card(const std::string& memory, const std::string& vendor) {
  GpuSpec g;
  g.name = "CARD";
  g.vendor = vendor;
  g.memory = memory;
  g.vram_gb = 48;
  g.mem_bw_gbs = 1000;
  g.fp16_tflops = 165.2;
  g.interconnect = "pcie";
  return g;
}

Workload decode(const std::string& engine) {
  Workload w;
  w.kind = "llm-inference";
  w.model = "llama-3-8b";
  w.precision = "fp16";
  w.engine = engine;
  w.tokens = 128;
  return w;
}

TEST(CostDecode, GgufFormatsAtTheirRealSize) {
  EXPECT_DOUBLE_EQ(*bytes_per_param("q8_0"), 34.0 / 32);  // 32 weights + an fp16 scale
  EXPECT_DOUBLE_EQ(*bytes_per_param("q4_0"), 18.0 / 32);
  EXPECT_DOUBLE_EQ(*bytes_per_param("q4_k_m"), 4.85 / 8);
  // llama.cpp's llama-bench reports LLaMA 7B (6.74 B parameters) at 12.55 GiB in F16, 6.67 GiB in
  // Q8_0 and 3.56 GiB in Q4_0 (github.com/ggml-org/llama.cpp/pull/4766).
  Workload w;
  w.kind = "llm-inference";
  w.params_b = 6.74;
  for (auto [precision, measured] :
       {std::pair<const char*, double>{"fp16", 12.55}, {"q8_0", 6.67}, {"q4_0", 3.56}}) {
    w.precision = precision;
    auto m = memory_need(w);
    ASSERT_TRUE(m.ok()) << precision;
    EXPECT_NEAR(m->weights_gib, measured, measured * 0.01) << precision;
  }
}

TEST(CostDecode, BatchingServersWithoutRowsTakeVllmsFitNotLlamaCpps) {
  // TensorRT-LLM and SGLang have no measurements of their own: naming them must not make a plan
  // slower than naming vLLM (the engine-agnostic fit leans on llama.cpp's rows).
  const Calibration& prior = default_calibration();
  for (const char* memory : {"hbm", "gddr"}) {
    const Calibration vllm = effective_calibration(decode("vllm"), card(memory, "nvidia"), prior);
    for (const char* engine : {"tensorrt-llm", "sglang"}) {
      const Calibration c = effective_calibration(decode(engine), card(memory, "nvidia"), prior);
      EXPECT_DOUBLE_EQ(c.eta_bw, vllm.eta_bw) << engine << " " << memory;
      EXPECT_DOUBLE_EQ(c.t0_s, vllm.t0_s) << engine << " " << memory;
    }
  }
}

TEST(CostDecode, EachFitAppliesToItsEngineAndFamily) {
  ASSERT_FALSE(decode_fits().empty());
  for (const DecodeFit& f : decode_fits()) {
    const std::string family = f.family;
    const auto space = family.find(' ');
    const GpuSpec g = space == std::string::npos
                          ? card(family, "othervendor")
                          : card(family.substr(0, space), family.substr(space + 1));
    // The engine-agnostic fits are what an engine without a fit of its own gets.
    const std::string engine = std::string(f.engine).empty() ? "an-engine-without-rows" : f.engine;
    const Calibration c = effective_calibration(decode(engine), g, default_calibration());
    EXPECT_DOUBLE_EQ(c.eta_bw, std::min(1.0, f.eta_bw)) << f.engine << " / " << f.family;
    EXPECT_DOUBLE_EQ(c.t0_s, f.t0_s) << f.engine << " / " << f.family;
    EXPECT_GT(f.rows, 0) << "a fit without data: " << f.engine << " / " << f.family;
  }
}

TEST(CostDecode, AnUnfittedEngineFallsBackToItsMemoryTechnology) {
  // No PyTorch row on an HBM card of this vendor: PyTorch's fit on HBM of any vendor, not the
  // engine-agnostic one.
  const DecodeFit* hbm = nullptr;
  const DecodeFit* agnostic = nullptr;
  for (const DecodeFit& f : decode_fits()) {
    if (std::string(f.engine) == "pytorch" && std::string(f.family) == "hbm") hbm = &f;
    if (std::string(f.engine).empty() && std::string(f.family) == "hbm") agnostic = &f;
  }
  ASSERT_NE(hbm, nullptr) << "no PyTorch HBM fit";
  ASSERT_NE(agnostic, nullptr) << "no engine-agnostic HBM fit";
  ASSERT_NE(hbm->eta_bw, agnostic->eta_bw) << "the test could not tell the two apart";
  const Calibration c =
      effective_calibration(decode("pytorch"), card("hbm", "nobody"), default_calibration());
  EXPECT_DOUBLE_EQ(c.eta_bw, hbm->eta_bw);
  EXPECT_DOUBLE_EQ(c.t0_s, hbm->t0_s);
}

TEST(CostDecode, AnEngineWithoutRowsOnAFamilyTakesTheFamilysFitBeforeItsOtherVendors) {
  // vLLM has rows on NVIDIA GDDR only: on an AMD GDDR card it takes what every engine reaches on
  // AMD GDDR (ROCm's kernels), not its own NVIDIA GDDR efficiency.
  const DecodeFit* family = nullptr;
  const DecodeFit* other_vendor = nullptr;
  for (const DecodeFit& f : decode_fits()) {
    if (std::string(f.engine).empty() && std::string(f.family) == "gddr amd") family = &f;
    if (std::string(f.engine) == "vllm" && std::string(f.family) == "gddr") other_vendor = &f;
  }
  ASSERT_NE(family, nullptr) << "no engine-agnostic AMD GDDR fit";
  ASSERT_NE(other_vendor, nullptr) << "no vLLM GDDR fit";
  ASSERT_NE(family->eta_bw, other_vendor->eta_bw) << "the test could not tell the two apart";
  for (const char* engine : {"vllm", "sglang", "tensorrt-llm"}) {
    const Calibration c =
        effective_calibration(decode(engine), card("gddr", "amd"), default_calibration());
    EXPECT_DOUBLE_EQ(c.eta_bw, family->eta_bw) << engine;
    EXPECT_DOUBLE_EQ(c.t0_s, family->t0_s) << engine;
  }
}

TEST(CostDecode, NoEngineNamedMeansVllmOnHbmAndAnyEngineOnGddr) {
  const Calibration& prior = default_calibration();
  const Calibration vllm = effective_calibration(decode("vllm"), card("hbm", "nvidia"), prior);
  const Calibration hbm = effective_calibration(decode(""), card("hbm", "nvidia"), prior);
  EXPECT_DOUBLE_EQ(hbm.eta_bw, vllm.eta_bw);
  EXPECT_DOUBLE_EQ(hbm.t0_s, vllm.t0_s);
  const Calibration llama =
      effective_calibration(decode("llama.cpp"), card("hbm", "nvidia"), prior);
  EXPECT_NE(llama.eta_bw, hbm.eta_bw);  // llama.cpp named: its own fit, not vLLM's
  const DecodeFit* gddr = nullptr;
  for (const DecodeFit& f : decode_fits())
    if (std::string(f.engine).empty() && std::string(f.family) == "gddr nvidia") gddr = &f;
  ASSERT_NE(gddr, nullptr);
  const Calibration g = effective_calibration(decode(""), card("gddr", "nvidia"), prior);
  EXPECT_DOUBLE_EQ(g.eta_bw, gddr->eta_bw);
}

TEST(CostDecode, OtherKindsAndUnknownMemoryKeepThePrior) {
  const Calibration& prior = default_calibration();
  Calibration c = effective_calibration(decode("llama.cpp"), card("", "nvidia"), prior);
  EXPECT_DOUBLE_EQ(c.eta_bw, prior.eta_bw);
  EXPECT_DOUBLE_EQ(c.t0_s, prior.t0_s);
  // Diffusion takes its architecture's fit (a bare workload: a DiT, the pooled GDDR fit) for its
  // compute efficiency and step overhead; its bandwidth efficiency stays the prior's.
  Workload diffusion = decode("");
  diffusion.kind = "diffusion";
  c = effective_calibration(diffusion, card("gddr", "nvidia"), prior);
  const DiffusionFit* fit = diffusion_fit("dit", "gddr");
  ASSERT_NE(fit, nullptr);
  EXPECT_DOUBLE_EQ(c.eta_bw, prior.eta_bw);
  EXPECT_DOUBLE_EQ(c.eta_compute, fit->eta_compute);
  EXPECT_DOUBLE_EQ(c.t0_s, fit->t0_s);
}

TEST(CostDecode, AFitFromHistoryStillScalesTheEngineFit) {
  const Calibration& prior = default_calibration();
  Calibration slower = prior;
  slower.eta_bw = prior.eta_bw / 2;  // history says: twice the modelled time
  slower.t0_s = prior.t0_s * 2;
  const GpuSpec g = card("gddr", "nvidia");
  const Calibration base = effective_calibration(decode("llama.cpp"), g, prior);
  const Calibration scaled = effective_calibration(decode("llama.cpp"), g, slower);
  EXPECT_NEAR(scaled.eta_bw, base.eta_bw / 2, 1e-12);
  EXPECT_NEAR(scaled.t0_s, base.t0_s * 2, 1e-12);
}

TEST(CostDecode, PrefillIsComputeBoundAndPaidOncePerRound) {
  const GpuSpec g = card("gddr", "nvidia");
  const std::vector<GpuSpec> catalog{g};
  Workload w = decode("");  // no engine named: the prior's eta_compute
  auto plain = run_time(w, g, 1, catalog, default_calibration());
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->prefill_s, 0);  // no context given: no prompt
  w.context_tokens = 4096;         // 3968 prompt tokens + 128 generated
  w.concurrency = 2;
  w.items = 4;  // two rounds of two sequences
  auto t = run_time(w, g, 1, catalog, default_calibration());
  ASSERT_TRUE(t.ok()) << t.error().message;
  // Two prompts of 3968 tokens: the weights, and causal attention over each prompt (llama-3-8b:
  // 32 layers of 32 heads of 128).
  const double flops = (2 * 8.03e9 * 3968 + 2.0 * 32 * 32 * 128 * 3968.0 * 3968) * 2;
  EXPECT_NEAR(t->prefill_s, flops / (165.2e12 * default_calibration().eta_compute), 1e-12);
  EXPECT_EQ(t->rounds, 2);
  EXPECT_NEAR(t->compute_s, t->step_s * 256 + 2 * t->prefill_s, 1e-9);
  w.context_tokens = 128;  // all of it generated
  t = run_time(w, g, 1, catalog, default_calibration());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->prefill_s, 0);
}

// A long prompt costs more than its weights: each token attends to those before it, so the
// attention's work grows with the square of the prompt (docs/cost-model.md, "Prefill by engine").
TEST(CostDecode, PrefillCountsCausalAttentionOverThePrompt) {
  Workload w = *with_model_shape(decode("vllm"));
  w.tokens = 1;
  w.context_tokens = 8193;  // an 8192-token prompt
  const double weights = 2 * 8.03e9 * 8192;
  const double attention = 2.0 * 32 * 32 * 128 * 8192.0 * 8192;
  EXPECT_NEAR(prefill_flops_of(w, 8.03e9), weights + attention, 1e3);
  w.context_tokens = 65537;  // 8x the prompt: 8x the weights' work, 64x the attention's
  EXPECT_NEAR(prefill_flops_of(w, 8.03e9), 8 * weights + 64 * attention, 1e5);
  EXPECT_GT(prefill_flops_of(w, 8.03e9), 2 * 8 * weights);  // attention outweighs the weights
  w.context_tokens = 1;                                     // nothing left to prefill
  EXPECT_EQ(prefill_flops_of(w, 8.03e9), 0);
  // A mixture of experts reads its active parameters a token, and attends with every layer.
  Workload moe = decode("vllm");
  moe.model = "mixtral-8x7b";
  moe = *with_model_shape(moe);
  moe.tokens = 1;
  moe.context_tokens = 1025;
  const double total = 46.7e9;
  const double active = *moe.active_params_b * 1e9;
  ASSERT_LT(active, total);
  EXPECT_NEAR(prefill_flops_of(moe, total),
              2 * active * 1024 + 2.0 * *moe.layers * *moe.heads * *moe.head_dim * 1024.0 * 1024,
              1e3);
}

// A mixture of experts' decode step reads the experts its batch's tokens pick: Mixtral's 2 of 8
// at batch 1 (its active parameters), about 7.2 of 8 at batch 8, all of them at 64; the touched
// experts stream at kMoeExpertBandwidthShare of the dense rate (docs/cost-model.md,
// "llm-inference").
TEST(CostDecode, AMixtureOfExpertsBatchReadsTheExpertsItsTokensPick) {
  GpuSpec g = card("hbm", "nvidia");
  g.vram_gb = 200;
  g.fp16_tflops = 1e5;  // bandwidth-bound at every batch here: only the bytes differ
  auto run = [&](long batch, bool routed) {
    Workload w = decode("vllm");
    w.model = "mixtral-8x7b";
    w = *with_model_shape(w);
    EXPECT_EQ(w.experts, 8);
    EXPECT_EQ(w.experts_per_token, 2);
    if (!routed) w.experts_per_token = 8;  // k = E: no routing to model, active at any batch
    w.concurrency = batch;
    w.tokens = 64;
    auto t = run_time(w, g, 1, {g}, default_calibration());
    EXPECT_TRUE(t.ok()) << t.error().message;
    return t.ok() ? *t : RunTime{};
  };
  auto step = [&](long batch, bool routed) { return run(batch, routed).step_s; };
  // Batch 1 reads the active parameters either way; routed, two experts' worth of them stream at
  // the experts' share of the rate, so the step is longer by that much.
  const RunTime one = run(1, true), plain = run(1, false);
  EXPECT_DOUBLE_EQ(one.read_bytes, plain.read_bytes);
  EXPECT_GT(one.expert_bytes, 0);
  EXPECT_EQ(plain.expert_bytes, 0);
  ASSERT_LT(kMoeExpertBandwidthShare, 1.0);
  EXPECT_GT(one.step_s, plain.step_s);
  // Without routing a batch of 8 would read only the active parameters too; with it, most of the
  // 46.7 B: the step is ~3x longer, and a batch of 64 reads what a dense 46.7 B model does
  // (docs/cost-model.md, "llm-inference").
  EXPECT_GT(step(8, true), 2.5 * step(8, false));
  Workload dense = decode("vllm");
  dense.model = "mixtral-8x7b";
  dense = *with_model_shape(dense);
  dense.active_params_b = dense.params_b;  // every weight, every token
  dense.concurrency = 64;
  dense.tokens = 64;
  auto all = run_time(dense, g, 1, {g}, default_calibration());
  ASSERT_TRUE(all.ok());
  // The same bytes; the mixture of experts' 32 layers also pay a fused-MoE call's fixed cost, and
  // its experts' bytes their slower stream: the extra time is to batch 1's as the experts' bytes.
  const RunTime many = run(64, true);
  EXPECT_NEAR(many.read_bytes, all->read_bytes, 1e-6 * all->read_bytes);  // 8 (1 - 0.75^64) of 8
  const double extra = many.step_s - all->step_s - 32 * kMoeLayerFloorS;
  EXPECT_GT(extra, 0);
  EXPECT_NEAR(extra / (one.step_s - plain.step_s), many.expert_bytes / one.expert_bytes, 1e-6);
}

// Prefill by engine (docs/cost-model.md, "Prefill by engine"): llama.cpp multiplies f16 matrices
// with FP16 accumulation, which a GeForce card runs at twice the FP32-accumulate rate the catalog
// lists; a batching server runs bf16 at the catalog's rate and its own fitted efficiency (SGLang
// at vLLM's); an engine without rows at the prior's.
TEST(CostDecode, LlamaCppPrefillRunsAtTheFp16AccumulateRateOnGeForce) {
  GpuSpec g = card("gddr", "nvidia");
  g.segment = "consumer";
  Workload w = decode("llama.cpp");
  w.context_tokens = 4096;  // 3968 prompt tokens
  const double flops = 2 * 8.03e9 * 3968 + 2.0 * 32 * 32 * 128 * 3968.0 * 3968;
  auto fitted = [](const std::string& engine) {
    for (const PrefillFit& f : prefill_fits())
      if (engine == f.engine) return f.eta_compute;
    ADD_FAILURE() << "no prefill fit for " << engine;
    return 0.0;
  };
  const double eta_cpp = fitted("llama.cpp");
  auto prefill = [&](const GpuSpec& card, const Workload& load) {
    auto t = run_time(load, card, 1, {card}, default_calibration());
    EXPECT_TRUE(t.ok());
    return t.ok() ? t->prefill_s : 0;
  };
  EXPECT_NEAR(prefill(g, w), flops / (2 * 165.2e12 * eta_cpp), 1e-9);
  Workload served = w;
  served.engine = "vllm";
  served.precision = "bf16";
  EXPECT_NEAR(prefill(g, served), flops / (165.2e12 * fitted("vllm")), 1e-9);
  served.engine = "sglang";  // no rows of its own: vLLM's
  EXPECT_NEAR(prefill(g, served), flops / (165.2e12 * fitted("vllm")), 1e-9);
  served.engine = "tensorrt-llm";
  EXPECT_NEAR(prefill(g, served), flops / (165.2e12 * fitted("tensorrt-llm")), 1e-9);
  EXPECT_NE(fitted("tensorrt-llm"), fitted("vllm"));
  served.engine = "pytorch";  // no rows: the prior
  EXPECT_NEAR(prefill(g, served), flops / (165.2e12 * default_calibration().eta_compute), 1e-9);
  // A workstation card runs both accumulations at one rate: only llama.cpp's efficiency differs.
  g.segment = "workstation";
  EXPECT_NEAR(prefill(g, w), flops / (165.2e12 * eta_cpp), 1e-9);
  // bf16 has no FP16 accumulation, whatever the engine.
  g.segment = "consumer";
  w.precision = "bf16";
  EXPECT_NEAR(prefill(g, w), flops / (165.2e12 * eta_cpp), 1e-9);
}

TEST(CostDecode, EstimateTakesAnEngineAndAFixedGpuCount) {
  EstimateQuery q;
  q.model = "llama-3-70b";
  q.mode = "infer";
  q.precision = "fp16";
  q.tokens = 1000;
  q.engine = "ollama";
  auto bad = workload_from_query(q);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "--engine: \"ollama\" is not one of llama.cpp, vllm, sglang, tensorrt-llm, pytorch");
  q.engine = "vllm";
  q.gpus = 8;
  const std::vector<GpuSpec> catalog{card("hbm", "nvidia")};  // 48 GB: 70B fp16 needs 4
  auto r = estimate_workload(q, catalog, PriceTable{}, default_calibration());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->workload.engine, "vllm");
  ASSERT_EQ(r->gpus.size(), 1u);
  EXPECT_EQ(r->gpus[0].count, 8);
  q.gpus = 2;  // too few: no fit
  r = estimate_workload(q, catalog, PriceTable{}, default_calibration());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->gpus[0].count, 0);
  EXPECT_GT(2 * 70.6e9 / kGiB, 2 * usable_gib(catalog[0]));
}

// Two held-out rows of the validation table (bench/validation/held_out.csv), on the shipped
// catalog: their source never entered the fit, so these pin what the fit predicts, not what it
// was fitted to.
TEST(CostDecode, HeldOutRowsOfTheValidationTable) {
  const std::vector<GpuSpec> catalog = *load_gpu_catalog("/nonexistent-config-dir");
  struct Row {
    const char* gpu;
    const char* engine;
    const char* model;
    const char* precision;
    long context, tokens, concurrency;
    double measured, tolerance;
  };
  for (const Row& r : {
           // XiongjieDai/GPU-Benchmarks-on-LLM-Inference: llama.cpp tg512, Llama 3 8B Q4_K_M.
           Row{"RTX_4090", "llama.cpp", "llama-3-8b", "q4_k_m", 512, 512, 1, 130.58, 0.15},
           // The same source: Llama 3 8B F16 on an RTX 3090.
           Row{"RTX_3090", "llama.cpp", "llama-3-8b", "fp16", 512, 512, 1, 47.40, 0.15},
       }) {
    const GpuSpec* g = find_gpu(catalog, r.gpu);
    ASSERT_NE(g, nullptr) << r.gpu;
    Workload w = decode(r.engine);
    w.model = r.model;
    w.precision = r.precision;
    w.context_tokens = r.context;
    w.tokens = r.tokens;
    w.concurrency = r.concurrency;
    auto t = run_time(w, *g, 1, catalog, default_calibration());
    ASSERT_TRUE(t.ok()) << t.error().message;
    const double tokens_per_s = static_cast<double>(r.concurrency) / t->step_s;
    EXPECT_NEAR(tokens_per_s / r.measured, 1.0, r.tolerance) << r.gpu << ": " << tokens_per_s;
  }
}

TEST(CostDecode, BatchingRaisesThroughputUpToTheComputeRoof) {
  GpuSpec g = card("gddr", "nvidia");  // 1000 GB/s, 165.2 TFLOPS
  g.vram_gb = 192;                     // room for 2048 sequences' KV cache at 512 tokens
  const std::vector<GpuSpec> catalog{g};
  Workload w = decode("llama.cpp");
  w.context_tokens = 512;
  double last = 0;
  long roof = 0;
  for (long c = 1; c <= 2048; c *= 2) {
    w.concurrency = c;
    auto t = run_time(w, g, 1, catalog, default_calibration());
    ASSERT_TRUE(t.ok()) << t.error().message;
    const double tokens_per_s = static_cast<double>(c) / t->step_s;
    EXPECT_GT(tokens_per_s, last) << c;  // more sequences never lower throughput
    if (t->bound == "compute" && roof == 0) roof = c;
    if (roof == 0) {
      EXPECT_EQ(t->bound, "bandwidth") << c;
    }
    last = tokens_per_s;
  }
  ASSERT_GT(roof, 1);  // bandwidth-bound at batch 1, compute-bound by 2048 sequences
  // Past the roof, tokens/s approaches flops / (2 x params) and no more; each sequence's KV read
  // (512 tokens) still adds to its share of the step (the next test), so it stays a little under.
  const double ceiling = 165.2e12 * default_calibration().eta_compute / (2 * 8.03e9);
  EXPECT_LT(last, ceiling);
  EXPECT_GT(last, 0.7 * ceiling);
}

TEST(CostDecode, ADecodeStepsKvReadAddsToItsComputeBoundProducts) {
  // 1024 sequences of Llama 3 8B on the 165 TFLOPS card are compute-bound at any context here:
  // their matrix products take longer than every byte the step reads. The attention kernels'
  // KV read runs beside the products, not under them (bench/README.md, "A decode step's KV read
  // beside its matrix products"), so a longer context lengthens the step by its extra KV bytes
  // at the bandwidth, where a single roofline over all the bytes would leave it unchanged.
  GpuSpec g = card("gddr", "nvidia");
  g.vram_gb = 192;
  const std::vector<GpuSpec> catalog{g};
  Workload w = decode("llama.cpp");
  w.concurrency = 1024;
  auto step = [&](long context) {
    w.context_tokens = context;
    auto t = run_time(w, g, 1, catalog, default_calibration());
    EXPECT_TRUE(t.ok());
    EXPECT_EQ(t->bound, "compute") << context;
    return *t;
  };
  const RunTime short_ctx = step(256), long_ctx = step(640);
  const double eta_bw = effective_calibration(w, g, default_calibration()).eta_bw;
  const double extra_kv = long_ctx.read_bytes - short_ctx.read_bytes;
  ASSERT_GT(extra_kv, 0);
  EXPECT_NEAR(long_ctx.step_s - short_ctx.step_s, extra_kv / (1000e9 * eta_bw), 1e-9);
  // At batch 1 the step is bandwidth-bound and reads the weights and the KV once, as before.
  w.concurrency = 1;
  w.context_tokens = 640;
  auto one = run_time(w, g, 1, catalog, default_calibration());
  ASSERT_TRUE(one.ok());
  const Calibration cal = effective_calibration(w, g, default_calibration());
  EXPECT_NEAR(one->step_s, one->read_bytes / (1000e9 * cal.eta_bw) + cal.t0_s, 1e-9);
}

TEST(CostDecode, KvCapacityIsTheLargestConcurrencyThatFits) {
  // Llama 3 70B fp16 on 2 x 80 GB (77.9 GiB usable each): 131.5 GiB of weights leave 24.3 GiB;
  // a 4096-token sequence's KV cache is 2 x 80 x 8 x 128 x 4096 x 2 B = 1.25 GiB: 19 sequences.
  GpuSpec g = card("hbm", "nvidia");
  g.vram_gb = 80;
  Workload w = decode("llama.cpp");  // no server reservation (next test)
  w.model = "llama-3-70b";
  w.context_tokens = 4096;
  const long n = max_concurrency(w, g, 2);
  EXPECT_EQ(n, 19);
  w.concurrency = n;
  EXPECT_LE(memory_need(w)->total_gib(), 2 * usable_gib(g));
  w.concurrency = n + 1;
  EXPECT_GT(memory_need(w)->total_gib(), 2 * usable_gib(g));
  EXPECT_EQ(max_concurrency(w, g, 1), 0);  // the weights alone do not fit one card
  w.kv_precision = "fp8";                  // half the bytes per sequence: twice the sequences
  EXPECT_EQ(max_concurrency(w, g, 2), 38);
}

TEST(CostDecode, AServingEngineReservesItsShareAndAWorkspaceBeforeTheKvCache) {
  // Llama 3 8B fp16 (14.96 GiB) at 4096 tokens (0.5 GiB of KV each) on a 48 GB card: llama.cpp
  // keeps the usable 46.54 GiB (63 sequences); vLLM takes 0.9 of the card, 43.2 GiB, less the
  // activations of a profiling batch of 8192 tokens (8192 x (2 x 14336 + 4 x 4096) x 2 B =
  // 0.69 GiB): (43.2 - 0.69 - 14.96) / 0.5 = 55 sequences.
  const GpuSpec g = card("gddr", "nvidia");
  Workload w = decode("llama.cpp");
  w.context_tokens = 4096;
  EXPECT_EQ(max_concurrency(w, g, 1), 63);
  w.engine = "vllm";
  EXPECT_EQ(max_concurrency(w, g, 1), 55);
  w.engine = "sglang";
  EXPECT_EQ(max_concurrency(w, g, 1), 55);
}

TEST(CostDecode, SpecNamesTheEngineAndAGgufFormat) {
  const std::string head =
      "name: x\nrun: echo hi\nresources:\n  providers: [local]\nworkload:\n"
      "  kind: llm-inference\n  params_b: 8\n  precision: q4_k_m\n";
  std::vector<SpecError> errors;
  auto spec = parse_spec(head + "  engine: llama.cpp\n", "p.yaml", &errors, {"local"});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->workload.engine, "llama.cpp");
  EXPECT_EQ(spec->workload.precision, "q4_k_m");
  spec = parse_spec(head + "  engine: ollama\n", "p.yaml", &errors, {"local"});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message,
            "p.yaml:9:11: workload.engine: must be one of llama.cpp, vllm, sglang, tensorrt-llm, "
            "pytorch; got \"ollama\"");
}

}  // namespace
}  // namespace burst
