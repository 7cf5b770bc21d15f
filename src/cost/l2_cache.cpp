// L2 cache sizes per card. Contract: src/cost/l2_cache.h.
#include "cost/l2_cache.h"

namespace burst::cost {

namespace {

struct L2Size {
  const char* gpu;     // catalog name
  double mib;          // L2 cache, MiB
  const char* source;  // where the size is published
};

// HardwareLuxx's table of the RTX 50 and 40 series' caches, as reported by herosweb.com
// ("RTX 5090 | 21.7MB | 98.3MB", "RTX4090 | 16.3 MB | 72MB", "RTX5080 | 10.7MB | 65 MB",
// "RTX 4080/Super | 9.7MB | 64 MB": 98.3 and 65 are 98,304 and 65,536 KiB read in thousands,
// that is 96 and 64 MiB).
constexpr const char* kHwluxx =
    "herosweb.com/nvidia-rtx-5090-5080-is-reported-to-have-the-same-l1-cache-size-on-sm-compared-"
    "to-rtx-4090-4080 (HardwareLuxx's table)";

constexpr L2Size kL2[] = {
    {"RTX_4090", 72, kHwluxx},       {"RTX_4080", 64, kHwluxx}, {"RTX_4080_SUPER", 64, kHwluxx},
    {"RTX_5090", 96, kHwluxx},       {"RTX_5080", 64, kHwluxx},
};

// The smallest L2 of a card whose rows run a UNet past the roof (the RTX 4080's); the A100's
// 40 MB is the largest that keeps it.
constexpr double kRoofFreeL2Mib = 64;

}  // namespace

std::optional<double> l2_cache_mib(const GpuSpec& gpu) {
  for (const L2Size& s : kL2)
    if (gpu.name == s.gpu) return s.mib;
  return std::nullopt;
}

bool unet_activation_roof_applies(const GpuSpec& gpu) {
  const auto l2 = l2_cache_mib(gpu);
  return !(l2 && *l2 >= kRoofFreeL2Mib);
}

}  // namespace burst::cost
