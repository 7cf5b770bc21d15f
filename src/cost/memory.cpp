// Memory half of the cost model: bytes per parameter, what a workload needs in GPU memory, and how
// many GPUs hold it. Formulas and defaults: docs/cost-model.md, "Memory".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"
#include "cost/training_memory.h"

namespace burst {
namespace cost {

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string training_mode(const Workload& w) { return w.mode.empty() ? "full" : w.mode; }

Result<double> param_count(const Workload& w) {
  if (!w.params_b) {
    return make_error(ErrorCode::kInvalid, "workload.params_b is required for kind " + w.kind);
  }
  if (!(*w.params_b > 0)) {
    return make_error(ErrorCode::kInvalid,
                      "workload.params_b must be > 0 (got " + format_number(*w.params_b) + ")");
  }
  return *w.params_b * 1e9;
}

std::string effective_precision(const Workload& w) {
  if (!w.precision.empty()) return w.precision;
  return w.kind == "llm-training" ? "bf16" : "fp16";
}

double active_param_count(const Workload& w, double params) {
  if (w.active_params_b && *w.active_params_b > 0 && *w.active_params_b * 1e9 < params)
    return *w.active_params_b * 1e9;
  return params;
}

Shape shape_of(const Workload& w, double params) {
  auto given = [](const std::optional<long>& v) { return v && *v > 0; };
  Shape s{};
  // hidden from params ~= 12 x (hidden / 128) x hidden^2, unless given.
  s.hidden = given(w.hidden) ? static_cast<double>(*w.hidden)
                             : std::cbrt(params * kShapeHiddenPerLayer / 12.0);
  s.layers = given(w.layers) ? static_cast<double>(*w.layers)
                             : std::max(1.0, std::round(s.hidden / kShapeHiddenPerLayer));
  if (!given(w.hidden) && given(w.layers)) s.hidden = std::sqrt(params / (12.0 * s.layers));
  s.head_dim = given(w.head_dim) ? static_cast<double>(*w.head_dim)
               : given(w.heads) && given(w.hidden)
                   ? static_cast<double>(*w.hidden) / static_cast<double>(*w.heads)
                   : static_cast<double>(kDefaultHeadDim);
  s.heads = given(w.heads) ? static_cast<double>(*w.heads) : std::max(1.0, s.hidden / s.head_dim);
  s.kv_heads = given(w.kv_heads) ? static_cast<double>(*w.kv_heads)
                                 : std::min(s.heads, static_cast<double>(kDefaultKvHeads));
  s.vocab = static_cast<double>(given(w.vocab) ? *w.vocab : kDefaultVocab);
  s.intermediate =
      given(w.intermediate) ? static_cast<double>(*w.intermediate) : 8.0 / 3 * s.hidden;
  s.tied = w.tied_embeddings.value_or(false);
  return s;
}

namespace {

long positive_or(const std::optional<long>& v, long fallback) {
  return v && *v > 0 ? *v : fallback;
}

// KV cache for every concurrent sequence at the context it uses: 2 (K and V) x layers x KV heads
// x head_dim x tokens x bytes per value.
Result<double> kv_cache_bytes(const Workload& w, const Shape& s) {
  double per_value = 2;
  if (!w.kv_precision.empty()) {
    if (w.kv_precision != "fp16" && w.kv_precision != "bf16" && w.kv_precision != "fp8")
      return make_error(ErrorCode::kInvalid, "unknown kv_precision \"" + w.kv_precision +
                                                 "\" (expected fp16, bf16 or fp8)");
    per_value = w.kv_precision == "fp8" ? 1 : 2;
  }
  const double context = static_cast<double>(positive_or(w.context_tokens, kKvDefaultContext));
  const double sequences = static_cast<double>(positive_or(w.concurrency, 1));
  // Layers with local attention keep only their window of each sequence, where the engine caches
  // them apart and prunes what left the window (llama.cpp's SWA cache since ggml-org/llama.cpp
  // #13194, 2025-04); the others keep the whole context. An engine without that holds the whole
  // context in every layer: a spec's window_layers: 0 prices that.
  const double windowed = windowed_layers(w, s.layers);
  const double window =
      windowed > 0 ? std::min(context, static_cast<double>(*w.attention_window)) : context;
  const double token_layers = (s.layers - windowed) * context + windowed * window;
  // Latent attention caches one compressed vector a layer and token, not keys and values per head.
  const double values = w.kv_latent && *w.kv_latent > 0 ? static_cast<double>(*w.kv_latent)
                                                        : 2.0 * s.kv_heads * s.head_dim;
  return values * token_layers * sequences * per_value;
}

}  // namespace
}  // namespace cost

Result<double> bytes_per_param(const std::string& precision) {
  if (precision == "fp32") return 4.0;
  if (precision == "fp16" || precision == "bf16") return 2.0;
  if (precision == "fp8" || precision == "int8") return 1.0;
  if (precision == "int4") return 0.5;
  // GGUF formats at their real size (llama.cpp ggml-quants block layouts): Q8_0 and Q4_0 store 32
  // weights with one fp16 scale, 34 and 18 bytes (8.5 and 4.5 bits); Q4_K_M mixes Q4_K and Q6_K
  // tensors, 4.85 bits on average (Llama 3 8B 4.58 GiB, 70B 39.59 GiB as llama.cpp reports).
  if (precision == "q8_0") return 8.5 / 8;
  if (precision == "q4_k_m") return 4.85 / 8;
  if (precision == "q4_0") return 4.5 / 8;
  return make_error(ErrorCode::kInvalid,
                    "unknown precision \"" + precision +
                        "\" (expected fp32, fp16, bf16, fp8, int8, int4, q8_0, q4_k_m or q4_0)");
}

Result<MemoryBreakdown> memory_need(const Workload& spec_w) {
  using namespace cost;
  auto shaped = with_model_shape(spec_w);
  if (!shaped) return shaped.error();
  const Workload& w = *shaped;
  if (w.kind == "custom") {
    MemoryBreakdown m;
    if (!w.params_b) return m;  // capacity unknown: the planner relies on min_vram_gb instead
    auto params = param_count(w);
    if (!params) return params.error();
    auto bpp = bytes_per_param(effective_precision(w));
    if (!bpp) return bpp.error();
    m.weights_gib = *bpp * *params / kGiB;
    return m;
  }
  if (w.kind != "llm-inference" && w.kind != "llm-training" && w.kind != "diffusion") {
    return make_error(ErrorCode::kInvalid, "unknown workload kind \"" + w.kind +
                                               "\" (expected llm-inference, llm-training, "
                                               "diffusion or custom)");
  }
  auto params = param_count(w);
  if (!params) return params.error();
  if (w.kind == "llm-training") return training_memory(w, *params);

  auto bpp = bytes_per_param(effective_precision(w));
  if (!bpp) return bpp.error();
  MemoryBreakdown m;
  m.weights_gib = *bpp * *params / kGiB;
  if (w.kind == "llm-inference") {
    auto kv = kv_cache_bytes(w, shape_of(w, *params));
    if (!kv) return kv.error();
    m.kv_cache_gib = *kv / kGiB;
  } else {  // diffusion: the pipeline's parts by phase
    return diffusion_memory(w, *params, *bpp);
  }
  return m;
}

double usable_gib(const GpuSpec& gpu) {
  return std::max(0.0, driver_vram_gib(gpu) * (1.0 - kVramHeadroom) - kVramReserveGib);
}

long max_concurrency(const Workload& spec_w, const GpuSpec& gpu, int gpus) {
  if (spec_w.kind != "llm-inference" || gpus < 1) return 0;
  // A named tensor-parallel size runs gpus / N copies, each holding the weights on its own N
  // cards: the copies' sequences add up, their memory does not pool (spare cards hold nothing).
  if (spec_w.tensor_parallel && *spec_w.tensor_parallel < gpus) {
    auto l = tensor_parallel_layout(spec_w, gpus);
    if (!l) return 0;
    return l->replicas * max_concurrency(spec_w, gpu, l->group);
  }
  Workload one = spec_w;
  one.concurrency = 1;
  auto m = memory_need(one);
  if (!m || !(m->kv_cache_gib > 0)) return 0;
  auto shaped = with_model_shape(one);
  // What the engine leaves for the KV cache (src/cost/engine_memory.cpp): a batching server
  // reserves its share and a workspace first.
  const double free_gib = cost::kv_budget_gib(shaped ? *shaped : one, gpu, gpus, m->weights_gib);
  if (free_gib < m->kv_cache_gib) return 0;
  return static_cast<long>(std::min(1e9, std::floor(free_gib / m->kv_cache_gib)));
}

bool engine_holds(const Workload& w, const GpuSpec& gpu, int gpus) {
  if (w.kind != "llm-inference") return true;
  if (!engine_reserves_share(w.engine)) return true;
  return max_concurrency(w, gpu, gpus) >= std::max<long>(1, w.concurrency.value_or(1));
}

Workload engine_admits(const Workload& w, const GpuSpec& gpu, int gpus) {
  if (w.kind != "llm-inference" || !engine_reserves_share(w.engine) || gpus < 1) return w;
  const long asked = std::max<long>(1, w.concurrency.value_or(1));
  if (asked <= 1) return w;
  // One copy's cards: the named tensor-parallel group, else all of them (parallel_layout's group
  // when no smaller one holds the work).
  int group = gpus;
  long replicas = 1;
  if (w.tensor_parallel) {
    auto l = tensor_parallel_layout(w, gpus);
    if (!l) return w;
    group = l->group;
    replicas = l->replicas;
  }
  Workload copy = w;
  copy.tensor_parallel.reset();
  long holds = max_concurrency(copy, gpu, group);
  if (const long cap = engine_sequence_cap(w, gpu); cap > 0) holds = std::min(holds, cap);
  // Without items the copies split the requested sequences; with items each runs a batch.
  const long per_copy = w.items ? asked : (asked + replicas - 1) / replicas;
  if (holds < 1 || holds >= per_copy) return w;
  Workload run = w;
  if (!run.items) run.items = asked;
  run.concurrency = holds;
  return run;
}

long sequences_at_once(const Workload& w, const GpuSpec& gpu, int gpus) {
  const long asked = std::max<long>(1, w.concurrency.value_or(1));
  const Workload run = engine_admits(w, gpu, gpus);
  if (run.concurrency == w.concurrency || !run.concurrency) return asked;
  long copies = 1;
  if (w.tensor_parallel) {
    if (auto l = tensor_parallel_layout(w, gpus)) copies = l->replicas;
  }
  return std::min(asked, *run.concurrency * copies);
}

int gpus_to_run(const Workload& w, const GpuSpec& gpu) {
  const int n = gpus_needed(w, gpu);
  if (n > 0 || w.kind != "llm-inference" || !engine_reserves_share(w.engine)) return n;
  Workload one = w;
  one.concurrency = 1;
  return gpus_needed(one, gpu);
}

double diffusion_card_gib(const Workload& spec_w) {
  if (spec_w.kind != "diffusion" || spec_w.sequence_parallel) return 0;
  auto shaped = with_model_shape(spec_w);
  if (!shaped) return 0;
  const Workload& w = *shaped;
  if (!w.resolution && !w.audio_seconds) return 0;
  auto params = cost::param_count(w);
  auto bpp = bytes_per_param(cost::effective_precision(w));
  if (!params || !bpp) return 0;
  auto p = diffusion_memory_parts(w, *params, *bpp);
  if (!p) return 0;
  // The denoiser's phase of the peak, alone on its card (the encoders and VAE on the others).
  DiffusionMemoryParts denoiser = *p;
  denoiser.encoders_gib = denoiser.vae_gib = 0;
  if (denoiser.offload == "model") denoiser.experts = 1;
  return cost::diffusion_peak(denoiser).total_gib();
}

int gpus_needed(const Workload& w, const GpuSpec& gpu) {
  auto need = memory_need(w);
  if (!need) return 0;
  if (diffusion_card_gib(w) > usable_gib(gpu)) return 0;
  const int n = gpus_needed(*need, gpu);
  if (n == 0 || engine_holds(w, gpu, n)) return n;
  for (int k : {2, 4}) {
    if (k > n && engine_holds(w, gpu, k)) return k;
  }
  for (int k = 8; k <= kMaxGpus; k += 8) {
    if (k > n && engine_holds(w, gpu, k)) return k;
  }
  return 0;
}

int gpus_needed(const MemoryBreakdown& need, const GpuSpec& gpu) {
  const double each = usable_gib(gpu);
  if (each <= 0) return 0;
  const double need_gib = need.total_gib();
  for (int n : {1, 2, 4}) {
    if (n * each >= need_gib) return n;
  }
  for (int n = 8; n <= kMaxGpus; n += 8) {
    if (n * each >= need_gib) return n;
  }
  return 0;
}

}  // namespace burst
