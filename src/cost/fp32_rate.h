// The rate fp32 matrix products run at. PyTorch does not route fp32 matrix products through the
// tensor cores by default (TF32 is off for matmuls: torch.backends.cuda.matmul.allow_tf32 defaults
// to False since PyTorch 1.12; pytorch.org/docs/stable/notes/cuda.html, "TensorFloat-32 (TF32) on
// Ampere (and later) devices"), so an fp32 workload computes on the CUDA cores, at the card's
// FP32 (non-tensor) rate, a half to a fifteenth of its FP16 tensor rate. Only cards whose FP32
// rate is listed here from the vendor's datasheet or whitepaper have one; every other card keeps
// the catalog's tensor rate for fp32 (as before this table). Every figure: docs/cost-model.md,
// "FP32 rate".
#pragma once

#include <optional>

#include "burst/gpu_catalog.h"

namespace burst::cost {

// `gpu`'s peak FP32 (non-tensor) TFLOPS at its boost clock, dense; nullopt where none is listed.
std::optional<double> fp32_tflops(const GpuSpec& gpu);

}  // namespace burst::cost
