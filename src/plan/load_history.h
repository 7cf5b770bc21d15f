// Weight load from evidence: how fast weights reach a pod, per provider, from this machine's own
// runs. A run's `prepare:` step (plan/prepare.h) downloads the weights onto the volume, so its
// measured time (less kPrepareStepOverheadS) over the bytes the plan said it fetches is one sample
// of the cold rate (weights downloaded on first use). The constant kColdLoadBytesPerSecond is only
// the prior, weighted as kLoadPriorWeight runs: with n samples the seconds per byte are
// (kLoadPriorWeight / prior + sum of each sample's seconds / bytes) / (kLoadPriorWeight + n).
// No phase reads an already staged volume, so the warm rate (kWarmLoadBytesPerSecond) is always
// the prior, and the plan says so. Pure arithmetic; app/plan_with_history.cpp reads the store, and
// `burst plan` and `burst run` both plan through it. docs/cost-model.md, "What the planner adds".
#pragma once

#include <string>
#include <vector>

#include "burst/store.h"

namespace burst {

// Reading weights from a network volume that has them (warm), and downloading them from a model
// hub on first use (cold): the priors.
inline constexpr double kWarmLoadBytesPerSecond = 1.0e9;
inline constexpr double kColdLoadBytesPerSecond = 100e6;
inline constexpr double kLoadPriorWeight = 2;  // the prior counts as this many samples
inline constexpr int kLoadHistoryJobs = 50;    // newest jobs read per plan
// A step that moved less than this says more about its overhead than about the link: left out.
inline constexpr double kLoadMinSampleBytes = 100e6;

struct LoadSample {
  std::string provider;
  double bytes = 0;    // what the prepare step was planned to download
  double seconds = 0;  // the step's measured time less its fixed overhead
};

struct LoadRate {
  double bytes_per_s = 0;
  bool warm = false;
  int runs = 0;       // samples behind it; 0 = the prior alone
  std::string scope;  // the provider, when learned
  // "weight load 16.1 GB at 240 MB/s (cold volume: downloaded on first use), learned from 3
  // prepare steps on runpod (prior 100 MB/s)"; with no samples "... (prior; no prepare step
  // measured yet)"; warm "... (warm volume: prior; no volume read is measured)".
  std::string note(double weight_bytes) const;
};

LoadRate weight_load_rate(const std::vector<LoadSample>& samples, const std::string& provider,
                          bool warm_volume);
// bytes / rate; 0 for no bytes.
double weight_load_seconds(double weight_bytes, const LoadRate& rate);

// The sample of one finished job: its prepare step that ended ok (not skipped), when the plan
// recorded how many bytes it downloads. False when the job has no such measurement.
bool load_sample_of(const std::string& provider, double download_bytes,
                    const std::vector<PhaseRecord>& phases, LoadSample* out);

}  // namespace burst
