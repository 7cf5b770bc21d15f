// Prices every offer for one spec: does the workload fit, how long does the run take on it, how
// many workers to split independent items across (go wide or go tall), what does the whole job
// cost as the provider bills it, and why each rejected offer is out. The planner picks from these.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/provider.h"
#include "burst/spec.h"
#include "burst/store.h"
#include "plan/boot_history.h"
#include "plan/image_pull.h"
#include "plan/load_history.h"
#include "plan/pod_layout.h"
#include "plan/weight_source.h"

namespace burst {

// Weights from the volume, a hub download, an object store or the local disk
// (plan/weight_source.h: the storage's prior from the provider's registry row or
// burst/weight_load.h, learned per provider by plan/load_history.h), plus the loader's cost; the
// prepare step's download is priced at the hub rate (plan/prepare.h).

// Bytes of the workload's weights (params_b at its precision, bf16 when unset); 0 when unknown.
double weight_bytes_of(const Workload& w);

// One point of the go-wide curve: `workers` pods of the offer, each paying its own cold start
// and taking an equal share of the items.
struct WidthPoint {
  int workers = 1;
  double seconds = 0;   // wall time of the job (the slowest worker)
  double usd = 0;       // all workers, billed time x price + their downloads' per-GB charge
  bool allowed = true;  // meets the deadline, budget.max_runtime and max $/hour
  // When not allowed, the limits it breaks by their spec names, e.g. "deadline" or
  // "budget.max_runtime, resources.max_usd_per_hour".
  std::string over;
};

// The price-free part of a curve point, shared by every offer of one provider, GPU type and
// count (10,000 offers have a few hundred such shapes): usd = billed_s x price / 3600.
struct WidthShape {
  int workers = 1;
  double seconds = 0;                                // wall time
  double run_s = 0;                                  // one worker's share of the run step
  double billed_s = 0;                               // all workers, rounded per the provider's rule
  bool in_time = true;                               // meets the deadline and budget.max_runtime
  bool over_deadline = false, over_runtime = false;  // which of the two it misses
};

// What the model says for one provider, GPU type and count, whatever the offer's price or region:
// shared by every candidate of that shape, so 10,000 offers are modelled a few dozen times and
// each candidate stays small.
struct CandidateShape {
  double need_gib = 0;  // memory the workload needs (0 when unknown)
  double have_gb = 0;   // usable VRAM across the offer's GPUs
  int gpus_needed = 0;
  double cold_start_s = 0;  // provisioning + image pull + weights load, per worker
  // Bytes each worker's host downloads that the plan knows of: the weights from a hub or object
  // store, the image when its size is known, the code sync. Priced at the offer's $/GB where
  // the provider bills downloads (Offer::download_usd_per_gb); 0 on this machine.
  double inbound_bytes = 0;
  std::string cold_start_note;  // where provisioning came from when learned (boot_history.h)
  // Which weight-load rate applies and where it came from (load_history.h); "" without weights.
  std::string weight_load_note;
  double weight_load_bps = 0;  // the rate that note prices the weights at; 0 without weights
  bool warm_volume = false;    // weights expected on the volume already
  double sync_s = 0;
  double run_s = 0;   // the run step on one worker with all the items
  std::string bound;  // bandwidth | compute | capacity | overhead (diffusion) | "" (unknown)
  std::string basis;  // where run_s came from, one line
  // The history fit applied to run_s on this GPU type (plan/calibration.h); runs 0: the prior.
  int calibration_runs = 0;
  double calibration_factor = 1;
  std::vector<std::string> calibration_warnings;  // runs clamped as faster than the card's peak
  // k = 1..N workers (one point when the work has no items); see width_curve().
  std::vector<WidthShape> curve;
  // How each pod's cards run the step (plan/pod_layout.h): what run_s priced, what the run does.
  PodLayout layout;
};

struct Candidate {
  Offer offer;
  std::shared_ptr<const CandidateShape> shape;  // never null once priced
  int workers = 1;          // pods the items are split across (1: one worker batching)
  double worker_run_s = 0;  // the run step of one worker's share
  double total_s = 0;       // wall time: cold start + sync + one worker's share of the run
  double billed_s = 0;      // billed seconds, all workers, rounded per the provider's rule
  double usd = 0;           // GPU pods' cost and transfer_usd (+ CPU hand-off, when planned)
  // What the workers' hosts download, billed per GB (Vast): workers x inbound_bytes x the
  // offer's $/GB; included in usd. The width is chosen on the pods' billed time alone.
  double transfer_usd = 0;
  double utilization = 0;  // compute / billed
  double price = 0;        // $/hour of one pod as planned (spot when asked for and offered)
  std::string rejected;    // "" when the offer can run the job

