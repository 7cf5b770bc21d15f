// Where the upload step runs when the provider has no CPU pod that can mount the GPU pod's volume
// (ProviderTraits::cpu_pods false; Lambda: no CPU-only instances; Vast: volumes live on one
// machine). Two choices, priced by one
// pure function:
//   gpu-pod  run the upload on the GPU pod after the pull, before deleting it: costs the extra
//            GPU time it bills (rounded to the provider's billing increment; time already paid
//            for in the last increment is free);
//   local    run the upload on the user's machine after the pull: costs no cloud money, but the
//            bytes go out over the user's (slower) uplink.
// The cheaper wins; at equal cost, the faster. Formulas and the bandwidth assumptions:
// docs/cost-model.md, "CPU hand-off without CPU pods".
#pragma once

#include <string>

namespace burst {

enum class Handoff {
  kCpuPod,  // a CPU pod on the same volume (RunPod, local): the default
  kGpuPod,  // upload from the GPU pod before its delete
  kLocal,   // upload from the user's machine after the pull
};

const char* to_string(Handoff h);  // "cpu-pod" | "gpu-pod" | "local"

// Assumptions (documented; override per call). A cloud VM's uplink is far faster than a home
// one: 50 MB/s is a conservative figure for a data-centre instance, 2.5 MB/s (20 Mbit/s) a
// typical residential upload.
inline constexpr double kPodUplinkBytesPerS = 50e6;
inline constexpr double kHomeUplinkBytesPerS = 2.5e6;
inline constexpr double kUploadStepOverheadS = 10;    // starting the step, tool start-up
inline constexpr double kDefaultUploadBytes = 100e6;  // when nothing better is known

struct HandoffInput {
  double gpu_usd_per_hour = 0;     // the GPU offer, whole pod
  double billing_increment_s = 1;  // provider's billing granularity (plan/billing.h)
  double gpu_seconds_before = 0;   // estimated GPU pod lifetime up to the hand-off; 0 = unknown
  double upload_bytes = kDefaultUploadBytes;  // what the upload sends (artefact bytes estimate)
  bool inputs_come_home = true;  // the spec pulls artefacts, so the upload can read them locally
  double pod_uplink_bytes_per_s = kPodUplinkBytesPerS;
  double home_uplink_bytes_per_s = kHomeUplinkBytesPerS;
  double step_overhead_s = kUploadStepOverheadS;
};

struct HandoffChoice {
  Handoff where = Handoff::kCpuPod;
  double gpu_pod_usd = 0;  // extra GPU billing to upload from the GPU pod
  double gpu_pod_s = 0;
  double local_usd = 0;  // cloud cost of uploading from the user's machine (none)
  double local_s = 0;
  std::string why;  // one line: the choice, both costs, the reason

  double usd() const { return where == Handoff::kGpuPod ? gpu_pod_usd : local_usd; }
  double seconds() const { return where == Handoff::kGpuPod ? gpu_pod_s : local_s; }
};

HandoffChoice choose_handoff(const HandoffInput& in);

}  // namespace burst
