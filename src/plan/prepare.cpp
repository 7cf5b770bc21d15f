#include "plan/prepare.h"

#include <algorithm>
#include <cstdio>

#include "plan/billing.h"
#include "plan/candidates.h"

namespace burst {
namespace {

std::string prepare_cost(const char* what, double usd, double s) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s $%.4f, %.0f s", what, usd, s);
  return buf;
}

}  // namespace

const char* to_string(PrepareWhere w) { return w == PrepareWhere::kCpuPod ? "cpu-pod" : "gpu-pod"; }

std::string PrepareChoice::label() const {
  if (expect_skip) return "skipped if every creates: path exists (checked on the GPU pod)";
  return to_string(where);
}

PrepareChoice choose_prepare(const PrepareInput& in) {
  PrepareChoice c;
  c.download_bytes = std::max(0.0, in.download_bytes);
  c.download_bps = in.download_bytes_per_s;
  c.download_s = kPrepareStepOverheadS + std::max(0.0, in.download_bytes) / in.download_bytes_per_s;
  c.gpu_pod_usd = c.download_s / 3600.0 * std::max(0.0, in.gpu_usd_per_hour);
  if (in.warm_volume && in.has_creates) {
    c.expect_skip = true;
    c.why =
        "warm volume: skipped if every creates: path exists (checked on the GPU pod before the "
        "step), else it runs there";
    return c;
  }
  const std::string gpu = prepare_cost("GPU pod", c.gpu_pod_usd, c.download_s);
  const std::string volume = in.warm_volume ? "volume staged before, but the step declares no "
                                              "creates:, so it runs again"
                                            : "cold volume";
  if (!in.cpu_pods) {
    c.why = volume + "; on the GPU pod: the provider has no CPU pods that mount the volume (" +
            gpu + ")";
    return c;
  }
  if (!in.cpu) {
    c.why = volume + "; on the GPU pod: no CPU offer to price (" + gpu + ")";
    return c;
  }
  const ProviderTraits& cpu_traits = traits_of(*in.cpu);
  c.cpu_pod_s = cpu_traits.boot_s + c.download_s;
  c.cpu_pod_usd = billed_seconds(cpu_traits.billing, c.cpu_pod_s) / 3600.0 *
                  std::max(0.0, in.cpu->usd_per_hour);
  const std::string costs =
      "(" + prepare_cost("CPU pod", c.cpu_pod_usd, c.cpu_pod_s) + "; " + gpu + ")";
  constexpr double kSameCost = 1e-6;  // dollars
  if (c.cpu_pod_usd < c.gpu_pod_usd - kSameCost) {
    c.where = PrepareWhere::kCpuPod;
    c.cpu = in.cpu;
    c.why = volume + "; on a CPU pod with the volume before the GPU pod exists: cheaper than " +
            "GPU time " + costs;
  } else {
    c.why = volume + "; on the GPU pod: a CPU pod would not be cheaper " + costs;
  }
  return c;
}

}  // namespace burst
