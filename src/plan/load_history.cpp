// Learned weight-load rates (plan/load_history.h).
#include "plan/load_history.h"

#include <cstdio>

#include "plan/prepare.h"

namespace burst {
namespace {

std::string load_fmt_rate(double bytes_per_s) {
  char buf[32];
  if (bytes_per_s >= 999.5e6)  // what would print as "1000 MB/s"
    std::snprintf(buf, sizeof buf, "%.1f GB/s", bytes_per_s / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.0f MB/s", bytes_per_s / 1e6);
  return buf;
}

}  // namespace

std::string LoadRate::note(double weight_bytes) const {
  char size[32];
  std::snprintf(size, sizeof size, "%.1f GB", weight_bytes / 1e9);
  std::string s = "weight load " + std::string(size) + " at " + load_fmt_rate(bytes_per_s);
  if (warm) {
    s += " (warm volume)";
    if (runs == 0) return s + ", prior; no volume read measured yet";
    return s + ", learned from " + std::to_string(runs) +
           (runs == 1 ? " volume read" : " volume reads") + " on " + scope + " (prior " +
           load_fmt_rate(prior_bps > 0 ? prior_bps : kWarmLoadBytesPerSecond) + ")";
  }
  s += " (cold volume: downloaded on first use)";
  if (runs == 0) return s + ", prior; no prepare step measured yet";
  return s + ", learned from " + std::to_string(runs) +
         (runs == 1 ? " prepare step" : " prepare steps") + " on " + scope + " (prior " +
         load_fmt_rate(prior_bps > 0 ? prior_bps : kColdLoadBytesPerSecond) + ")";
}

LoadRate weight_load_rate(const std::vector<LoadSample>& samples, const std::string& provider,
                          bool warm_volume, double prior_bps) {
  LoadRate r;
  r.warm = warm_volume;
  const double prior = prior_bps > 0 ? prior_bps
                       : warm_volume ? kWarmLoadBytesPerSecond
                                     : kColdLoadBytesPerSecond;
  r.prior_bps = prior;
  double s_per_byte = kLoadPriorWeight / prior;
  for (const LoadSample& s : samples)
    if (s.warm == warm_volume && s.provider == provider && s.bytes > 0 && s.seconds > 0) {
      s_per_byte += s.seconds / s.bytes;
      ++r.runs;
    }
  r.bytes_per_s = r.runs == 0 ? prior : (kLoadPriorWeight + r.runs) / s_per_byte;
  if (r.runs > 0) r.scope = provider;
  return r;
}

double weight_load_seconds(double weight_bytes, const LoadRate& rate) {
  return weight_bytes > 0 && rate.bytes_per_s > 0 ? weight_bytes / rate.bytes_per_s : 0;
}

bool load_sample_of(const std::string& provider, double download_bytes,
                    const std::vector<PhaseRecord>& phases, LoadSample* out) {
  if (!(download_bytes >= kLoadMinSampleBytes)) return false;
  for (const PhaseRecord& p : phases) {
    if (p.phase != Phase::kPrepare) continue;
    if (!p.outcome || *p.outcome != Outcome::kOk || p.ended_ms <= p.started_ms) return false;
    const double seconds =
        static_cast<double>(p.ended_ms - p.started_ms) / 1000.0 - kPrepareStepOverheadS;
    if (seconds <= 0) return false;
    *out = {provider, download_bytes, seconds};
    return true;
  }
  return false;
}

bool warm_read_sample_of(const std::string& provider, const std::vector<TransferRecord>& transfers,
                         LoadSample* out) {
  for (const TransferRecord& t : transfers) {
    if (t.direction != kVolumeReadDirection) continue;
    if (!(static_cast<double>(t.bytes) >= kWarmReadMinSampleBytes) || t.millis <= 0) return false;
    if (static_cast<double>(t.bytes) / (static_cast<double>(t.millis) / 1000.0) >
        kWarmReadMaxBytesPerSecond)
      return false;
    *out = {provider, static_cast<double>(t.bytes), static_cast<double>(t.millis) / 1000.0, true};
    return true;
  }
  return false;
}

}  // namespace burst
