// Weight load from evidence: how fast weights reach a pod, per provider, from this machine's own
// runs. A run's `prepare:` step (plan/prepare.h) downloads the weights onto the volume, so its
// measured time (less kPrepareStepOverheadS) over the bytes the plan said it fetches is one sample
// of the cold rate (weights downloaded on first use). The constant kColdLoadBytesPerSecond is only
// the prior, weighted as kLoadPriorWeight runs: with n samples the seconds per byte are
// (kLoadPriorWeight / prior + sum of each sample's seconds / bytes) / (kLoadPriorWeight + n).
// The warm rate (reading weights a volume already holds) is learned the same way, from the reads
// a warm job times on its pod when its prepare step is skipped (job/volume_read.h: a bounded read
// of the largest `creates:` file that bypasses the page cache), recorded as the job's
// "volume-read" transfer; kWarmLoadBytesPerSecond is that rate's prior. Pure arithmetic;
// app/plan_with_history.cpp reads the store, and `burst plan` and `burst run` both plan through
// it. docs/cost-model.md, "What the planner adds".
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
// A warm read shorter than this is mostly the volume's first-byte latency: left out. The pod reads
// at most 256 MiB (job/volume_read.h), so a model file gives a full sample.
inline constexpr double kWarmReadMinSampleBytes = 32.0 * 1024 * 1024;
// The pod times its own read, so a pod can lie: a rate above this (faster than any NVMe or network
// volume a pod mounts; a PCIe 5 x16 link carries about 63 GB/s) is a lie or a cache, left out.
inline constexpr double kWarmReadMaxBytesPerSecond = 30e9;
// The TransferRecord direction of a warm volume read (job/volume_read.h).
inline constexpr const char* kVolumeReadDirection = "volume-read";

struct LoadSample {
  std::string provider;
  double bytes = 0;    // cold: what the prepare step was planned to download; warm: bytes read
  double seconds = 0;  // cold: the step's measured time less its fixed overhead; warm: the read's
  bool warm = false;   // a read of a staged volume (teaches the warm rate), else a download
};

struct LoadRate {
  double bytes_per_s = 0;
  bool warm = false;
  int runs = 0;          // samples behind it; 0 = the prior alone
  std::string scope;     // the provider, when learned
  double prior_bps = 0;  // the prior the samples were weighed against
  // "weight load 16.1 GB at 240 MB/s (cold volume: downloaded on first use), learned from 3
  // prepare steps on runpod (prior 100 MB/s)"; with no samples "..., prior; no prepare step
  // measured yet". Warm: "weight load 16.1 GB at 1.4 GB/s (warm volume), learned from 2 volume
  // reads on runpod (prior 1.0 GB/s)", or "... (warm volume), prior; no volume read measured yet".
  std::string note(double weight_bytes) const;
};

// The provider's warm or cold rate from the samples of that kind (the prior weighted as
// kLoadPriorWeight samples).
// `prior_bps` > 0 replaces the constant prior (the storage's rate, plan/weight_source.h).
LoadRate weight_load_rate(const std::vector<LoadSample>& samples, const std::string& provider,
                          bool warm_volume, double prior_bps = 0);
// bytes / rate; 0 for no bytes.
double weight_load_seconds(double weight_bytes, const LoadRate& rate);

// The sample of one finished job: its prepare step that ended ok (not skipped), when the plan
// recorded how many bytes it downloads. False when the job has no such measurement.
bool load_sample_of(const std::string& provider, double download_bytes,
                    const std::vector<PhaseRecord>& phases, LoadSample* out);

// The warm sample of one job: its "volume-read" transfer (the bytes and milliseconds the pod
// reported), when it read at least kWarmReadMinSampleBytes in a positive time no faster than
// kWarmReadMaxBytesPerSecond. False otherwise.
bool warm_read_sample_of(const std::string& provider, const std::vector<TransferRecord>& transfers,
                         LoadSample* out);

}  // namespace burst
