// Training memory by method. docs/cost-model.md ("llm-training") has the table and the checks
// against published peaks (bench/validation: torchtune fit rows, LitGPT held-out rows).
#include "cost/training_memory.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace burst::cost {
namespace {

// QLoRA (Dettmers et al. 2023, section 3): the frozen base is stored in NF4 and dequantized to
// bf16 for every matrix product, forward and backward (eqs. 5-6). The dequantized copy is
// transient; one decoder layer's weights in bf16 is its bound.
inline constexpr double kDequantizedLayers = 1;
// Hugging Face PEFT's prepare_model_for_kbit_training casts every parameter bitsandbytes did not
// quantize to fp32 (its docs: "cast the layernorm in fp32", "upcasting of the lm head to
// fp32"); transformers leaves the embeddings and the output head unquantized. torchtune keeps
// them bf16 and LitGPT quantizes the head, so this is the larger of the stacks in use.
inline constexpr double kQloraUnquantizedBytes = 4;
// LoRA's dropout on each adapter's input (lora_dropout 0.05 in the QLoRA paper's runs for models
// up to 13B and in LitGPT; PEFT and LitGPT apply it per adapter): the bf16 output the adapter's
// first matrix keeps for backward plus a one-byte mask, per input element.
inline constexpr double kLoraDropoutBytes = 3;

long train_positive_or(const std::optional<long>& v, long fallback) {
  return v && *v > 0 ? *v : fallback;
}

struct LoraProjection {
  const char* name;
  double in, out;
};

std::vector<LoraProjection> projections(const Shape& s) {
  const double q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  return {{"q", s.hidden, q},
          {"k", s.hidden, kv},
          {"v", s.hidden, kv},
          {"o", q, s.hidden},
          {"gate", s.hidden, s.intermediate},
          {"up", s.hidden, s.intermediate},
          {"down", s.intermediate, s.hidden}};
}

bool targeted(const Workload& w, const char* name) {
  return w.lora_targets.empty() ||
         std::find(w.lora_targets.begin(), w.lora_targets.end(), name) != w.lora_targets.end();
}

double micro_batch_tokens(const Workload& w) {
  return static_cast<double>(train_positive_or(w.batch, kTrainMemoryMicroBatch)) *
         static_cast<double>(train_positive_or(w.context_tokens, kTrainDefaultContext));
}

Result<bool> check_lora_inputs(const Workload& w, const std::string& mode) {
  for (const std::string& t : w.lora_targets) {
    if (!known_lora_target(t))
      return make_error(ErrorCode::kInvalid, "unknown lora target \"" + t +
                                                 "\" (expected q, k, v, o, gate, up or down)");
  }
  if (mode == "full" && (w.lora_rank || !w.lora_targets.empty()))
    return make_error(ErrorCode::kInvalid,
                      "workload.lora_rank and lora_targets only apply to mode lora or qlora");
  return true;
}

}  // namespace

bool known_lora_target(const std::string& name) {
  return std::any_of(std::begin(kLoraTargets), std::end(kLoraTargets),
                     [&](const char* t) { return name == t; });
}

double layer_activation_bytes_per_token(const Workload& w, const Shape& s, bool lora) {
  // Korthikanti et al. 2022 (section 4.1) count what each op keeps for backward, in 2-byte
  // values; for a Llama-style layer with FlashAttention (no attention scores, no dropout):
  // two RMSNorm inputs (2h each), the QKV input (2h), Q, K and V (2q + 4kv), the attention
  // output that o_proj reads (2q), the MLP input (2h), and gate, up, SiLU(gate) and the product
  // down_proj reads (4 x 2i). Llama 2 7B: 37.5 x hidden bytes per token.
  const double q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  double bytes = 8 * s.hidden + 4 * q + 4 * kv + 8 * s.intermediate;
  if (!lora) return bytes;
  const double rank = static_cast<double>(train_positive_or(w.lora_rank, kLoraDefaultRank));
  for (const LoraProjection& p : projections(s)) {
    if (targeted(w, p.name)) bytes += kLoraDropoutBytes * p.in + 2 * rank;
  }
  return bytes;
}

double adapter_params(const Workload& w, const Shape& s) {
  const double rank = static_cast<double>(train_positive_or(w.lora_rank, kLoraDefaultRank));
  double per_layer = 0;
  for (const LoraProjection& p : projections(s)) {
    if (targeted(w, p.name)) per_layer += p.in + p.out;
  }
  return rank * per_layer * s.layers;
}

Result<MemoryBreakdown> training_memory(const Workload& w, double params) {
  MemoryBreakdown m;
  const std::string mode = training_mode(w);
  if (mode != "full" && mode != "lora" && mode != "qlora")
    return make_error(ErrorCode::kInvalid,
                      "unknown llm-training mode \"" + mode + "\" (expected full, lora or qlora)");
  if (auto ok = check_lora_inputs(w, mode); !ok) return ok.error();
  const Shape s = shape_of(w, params);
  const bool lora = mode != "full";
  // Gradient checkpointing keeps each layer's bf16 input and recomputes one layer at a time in
  // backward (torch.utils.checkpoint per decoder layer, as Hugging Face and torchtune apply it).
  const bool checkpointing = w.gradient_checkpointing.value_or(lora);
  const double tokens = micro_batch_tokens(w);
  const double per_layer = layer_activation_bytes_per_token(w, s, lora) * tokens;
  const double kept =
      checkpointing ? kCheckpointBytesPerTokenHidden * s.hidden * tokens * s.layers + per_layer
                    : per_layer * s.layers;
  m.activations_gib = (kept + kLogitBytes * tokens * s.vocab) / kGiB;
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
  const double embeddings = std::min(params, s.vocab * s.hidden * (s.tied ? 1 : 2));
  double base = 0;
  if (mode == "qlora") {
    const double quantized = params - embeddings;
    base = kQloraBaseBytes * quantized + kQloraUnquantizedBytes * embeddings +
           kDequantizedLayers * kTrainWeightBytes * quantized / s.layers;
  } else {
    auto bpp = bytes_per_param(effective_precision(w));
    if (!bpp) return bpp.error();
    base = *bpp * params;
  }
  const double adapters = adapter_params(w, s);
  m.weights_gib = (base + kTrainWeightBytes * adapters) / kGiB;
  m.gradients_gib = kTrainGradBytes * adapters / kGiB;
  m.optimizer_gib = kTrainOptimizerBytes * adapters / kGiB;
  return m;
}

}  // namespace burst::cost
