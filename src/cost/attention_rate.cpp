// Attention kernel shares by card. Contract: src/cost/attention_rate.h.
#include "cost/attention_rate.h"

namespace burst::cost {

namespace {

// FlashAttention 2: "50-73% of the theoretical maximum FLOPs/s on A100" (Dao 2023, arXiv
// 2307.08691) and "only 35% utilization on the H100 GPU" (Shah et al. 2024, arXiv 2407.08608),
// both forward passes at their best. FA3 reaches 75% on the H100 (the same paper): 1 here.
constexpr double kFa2OnHopper = 0.35 / 0.73;

// The full Hopper die at its listed rate. Not the H20: its 148 TFLOPS is 15% of the H100's 989,
// under the 35% FA2 reaches there, so the kernel is not what limits it.
constexpr const char* kHopper[] = {"H100_PCIE", "H100_NVL", "H100_SXM", "H800_SXM",
                                   "H200",      "H200_NVL", "GH200"};

}  // namespace

double attention_kernel_share(const GpuSpec& gpu, const std::string& kernel) {
  if (kernel == "fa3") return 1.0;
  for (const char* name : kHopper)
    if (gpu.name == name) return kFa2OnHopper;
  return 1.0;
}

}  // namespace burst::cost
