// Learned provisioning times (plan/boot_history.h).
#include "plan/boot_history.h"

#include <algorithm>
#include <cstdio>

#include "plan/image_pull.h"

namespace burst {
namespace {

std::string boot_fmt_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f s", s);
  return buf;
}

// (weight x prior + sum) / (weight + n) over the samples `match` accepts.
template <typename Match>
BootEstimate boot_blend(const std::vector<BootSample>& samples, double prior_s, Match match) {
  BootEstimate e;
  double sum = 0;
  for (const BootSample& s : samples)
    if (match(s)) {
      sum += provisioning_seconds(s);
      if (s.image_bytes <= 0) e.pull_excluded = false;
      ++e.runs;
    }
  e.seconds = (kBootPriorWeight * prior_s + sum) / (kBootPriorWeight + e.runs);
  return e;
}

}  // namespace

double provisioning_seconds(const BootSample& s) {
  if (s.image_bytes <= 0) return s.seconds;
  ImagePull pull;
  pull.bytes = s.image_bytes;
  return std::max(0.0, s.seconds - image_pull_seconds(pull, s.link_bps));
}

std::string BootEstimate::note(double prior_s) const {
  if (runs == 0) return "";
  return std::string(pull_excluded ? "provisioning " : "provisioning + image pull ") +
         boot_fmt_seconds(seconds) + ", learned from " + std::to_string(runs) +
         (runs == 1 ? " run" : " runs") + " on " + scope + " (prior " + boot_fmt_seconds(prior_s) +
         ")";
}

BootEstimate estimate_boot(const std::vector<BootSample>& samples, const std::string& provider,
                           const std::string& gpu_type, double prior_s) {
  BootEstimate by_provider =
      boot_blend(samples, prior_s, [&](const BootSample& s) { return s.provider == provider; });
  by_provider.scope = by_provider.runs > 0 ? provider : "";
  BootEstimate by_gpu = boot_blend(samples, by_provider.seconds, [&](const BootSample& s) {
    return s.provider == provider && s.gpu_type == gpu_type;
  });
  if (by_gpu.runs < kBootMinRunsPerGpu) return by_provider;
  by_gpu.scope = provider + " " + gpu_type;
  return by_gpu;
}

bool boot_sample_of(const JobRecord& job, const std::vector<PhaseRecord>& phases,
                    const std::vector<PodRecord>& pods, BootSample* out) {
  int64_t start = 0, end = 0;
  for (const PhaseRecord& p : phases) {
    const bool ok = p.outcome && *p.outcome == Outcome::kOk && p.ended_ms > 0;
    if (p.phase == Phase::kProvision && ok && start == 0) start = p.started_ms;
    if (p.phase == Phase::kWaitSsh && ok && end == 0) end = p.ended_ms;
  }
  if (start <= 0 || end <= start) return false;
  const double seconds = static_cast<double>(end - start) / 1000.0;
  if (seconds > kBootMaxSampleS) return false;
  for (const PodRecord& pod : pods)
    if (pod.role == "gpu") {
      *out = {job.provider.empty() ? pod.provider : job.provider, pod.gpu_type, seconds};
      return true;
    }
  return false;
}

}  // namespace burst