  double need_gib() const { return shape ? shape->need_gib : 0; }
  double have_gb() const { return shape ? shape->have_gb : 0; }
  double cold_start_s() const { return shape ? shape->cold_start_s : 0; }
  double sync_s() const { return shape ? shape->sync_s : 0; }
  double run_s() const { return shape ? shape->run_s : 0; }
  const std::string& bound() const;
  const std::string& basis() const;
};

// The candidate's go-wide curve priced at its $/hour, `allowed` including the max $/hour cap.
std::vector<WidthPoint> width_curve(const Candidate& c, std::optional<double> max_usd_per_hour);

// A volume the store shows staged (app/plan_with_history.cpp): on `provider` in `region` ("" =
// every region of it) a ready volume of the spec's volume.name, made before a job of the pipeline
// succeeded on that provider.
struct WarmVolume {
  std::string provider;
  std::string region;
};
// Whether `offer`'s pod would mount one of `warm` (null or empty: none).
bool volume_warm_for(const std::vector<WarmVolume>* warm, const Offer& offer);

struct CandidateInput {
  const std::vector<GpuSpec>* catalog = nullptr;
  Calibration calibration;  // the prior
  // The pipeline's recorded runs, newest first: each GPU type gets its own fit of them
  // (plan/calibration.h), once per shape. Null or empty: the prior everywhere.
  const std::vector<CalibrationRecord>* history = nullptr;
  long code_bytes = 0;
  bool warm_volume = false;  // weights on the volume everywhere (a prepare step stages them)
  // Where the store shows the volume staged (per provider and region); null: nowhere.
  const std::vector<WarmVolume>* warm_volumes = nullptr;
  int max_workers = 64;  // widest split considered (1: never go wide)
  // Whether a provider that runs on this machine (local) may split too: only when the spec asks
  // (resources.max_workers), since its pods share this machine's CPUs.
  bool split_here = false;
  // resources.workers: exactly this many workers, the only width priced.
  std::optional<int> fixed_workers;
  // Provisioning + image pull in seconds for every provider, replacing the documented
  // per-provider constants (e.g. a measured value); weights load is still added.
  std::optional<double> boot_s;
  // Measured provisioning of earlier jobs (plan/boot_history.h): the per-provider constants
  // become priors. Null or empty: the constants. boot_s, when set, wins over both.
  const std::vector<BootSample>* boot_history = nullptr;
  // Measured weight downloads of earlier prepare steps and warm volume reads
  // (plan/load_history.h): each rate's prior becomes one voice among them. Null or empty: priors.
  const std::vector<LoadSample>* load_history = nullptr;
  // The spec's image and its size when known (plan/image_pull.h): a pod's cold start adds its
  // pull (not when boot_s is set: a measured boot already holds one). Null: no pull term.
  const ImagePull* image = nullptr;
};

// One candidate per offer, cheapest feasible first (ties: faster first), rejected ones last.
std::vector<Candidate> price_candidates(const PipelineSpec& spec, const std::vector<Offer>& offers,
                                        const CandidateInput& input);
// The same over offers held elsewhere (the planner's filtered view), without copying them twice.
std::vector<Candidate> price_candidates(const PipelineSpec& spec,
                                        const std::vector<const Offer*>& offers,
                                        const CandidateInput& input);

// Seconds from "create" until the run can start on the provider: its boot prior (provisioning and
// image pull), plus loading `weight_bytes` from a warm volume or downloading them cold
// (docs/cost-model.md).
double cold_start_seconds(const ProviderTraits& provider, double weight_bytes, bool warm_volume);

}  // namespace burst
