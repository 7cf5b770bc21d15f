// Memory half of the cost model: bytes per parameter, what a workload needs in GPU memory, and how
// many GPUs hold it. Formulas and defaults: docs/cost-model.md, "Memory".
#include <cstdio>
#include <string>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

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

namespace {

long positive_or(const std::optional<long>& v, long fallback) {
  return v && *v > 0 ? *v : fallback;
}

// Training activations: Korthikanti et al. with FlashAttention when the shape is known, else
// 2 x the bf16 weight bytes.
double training_activation_bytes(const Workload& w, double params) {
  if (w.layers && w.hidden && w.context_tokens && *w.layers > 0 && *w.hidden > 0 &&
      *w.context_tokens > 0) {
    const double batch = static_cast<double>(positive_or(w.batch, 1));
    return kActivationBytesPerTokenHidden * static_cast<double>(*w.context_tokens) * batch *
           static_cast<double>(*w.hidden) * static_cast<double>(*w.layers);
  }
  return kTrainActivationBytesPerParam * params;
}

// KV cache for every concurrent sequence at its full context.
double kv_cache_bytes(const Workload& w, double params) {
  const double context = static_cast<double>(positive_or(w.context_tokens, kKvDefaultContext));
  const double sequences = static_cast<double>(positive_or(w.concurrency, 1));
  if (w.layers && w.hidden && w.kv_heads && w.heads && *w.layers > 0 && *w.hidden > 0 &&
      *w.kv_heads > 0 && *w.heads > 0) {
    const double head_dim = static_cast<double>(*w.hidden) / static_cast<double>(*w.heads);
    return 2.0 * static_cast<double>(*w.layers) * static_cast<double>(*w.kv_heads) * head_dim *
           context * sequences * kKvBytesPerValue;
  }
  return kKvDefaultFraction * (2.0 * params) * (context / kKvDefaultContext) * sequences;
}

Result<MemoryBreakdown> training_memory(const Workload& w, double params) {
  MemoryBreakdown m;
  const std::string mode = cost::training_mode(w);
  m.activations_gib = training_activation_bytes(w, params) / kGiB;
  if (mode == "full") {
    if (!w.precision.empty()) {
      auto bpp = bytes_per_param(w.precision);  // validated, but mixed precision is assumed
      if (!bpp) return bpp.error();
    }
    m.weights_gib = kTrainWeightBytes * params / kGiB;
    m.gradients_gib = kTrainGradBytes * params / kGiB;
    m.optimizer_gib = kTrainOptimizerBytes * params / kGiB;
    return m;
  }
  if (mode != "lora" && mode != "qlora") {
    return make_error(ErrorCode::kInvalid,
                      "unknown llm-training mode \"" + mode + "\" (expected full, lora or qlora)");
  }
  double base_bpp = kQloraBaseBytes;
  if (mode == "lora") {
    auto bpp = bytes_per_param(effective_precision(w));
    if (!bpp) return bpp.error();
    base_bpp = *bpp;
  }
  const double adapters = kAdapterFraction * params;
  m.weights_gib = (base_bpp * params + kTrainWeightBytes * adapters) / kGiB;
  m.gradients_gib = kTrainGradBytes * adapters / kGiB;
  m.optimizer_gib = kTrainOptimizerBytes * adapters / kGiB;
  return m;
}

}  // namespace
}  // namespace cost

Result<double> bytes_per_param(const std::string& precision) {
  if (precision == "fp32") return 4.0;
  if (precision == "fp16" || precision == "bf16") return 2.0;
  if (precision == "fp8" || precision == "int8") return 1.0;
  if (precision == "int4") return 0.5;
  return make_error(ErrorCode::kInvalid, "unknown precision \"" + precision +
                                             "\" (expected fp32, fp16, bf16, fp8, int8 or int4)");
}

Result<MemoryBreakdown> memory_need(const Workload& w) {
  using namespace cost;
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
    m.kv_cache_gib = kv_cache_bytes(w, *params) / kGiB;
  } else {  // diffusion
    const double batch = static_cast<double>(positive_or(w.batch, 1));
    m.activations_gib = kDiffusionActivationBytesPerParam * *params * batch / kGiB;
  }
  return m;
}

int gpus_needed(const MemoryBreakdown& need, const GpuSpec& gpu) {
  const double need_bytes = need.total_gib() * cost::kGiB;
  const double usable_each = gpu.vram_gb * 1e9 * (1.0 - kVramHeadroom);
  if (usable_each <= 0) return 0;
  for (int n : {1, 2, 4, 8}) {
    if (n * usable_each >= need_bytes) return n;
  }
  return 0;
}

}  // namespace burst
