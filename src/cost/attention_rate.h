// The rate of a denoiser's self-attention against its linear layers', by card and kernel.
// FlashAttention 2 issues the Ampere tensor instructions: it reaches 50-73% of an A100's peak but
// 35% of an H100's, where FlashAttention 3 (Hopper's own instructions) reaches 75%. On the cards
// built on the full Hopper die an FA2-class kernel's attention therefore runs at 0.35 / 0.73 of
// the share of the card's rate it reaches on an A100; every other card, and FA3, at 1. Figures and
// the cards listed: docs/cost-model.md, "Video", and bench/README.md, "The attention kernel on
// Hopper cards".
#pragma once

#include <string>

#include "burst/gpu_catalog.h"

namespace burst::cost {

// The share (0, 1] of the linear layers' rate `gpu` runs self-attention at with `kernel`
// ("" or "fa2": flash-attn 2.x and PyTorch SDPA's flash backend; "fa3").
double attention_kernel_share(const GpuSpec& gpu, const std::string& kernel);

}  // namespace burst::cost
