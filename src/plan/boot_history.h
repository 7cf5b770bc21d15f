// Cold start from evidence: how long providers took to hand over a pod, learned from this
// machine's own runs. Each sample is one job's measured provisioning (the provision phase,
// volume and pod create) plus its wait for SSH (the image pull and boot), on one provider and GPU
// type. The provider's registry constant (ProviderTraits::boot_s) is only the prior: with n
// samples the estimate is (kBootPriorWeight x prior + sum of samples) / (kBootPriorWeight + n),
// per GPU type once that type has kBootMinRunsPerGpu samples (its provider's estimate as its
// prior), else per provider. A sample whose job knew its image's size (the job's facts,
// image_bytes) is provisioning alone: its seconds less that image's pull at the rate its plan
// priced it (image_pull_seconds, plan/image_pull.h: kImagePullBytesPerSecond, or the offer's
// slower download link, link_bps), clamped at 0, so the plan, which adds the pull of its own
// image, never counts a pull twice, and one run on a slow Vast host does not lengthen every
// later plan's provisioning; a sample without a known size is used whole.
// Pure arithmetic; app/plan_with_history.cpp reads the store.
// docs/cost-model.md, "Cold start from history".
#pragma once

#include <string>
#include <vector>

#include "burst/store.h"

namespace burst {

inline constexpr double kBootPriorWeight = 2;  // the constant counts as this many runs
inline constexpr int kBootMinRunsPerGpu = 2;
inline constexpr int kBootHistoryJobs = 50;  // newest jobs read per plan
// A sample beyond this is a stuck provider or a broken clock, not a boot time: left out.
inline constexpr double kBootMaxSampleS = 3600;

struct BootSample {
  std::string provider;
  std::string gpu_type;
  double seconds = 0;
  double image_bytes = 0;  // the job's image, compressed; 0: unknown
  double link_bps = 0;     // the offer's download link the plan priced the pull at; 0: none stated
};

// The sample less its image's pull at its plan's rate, clamped at 0; the whole sample when the
// size is unknown.
double provisioning_seconds(const BootSample& s);

struct BootEstimate {
  double seconds = 0;
  int runs = 0;               // samples behind it; 0 = the prior alone
  std::string scope;          // "runpod RTX_4090" | "runpod" | "" (prior)
  bool pull_excluded = true;  // every sample behind it knew its image's size
  // "provisioning 74 s, ..." when pull_excluded, else "provisioning + image pull 74 s, learned from
  // 5 runs on runpod RTX_4090 (prior 60 s)".
  std::string note(double prior_s) const;
};

BootEstimate estimate_boot(const std::vector<BootSample>& samples, const std::string& provider,
                           const std::string& gpu_type, double prior_s);

// The sample of one finished job, from its phases and pods: provision start to wait-ssh end,
// when both ended ok; the GPU pod's type. False when the job has no such measurement.
bool boot_sample_of(const JobRecord& job, const std::vector<PhaseRecord>& phases,
                    const std::vector<PodRecord>& pods, BootSample* out);

}  // namespace burst
