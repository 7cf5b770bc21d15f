// Where the spec's `prepare:` step runs (burst/spec.h PrepareSpec), priced by one pure function.
// The step stages the volume (typically: downloads the model weights) before the GPU work:
//   cpu-pod  a CPU pod with the volume, created, used and deleted before the GPU pod exists:
//            costs the CPU pod's price over its boot plus the step's time;
//   gpu-pod  on the GPU pod, after SSH answers and before the code sync: costs the GPU's price
//            over the step's time;
//   skipped  expected on a warm volume when the step declares `creates:` (checked on the GPU pod
//            before the step would run; it runs there if a path is missing).
// On a cold volume the cheaper of the first two wins (at equal cost the GPU pod: one pod fewer);
// providers without CPU pods (ProviderTraits::cpu_pods false) or without a CPU offer run it on
// the GPU pod and the choice says so. The step's time is its download size over the cost model's
// cold-download rate (docs/cost-model.md, "Pre-staging").
#pragma once

#include <optional>
#include <string>

#include "burst/provider.h"
#include "plan/load_history.h"

namespace burst {

enum class PrepareWhere {
  kCpuPod,  // a CPU pod on the same volume, before the GPU pod
  kGpuPod,  // on the GPU pod, before the sync
};

const char* to_string(PrepareWhere w);  // "cpu-pod" | "gpu-pod"

// The step's own overhead (starting it, tool start-up), as for the upload hand-off.
inline constexpr double kPrepareStepOverheadS = 10;

struct PrepareInput {
  double gpu_usd_per_hour = 0;  // one GPU pod
  std::optional<Offer> cpu;     // the provider's cheapest CPU offer; none: no CPU pod to use
  bool cpu_pods = true;         // the provider rents CPU pods that mount the volume
  bool warm_volume = false;     // an earlier job of the pipeline succeeded (its volume is staged)
  bool has_creates = false;     // the step declares what it produces
  double download_bytes = 0;    // what the step fetches
  // Its download rate: the cold rate of plan/load_history.h (prior or learned).
  double download_bytes_per_s = kColdLoadBytesPerSecond;
};

struct PrepareChoice {
  PrepareWhere where = PrepareWhere::kGpuPod;
  bool expect_skip = false;  // warm volume with `creates:`: checked, probably not run
  std::optional<Offer> cpu;  // the CPU offer, when where == kCpuPod
  double download_s = 0;     // the step itself (overhead + download)
  // What it was priced to download, and at what rate (prior or learned: load_history.h).
  double download_bytes = 0;
  double download_bps = 0;
  double cpu_pod_s = 0;    // the CPU pod's lifetime for it (boot + step)
  double cpu_pod_usd = 0;  // billed under the CPU offer's rule
  double gpu_pod_usd = 0;  // the GPU's price over the step's time
  std::string why;         // one line: the decision, both costs, the reason

  // What the plan counts for the step: wall seconds before the GPU work, and dollars.
  double seconds() const {
    return expect_skip ? 0 : where == PrepareWhere::kCpuPod ? cpu_pod_s : download_s;
  }
  double usd() const {
    return expect_skip ? 0 : where == PrepareWhere::kCpuPod ? cpu_pod_usd : gpu_pod_usd;
  }
  // "cpu-pod" | "gpu-pod" | "skipped (if ...)": what the plan printout shows.
  std::string label() const;
};

PrepareChoice choose_prepare(const PrepareInput& in);

}  // namespace burst
