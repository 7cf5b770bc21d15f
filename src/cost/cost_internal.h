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
// Default training activations: 2 x the bf16 weight bytes (when layers/hidden/context are absent).
inline constexpr double kTrainActivationBytesPerParam = 4;
// LoRA/QLoRA adapters: the trained fraction of the parameter count.
inline constexpr double kAdapterFraction = 0.01;
inline constexpr double kQloraBaseBytes = 0.5;
// Per-layer activation bytes per token per hidden unit with FlashAttention (Korthikanti et al.
// 2022, eq. 1 without the 5as/h attention-score term).
inline constexpr double kActivationBytesPerTokenHidden = 34;

// KV cache default: 10% of the fp16 weight bytes per 4096-token sequence.
inline constexpr double kKvDefaultFraction = 0.10;
inline constexpr long kKvDefaultContext = 4096;
inline constexpr double kKvBytesPerValue = 2;  // fp16 KV cache

// Diffusion: activation bytes per batch item per parameter, and effective tokens (latent
// positions) each parameter is applied to per item per denoising step.
inline constexpr double kDiffusionActivationBytesPerParam = 0.5;
inline constexpr long kDiffusionDefaultTokensPerItem = 256;

// Training: default tokens per optimizer step (batch 8 x 2048 tokens).
inline constexpr long kTrainDefaultBatch = 8;
inline constexpr long kTrainDefaultContext = 2048;

// "full" when the spec leaves it empty.
std::string training_mode(const Workload& w);

// params_b x 1e9, or kInvalid when missing or not positive.
Result<double> param_count(const Workload& w);

// The precision to use when the spec leaves it empty: fp16 (bf16 for LoRA's frozen weights).
std::string effective_precision(const Workload& w);

// "%g" without I/O headers leaking into messages.
std::string format_number(double v);

}  // namespace burst::cost
