// Picks where a job runs and what it should cost: the cheapest candidate (plan/candidates.h)
// that fits, meets the deadline and the limits; ties go to the faster. It takes offers from
// anywhere (the provider drivers, the offline price table) and never calls a provider itself.
// Formulas: docs/cost-model.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burst/provider.h"
#include "burst/spec.h"
#include "burst/store.h"
#include "plan/candidates.h"
#include "plan/handoff.h"
#include "plan/prepare.h"
#include "plan/spot_risk.h"
#include "plan/volume_home.h"

namespace burst {

struct Estimate {
  double cold_start_s = 0;
  double sync_s = 0;
  double run_s = 0;
  double pull_s = 0;
  double upload_s = 0;     // CPU hand-off, including its own cold start
  double prepare_s = 0;    // the prepare step (plan/prepare.h): its pod's time, 0 when skipped
  double prepare_usd = 0;  // included in usd
  // The provider's per-GB charge on what the hosts download (Vast's inet_down_cost): the
  // workers' weights, image and code (Candidate::transfer_usd) and a prepare step's download on
  // the GPU host; included in usd. Not measured: the provider's bill says what it was.
  double transfer_usd = 0;
  // What the chosen offer's host bills per GB it uploads (Vast's inet_up_cost): the artefacts
  // pulled from it. Not in usd (their size is unknown until pulled); the report prices the bytes
  // the pull moved at it. 0: the host bills no uploads.
  double upload_usd_per_gb = 0;
  double total_s = 0;      // wall time of the GPU part (the slowest worker)
  double billed_s = 0;     // GPU seconds billed, all workers, rounded per the provider's rule
  int workers = 1;         // GPU pods the items are split across
  double utilization = 0;  // compute / billed
  double usd = 0;
  bool run_known = false;  // false when the spec gives nothing to estimate the run from
  std::string basis;       // one line: where the run time came from
  // The history fit applied to the chosen GPU type (plan/calibration.h); 0 runs: the prior.
  int calibration_runs = 0;
  double calibration_factor = 1;
};

// Where a wide job's worker goes when the chosen offer cannot give it a pod (Plan::fallbacks).
struct FleetFallback {
  Offer offer;
  double price = 0;       // $/hour of one pod as planned (spot when asked for and offered)
  double worker_usd = 0;  // one worker's estimated GPU cost on it, at the plan's width
  PodLayout layout = {};  // how its pod's cards run the step (its own GPU type's layout)
};

struct Plan {
  Offer gpu;
  std::optional<Offer> cpu;  // set when the spec has an upload step
  // Set instead of `cpu` when the provider has no CPU pods (plan/handoff.h): where the upload
  // runs, and what each choice was estimated to cost.
  std::optional<HandoffChoice> handoff;
  // Set when the spec has a `prepare:` step: where it runs and what each choice costs.
  std::optional<PrepareChoice> prepare;
  Estimate estimate;
  bool warm_volume = false;  // PlanInput::warm_volume: what the plan assumed of the volume
  // "over-provisioned: ..." when utilization is below kLowUtilization, then each distinct
  // rejection ("provider GPU: reason"), once.
  std::vector<std::string> notes;
  std::vector<Candidate> candidates;  // every offer priced, chosen first, rejected last
  std::vector<WidthPoint> curve;      // the chosen offer's go-wide curve, k = 1..N workers
  // The chosen offer's weight-load rate and where it came from (plan/load_history.h); "" when
  // nothing is loaded over a network.
  std::string weight_load;
  // The image's compressed bytes the cold start priced a pull of (plan/image_pull.h); 0 when
  // unknown or nothing is pulled. Kept in the job's facts so its boot sample can drop the pull.
  double image_bytes = 0;
  // The plan's image line (plan/image_pull.h, image_pull_note): "runpod/pytorch:2.1 7.9 GB
  // (registry), pull ~79 s at 100 MB/s prior"; "" when nothing was looked up or pulled.
  std::string image_pull = {};
  // A wide plan whose spec allows several providers: capacity is learned only at create (no
  // provider API gives a pod count), so a worker whose pod the chosen offer cannot give goes to
  // the first of these that can, possibly on another provider (job/worker_fleet.h). The
  // next-cheapest priced candidates, any allowed provider, at the plan's width, each meeting the
  // deadline, max $/hour and budget.max_usd on its own; cheapest first, at most
  // kMaxFleetFallbacks. Empty for one worker or one provider.
  std::vector<FleetFallback> fallbacks = {};
  // One worker's estimated GPU cost on the chosen offer (what a fallback's cost is told against).
  double worker_usd = 0;
  // The spec's volume for the chosen offer (plan/volume_home.h): where it already is, or the new
  // one this plan makes, its size and monthly cost. Unset for a provider that runs here.
  std::optional<VolumePlacement> volume = std::nullopt;
  // How each GPU pod's cards run the step (plan/pod_layout.h): gpu.gpu_count cards rented,
  // `replicas` copies of the run step. The run follows the offer it ends up on (a fallback's).
  PodLayout layout = {};
  // Set when the spec asks for spot pods (resources.spot): both plans' prices, the expected
  // cost with the interruption prior, and whether this plan rents spot (plan/spot_risk.h).
  std::optional<SpotRisk> spot = std::nullopt;
};

// Whether the plan rents spot pods (chosen over on-demand with its priced risk).
inline bool plan_rents_spot(const Plan& p) { return p.spot && p.spot->chosen; }

inline constexpr size_t kMaxFleetFallbacks = 6;

// Expected utilization (compute / billed) below this is flagged as over-provisioned.
inline constexpr double kLowUtilization = 0.70;

struct PlanInput {
  std::vector<Offer> gpu_offers;
  std::vector<Offer> cpu_offers;
  std::vector<std::string> providers;  // allowed, in preference order (spec or --provider)
  long code_bytes = 0;
  const std::vector<GpuSpec>* catalog = nullptr;  // null: no model, references unscaled
  // A previous job of this pipeline succeeded on the volume (app/plan_with_history.h). With a
  // `prepare:` step the GPU cold start loads weights at the warm rate either way: the step stages
  // them, and its own download is priced where it runs (plan/prepare.h).
  bool warm_volume = false;
  // Where the store shows the volume staged, per provider and region (app/plan_with_history.cpp):
  // an offer there loads weights at the warm rate, every other offer cold.
  std::vector<WarmVolume> warm_volumes;
  // Where the store records the spec's volume made, per provider and region
  // (app/plan_with_history.cpp): an offer there is preferred within kVolumeHomeTolerance.
  std::vector<VolumeHome> volume_homes;
  std::vector<std::string> unusable;  // providers that could not be asked, and why
  int max_workers = 64;               // widest go-wide split (1: one pod, as `burst run` does)
  std::optional<double> boot_s;       // measured provisioning + pull, replacing the constants
  // Earlier jobs' measured provisioning + pull (app/plan_with_history.cpp reads them from the
  // store): each provider's (and GPU type's) cold start is learned from them, the registry's
  // constants only as priors (plan/boot_history.h).
  std::vector<BootSample> boot_history;
  // Earlier prepare steps' measured weight downloads and warm jobs' volume reads
  // (plan/load_history.h): each provider's cold and warm weight-load rates are learned from them,
  // kColdLoadBytesPerSecond and kWarmLoadBytesPerSecond only the priors.
  std::vector<LoadSample> load_history;
  // The spec's image and its size (app/image_size_lookup.h): a cloud pod's cold start adds its
  // pull, and the plan's notes say the size and where it came from. Default: no pull term.
  ImagePull image;
  // Earlier jobs' spot pod-hours and preemptions per provider (plan/spot_risk.h): the
  // interruption prior is updated with them. Empty: the prior alone.
  std::vector<SpotSample> spot_history;
  // The model's prior efficiencies; unset: default_calibration().
  std::optional<Calibration> calibration;
  // The pipeline's recorded runs, newest first (Store::calibration_samples(spec.name,
  // spec.workload.kind, kCalibrationHistory)): each GPU type is calibrated from its own runs, then
  // its memory technology's, else the prior (plan/calibration.h). Empty: the prior everywhere.
  std::vector<CalibrationRecord> calibration_history;
};

// Fails with kInvalid when the workload cannot be modelled (bad params, unknown precision, a GPU
// name in resources.gpus or workload.reference that is not in the catalog) or when the cheapest
// estimate already exceeds budget.max_usd, and with kNoCapacity (naming every rejection) when no
// offer satisfies the spec.
Result<Plan> make_plan(const PipelineSpec& spec, const PlanInput& input);
// make_plan at the prices the spec asks for (spot where asked and offered), with no spot
// decision: make_plan (plan/spot_risk.cpp) calls it once per pricing and compares.
Result<Plan> plan_at_prices(const PipelineSpec& spec, const PlanInput& input);

// Why `c`, one of plan.candidates, was not chosen, in the model's terms (cost ratio, time, bound,
// how much of the card the work uses), after its rejection reason if it has one; "" for the
// chosen one. Built on demand: a plan over 10,000 offers usually shows a few.
std::string why_not_chosen(const Plan& plan, const Candidate& c);

std::string estimate_to_json(const Estimate& e);

}  // namespace burst
