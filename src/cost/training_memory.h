// Training memory from the method (docs/cost-model.md, "llm-training"): what a full fine-tune,
// LoRA or QLoRA holds on the GPU at its peak, from the model's shape, the micro-batch, the
// adapters' rank and targets, and whether activations are checkpointed. Pure arithmetic; every
// constant cites its source in training_memory.cpp.
#pragma once

#include <string>

#include "burst/cost_model.h"
#include "burst/result.h"
#include "burst/spec.h"
#include "cost/cost_internal.h"

namespace burst::cost {

// The projections of a decoder layer that can carry LoRA adapters (workload.lora_targets,
// --lora-targets), in layer order. No targets named means all seven.
inline constexpr const char* kLoraTargets[] = {"q", "k", "v", "o", "gate", "up", "down"};
bool known_lora_target(const std::string& name);

// Activation bytes one token keeps in one decoder layer for the backward pass (bf16,
// FlashAttention, a SwiGLU MLP), plus the adapters' dropout copies when `lora`.
double layer_activation_bytes_per_token(const Workload& w, const Shape& s, bool lora);

// LoRA adapter parameters: rank x (in + out) for each targeted projection, per layer.
double adapter_params(const Workload& w, const Shape& s);

// The peak of an llm-training workload (`w` already shaped; `params` its parameter count).
// kInvalid for an unknown mode or target, or LoRA inputs given to a full fine-tune.
Result<MemoryBreakdown> training_memory(const Workload& w, double params);

}  // namespace burst::cost
