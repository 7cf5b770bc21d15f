// Sustained tensor rates of power-capped cards. Contract: src/cost/sustained_rate.h.
#include "cost/sustained_rate.h"

#include <string>

namespace burst::cost {

namespace {

struct Sustained {
  const char* gpu;     // catalog name
  double fraction;     // sustained / catalog tensor rate
  const char* source;  // the measurement
};

// The T4's catalog rate, 65 TFLOPS FP16, is its 320 tensor cores at the 1590 MHz boost clock
// (NVIDIA T4 datasheet; base clock 585 MHz). Under continuous cuBLAS FP16 matrix products
// (4096^3, 100 iterations) it sustains about 24 TFLOPS, which NVIDIA's forum moderator
// attributes to power capping at its 70 W limit ("expected behavior for approximately
// continuous matrix multiply operations on a T4"): 24 / 65.
constexpr Sustained kSustained[] = {
    {"T4", 24.0 / 65.0, "https://forums.developer.nvidia.com/t/about-gpu-peak-performance/264462"},
};

}  // namespace

double sustained_tensor_fraction(const GpuSpec& gpu) {
  for (const Sustained& s : kSustained)
    if (gpu.name == s.gpu) return s.fraction;
  return 1.0;
}

}  // namespace burst::cost
