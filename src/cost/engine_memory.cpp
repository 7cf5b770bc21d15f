// What a serving engine leaves for the KV cache on a card: each engine reserves memory before
// sizing its cache, by its own documented rule (docs/cost-model.md, "llm-inference").
//   vLLM (and SGLang, which sizes a static share the same way): gpu_memory_utilization x the
//     driver's total, less the weights and the activations of its profiling batch;
//   TensorRT-LLM: free_gpu_memory_fraction of what is free once the weights and the activation
//     workspace are loaded (and the runtime's context is up);
//   each share workload.gpu_memory_utilization where given, else the engine's default, 0.9;
//   llama.cpp, PyTorch, none: the card's usable memory (usable_gib) less the weights.
// Memory is counted as the driver reports it (driver_vram_gib). Pure arithmetic; no I/O.
#include <algorithm>
#include <cctype>
#include <string>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst {

bool engine_reserves_share(const std::string& engine) {
  return engine == "vllm" || engine == "sglang" || engine == "tensorrt-llm";
}

long engine_max_sequences(const std::string& engine, const GpuSpec& gpu) {
  if (engine != "vllm") return 0;
  std::string id = gpu.name;
  std::transform(id.begin(), id.end(), id.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // vLLM compares the device's total memory, in GiB, and its name (PR #17885 kept A100s at 256).
  const bool large = driver_vram_gib(gpu) >= 70 && id.find("a100") == std::string::npos;
  return large ? 1024 : 256;
}

long engine_sequence_cap(const Workload& w, const GpuSpec& gpu) {
  return w.max_num_seqs ? *w.max_num_seqs : engine_max_sequences(w.engine, gpu);
}

double engine_memory_share(const Workload& w) {
  if (w.engine == "vllm" || w.engine == "sglang")
    return w.gpu_memory_utilization.value_or(cost::kServerMemoryUtilization);
  if (w.engine == "tensorrt-llm")
    return w.gpu_memory_utilization.value_or(cost::kTrtFreeMemoryFraction);
  return 1;
}

}  // namespace burst

namespace burst::cost {

double server_workspace_gib(const Workload& w) {
  auto total = param_count(w);
  const Shape s = shape_of(w, total ? *total : 0);
  return kServerBatchTokens * (2 * s.intermediate + 4 * s.hidden) * kServerActivationBytes / kGiB;
}

double kv_budget_gib(const Workload& w, const GpuSpec& gpu, int gpus, double weights_gib) {
  const double n = std::max(1, gpus);
  const double total = driver_vram_gib(gpu);
  if (w.engine == "vllm" || w.engine == "sglang") {
    return (total * engine_memory_share(w) - server_workspace_gib(w)) * n - weights_gib;
  }
  if (w.engine == "tensorrt-llm") {
    const double free_gib = (total - kVramReserveGib - server_workspace_gib(w)) * n - weights_gib;
    return engine_memory_share(w) * free_gib;
  }
  return usable_gib(gpu) * n - weights_gib;
}

}  // namespace burst::cost
