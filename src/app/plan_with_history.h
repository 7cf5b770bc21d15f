// The one plan that learns from this machine's history, used by `burst plan`, `burst run` and
// burstd alike (app/prepare_job.h). Before the planner runs it reads the store, if there is one
// (planning never creates it):
//   - warm volume: an earlier job of the same pipeline succeeded, so its weights are expected on
//     the volume and the cold start loads them at the warm rate;
//   - calibration: the pipeline's measured runs (PlanInput::calibration_history), which the
//     planner fits per GPU type (plan/calibration.h); the plan's basis then says which fit
//     applied, e.g. "calibrated from 3 runs on RTX_4090";
//   - cold start: every recent job's measured provisioning + image pull (plan/boot_history.h),
//     so each provider's (and GPU type's) boot time is learned, the constants only priors;
//   - weight load: every recent job's measured weight download (its prepare step) and warm volume
//     read (plan/load_history.h), so each provider's cold and warm rates are learned.
// With no store, or one that cannot be read, it is the plain plan of plan/planner.h.
#pragma once

#include <vector>

#include "burst/config.h"
#include "burst/spec.h"
#include "burst/store.h"
#include "plan/load_history.h"
#include "plan/planner.h"

namespace burst {

// Sets input->warm_volume from the history (the caller's value stands when there is none).
// `store`: the caller's open store (burstd's: one store per daemon); null: the store at the
// config's path or URL is opened if it exists. Errors: the planner's own (kInvalid, kNoCapacity).
Result<Plan> plan_with_history(const PipelineSpec& spec, PlanInput* input, const Config& config,
                               Store* store = nullptr);

// The newest jobs' (kLoadHistoryJobs, any pipeline) warm volume reads, keyed by provider: what
// plan_with_history adds to PlanInput::load_history for the warm rate.
std::vector<LoadSample> warm_read_samples(Store& store);

}  // namespace burst
