// Prices every offer for one spec: does the workload fit, how long does the run take on it, what
// does the whole job cost, and why each rejected offer is out. The planner picks from these.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/provider.h"
#include "burst/spec.h"

namespace burst {

struct Candidate {
  Offer offer;
  double need_gib = 0;  // memory the workload needs (0 when unknown)
  double have_gb = 0;   // usable VRAM across the offer's GPUs
  int gpus_needed = 0;
  double cold_start_s = 0;   // provisioning + image pull + weights load
  bool warm_volume = false;  // weights expected on the volume already
  double sync_s = 0;
  double run_s = 0;
  double total_s = 0;      // GPU-billed seconds
  double usd = 0;          // GPU pod cost (+ CPU hand-off, when planned)
  double utilization = 0;  // run / billed
  std::string bound;       // bandwidth | compute | capacity | "" (unknown)
  std::string basis;       // where run_s came from, one line
  std::string rejected;    // "" when the offer can run the job
};

struct CandidateInput {
  const std::vector<GpuSpec>* catalog = nullptr;
  Calibration calibration;
  long code_bytes = 0;
  bool warm_volume = false;  // a previous job of this pipeline left weights on the volume
};

// One candidate per offer, cheapest feasible first (ties: faster first), rejected ones last.
std::vector<Candidate> price_candidates(const PipelineSpec& spec, const std::vector<Offer>& offers,
                                        const CandidateInput& input);

// Seconds from "create" until the run can start, by provider: provisioning and image pull, plus
// loading `weight_bytes` from a warm volume or downloading them cold (docs/cost-model.md).
double cold_start_seconds(const std::string& provider, double weight_bytes, bool warm_volume);

}  // namespace burst
