#include "plan/handoff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace burst {
namespace {

double billed(double seconds, double increment) {
  if (!(seconds > 0)) return 0;
  const double inc = increment > 0 ? increment : 1;
  return std::ceil(seconds / inc - 1e-9) * inc;
}

std::string option(const char* what, double usd, double s) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s $%.4f, %.0f s", what, usd, s);
  return buf;
}

}  // namespace

const char* to_string(Handoff h) {
  switch (h) {
    case Handoff::kCpuPod:
      return "cpu-pod";
    case Handoff::kGpuPod:
      return "gpu-pod";
    case Handoff::kLocal:
      return "local";  // not a provider name: the hand-off
  }
  return "?";
}

HandoffChoice choose_handoff(const HandoffInput& in) {
  HandoffChoice c;
  const double bytes = std::max(0.0, in.upload_bytes);
  c.gpu_pod_s = in.step_overhead_s + bytes / std::max(1.0, in.pod_uplink_bytes_per_s);
  c.local_s = in.step_overhead_s + bytes / std::max(1.0, in.home_uplink_bytes_per_s);
  // The GPU pod bills the increments the upload adds: with a known lifetime, the unused part of
  // its last increment is already paid for; without one, the upload's own time rounded up.
  const double before = std::max(0.0, in.gpu_seconds_before);
  const double extra_billed =
      billed(before + c.gpu_pod_s, in.billing_increment_s) - billed(before, in.billing_increment_s);
  c.gpu_pod_usd = extra_billed / 3600.0 * std::max(0.0, in.gpu_usd_per_hour);
  c.local_usd = 0;  // the user's machine and uplink cost the cloud bill nothing
  const std::string costs = "(" + option("GPU pod", c.gpu_pod_usd, c.gpu_pod_s) + "; " +
                            option("this machine", c.local_usd, c.local_s) + ")";
  if (!in.inputs_come_home) {
    c.where = Handoff::kGpuPod;
    c.why =
        "upload from the GPU pod before deleting it: the spec pulls no artefacts, so this "
        "machine would have nothing to upload " +
        costs;
    return c;
  }
  constexpr double kSameCost = 1e-6;  // dollars
  if (c.gpu_pod_usd < c.local_usd - kSameCost ||
      (std::abs(c.gpu_pod_usd - c.local_usd) <= kSameCost && c.gpu_pod_s < c.local_s)) {
    c.where = Handoff::kGpuPod;
    c.why =
        "upload from the GPU pod before deleting it: it fits in GPU time already billed, and "
        "is faster " +
        costs;
  } else {
    c.where = Handoff::kLocal;
    c.why =
        "upload from this machine after the pull: cheaper than keeping the GPU pod for it " + costs;
  }
  return c;
}

}  // namespace burst
