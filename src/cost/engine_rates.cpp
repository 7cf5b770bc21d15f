// The tensor rate a workload's matrix products run at, and the prefill efficiency per serving
// engine. Every constant: docs/cost-model.md, "Prefill by engine" and "diffusion".
#include <algorithm>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"
#include "cost/fp32_rate.h"
#include "cost/sustained_rate.h"

namespace burst {

const std::vector<PrefillFit>& prefill_fits() {
  // Fitted by bench/validate_cost_model.py --fit on the fit set's prompt-processing rows only
  // (bench/validation/measurements.csv; no held-out row enters): least absolute log error of
  // tokens / s = tflops x eta / (2 x params), tflops as tensor_tflops() gives it for the engine;
  // an engine is fitted from three rows or more (every one below has five or more).
  static const std::vector<PrefillFit> kFits{
      // engine, eta_compute, fit-set rows
      // llama.cpp #4766 (RTX 3090, F16 and Q4_0), #26284 and #20934 (RX 7900 XTX), #6017 (A100)
      {"llama.cpp", 0.423, 5},
      // NVIDIA's TensorRT-LLM performance.md at v0.9.0: FP8, 2048-token prompts, one H200, H100
      // or L40S (rows 355-362)
      {"tensorrt-llm", 0.485, 8},
      // yizhongzoe-cloud/my-vllm-serving-system: vllm bench latency, 8K-64K prompts, one L40S or
      // RTX A6000 (rows 347-354); ninehills/llm-inference-benchmark: first token at 521 prompt
      // tokens on one RTX 4090, bf16 and AWQ (rows 363-364); SGLang takes it
      {"vllm", 0.553, 10},
  };
  return kFits;
}

namespace cost {

bool fp16_accumulates(const Workload& w, bool prefill) {
  const std::string p = effective_precision(w);
  if (p == "bf16" || p == "fp32" || p == "fp8") return false;
  // llama.cpp's CUDA backend multiplies f16 matrices through cuBLAS with FP16 accumulation
  // (ggml-cuda's CUBLAS_COMPUTE_16F path) and quantized ones through int8 tensor cores (MMQ).
  if (prefill) return w.engine == "llama.cpp";
  // Diffusion (PyTorch, diffusers) does not: PyTorch calls cuBLAS for fp16 with FP32
  // accumulation whatever allow_fp16_reduced_precision_reduction says (pytorch/pytorch#123157),
  // so a GeForce card runs it at the FP32-accumulate rate the catalog lists.
  return false;
}

double tensor_tflops(const Workload& w, const GpuSpec& gpu, bool fp16_accumulate) {
  // A power-capped card holds a fraction of its listed rate under continuous matrix work.
  const double sustained = sustained_tensor_fraction(gpu);
  if (effective_precision(w) == "fp8" && gpu.fp8_tflops) return *gpu.fp8_tflops * sustained;
  // fp32 runs on the CUDA cores (PyTorch keeps TF32 off for matmuls), where a rate is listed.
  // Training is priced as mixed precision (bf16 matrix products) whatever its precision says.
  if (effective_precision(w) == "fp32" && w.kind != "llm-training") {
    if (const auto fp32 = fp32_tflops(gpu)) return *fp32;
  }
  // GeForce cards run FP16 with FP32 accumulation at half the rate of FP16 accumulation, and the
  // catalog lists the former (include/burst/gpu_catalog.h; NVIDIA's Ampere GA102 and Ada
  // whitepapers: RTX 3090 71 / 142, RTX 4090 165.2 / 330.3 dense TFLOPS). Workstation and
  // datacenter cards run both at one rate.
  if (fp16_accumulate && gpu.vendor == "nvidia" && gpu.segment == "consumer")
    return 2 * gpu.fp16_tflops * sustained;
  return gpu.fp16_tflops * sustained;
}

double prefill_eta(const Workload& w, const Calibration& cal) {
  // SGLang (no rows of its own) takes vLLM's, as the decode fits do.
  const std::string like = w.engine == "tensorrt-llm" || w.engine == "sglang" ? "vllm" : w.engine;
  for (const std::string& engine : {w.engine, like}) {
    for (const PrefillFit& f : prefill_fits()) {
      if (engine.empty() || engine != f.engine) continue;
      // A history fit scales the prior's eta_compute; the engine's moves with it.
      const double prior = default_calibration().eta_compute;
      return std::min(1.0, prior > 0 ? f.eta_compute * cal.eta_compute / prior : f.eta_compute);
    }
  }
  return cal.eta_compute;
}

}  // namespace cost
}  // namespace burst
