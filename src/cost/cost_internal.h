// Helpers shared by the memory and run-time halves of the cost model. Every constant here is
// explained in docs/cost-model.md.
#pragma once

#include <string>

#include "burst/result.h"
#include "burst/spec.h"

namespace burst::cost {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Full fine-tune with mixed-precision AdamW: bf16 weights, fp32 gradients, fp32 master weights and
// two fp32 moments.
inline constexpr double kTrainWeightBytes = 2;
inline constexpr double kTrainGradBytes = 4;
inline constexpr double kTrainOptimizerBytes = 12;
// LoRA/QLoRA: adapters of rank kLoraDefaultRank on every linear layer (attention q, k, v, o and
// the three MLP projections); their weights, gradients and AdamW state are the trained state.
inline constexpr long kLoraDefaultRank = 16;
// QLoRA: NF4 base weights with double quantization, 4 bits + 0.127 bits of constants per
// parameter (Dettmers et al. 2023, section 3); embeddings and the output head stay bf16.
inline constexpr double kQloraBaseBytes = 0.516;
// Per-layer activation bytes per token per hidden unit with FlashAttention (Korthikanti et al.
// 2022, eq. 1 without the 5as/h attention-score term). With gradient checkpointing each layer
// keeps only its bf16 input (2 bytes per token per hidden unit) and one layer's full set is live
// during its recomputation.
inline constexpr double kActivationBytesPerTokenHidden = 34;
inline constexpr double kCheckpointBytesPerTokenHidden = 2;
// Logits for the loss, bf16, one per vocabulary entry per token.
inline constexpr double kLogitBytes = 2;
// Memory defaults for training: micro-batch 1 of 2048 tokens.
inline constexpr long kTrainMemoryMicroBatch = 1;

// KV cache: fp16 unless workload.kv_precision says fp8; default context 4096 tokens.
inline constexpr long kKvDefaultContext = 4096;

// A model without a shape gets one derived from its size, the way dense decoders are built:
// params ~= 12 x layers x hidden^2 with layers ~= hidden / 128; head_dim 128; 8 KV heads
// (grouped-query attention, as every recent open model of 7B and up); a 32000-token vocabulary.
inline constexpr double kShapeHiddenPerLayer = 128;
inline constexpr long kDefaultKvHeads = 8;
inline constexpr long kDefaultHeadDim = 128;
inline constexpr long kDefaultVocab = 32000;

// Diffusion: activation bytes per batch item per parameter, and effective tokens (latent
// positions) each parameter is applied to per item per denoising step.
inline constexpr double kDiffusionActivationBytesPerParam = 0.5;
inline constexpr long kDiffusionDefaultTokensPerItem = 256;

// Training: default tokens per optimizer step for the run time (batch 8 x 2048 tokens).
inline constexpr long kTrainDefaultBatch = 8;
inline constexpr long kTrainDefaultContext = 2048;

// "full" when the spec leaves it empty.
std::string training_mode(const Workload& w);

// params_b x 1e9, or kInvalid when missing or not positive.
Result<double> param_count(const Workload& w);

// Parameters used per token: active_params_b for a mixture of experts, else the total.
double active_param_count(const Workload& w, double params);

// The transformer's shape, from the spec (or its model) where given, else derived from the size.
struct Shape {
  double layers, hidden, heads, kv_heads, head_dim, vocab, intermediate;
  bool tied;
};
Shape shape_of(const Workload& w, double params);

// The precision to use when the spec leaves it empty: fp16 (bf16 for LoRA's frozen weights).
std::string effective_precision(const Workload& w);

// "%g" without I/O headers leaking into messages.
std::string format_number(double v);

}  // namespace burst::cost
