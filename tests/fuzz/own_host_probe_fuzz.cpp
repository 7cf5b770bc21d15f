// Fuzzes what your own hosts answer (providers/ssh/own_host_probe.h): parse_probe and
// parse_nvidia_smi read output a host prints. Invariants: no crash; at most kMaxGpus GPUs, each
// name printable and at most kMaxName bytes; a probe's work dir is absolute; the lock holder and
// any GPU error are printable; every GPU name maps onto a catalog-shaped name (no spaces).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "ssh/own_host_probe.h"

namespace {

bool printable(const std::string& s) {
  for (char c : s)
    if (c < 0x20 || c >= 0x7f) return false;
  return true;
}

void check_gpus(const std::vector<burst::ownhost::ProbedGpu>& gpus) {
  FUZZ_CHECK(gpus.size() <= burst::ownhost::kMaxGpus);
  for (const auto& g : gpus) {
    FUZZ_CHECK(!g.name.empty() && g.name.size() <= burst::ownhost::kMaxName);
    FUZZ_CHECK(printable(g.name));
    FUZZ_CHECK(g.memory_mib >= 0);
    const std::string type = burst::ownhost::catalog_gpu_name(g.name, g.memory_mib);
    FUZZ_CHECK(type.find(' ') == std::string::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto gpus = burst::ownhost::parse_nvidia_smi(text);
  if (gpus.ok())
    check_gpus(*gpus);
  else
    FUZZ_CHECK(printable(gpus.error().message));
  auto probe = burst::ownhost::parse_probe(text);
  if (probe.ok()) {
    check_gpus(probe->gpus);
    FUZZ_CHECK(!probe->work_dir.empty() && probe->work_dir[0] == '/');
    FUZZ_CHECK(printable(probe->lock_holder) && printable(probe->gpu_error));
    FUZZ_CHECK(probe->lock_holder.size() <= burst::ownhost::kMaxName);
  }
  return 0;
}
