// find_gpu (burst/gpu_catalog.h): a lookup over contract types, here so that both the catalog's
// reader (config) and the cost model (cost) reach it without config linking cost.
#include "burst/gpu_catalog.h"

namespace burst {

const GpuSpec* find_gpu(const std::vector<GpuSpec>& catalog, const std::string& name) {
  for (const GpuSpec& gpu : catalog) {
    if (gpu.name == name) return &gpu;
  }
  return nullptr;
}

}  // namespace burst
