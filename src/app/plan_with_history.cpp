#include "app/plan_with_history.h"

#include <unistd.h>

#include <memory>

#include "burst/store.h"
#include "plan/calibration.h"

namespace burst {
namespace {

// Whether an earlier job of this pipeline succeeded, leaving its weights on the volume.
bool volume_used_before(Store& store, const PipelineSpec& spec) {
  auto jobs = store.recent_jobs(200);
  if (!jobs.ok()) return false;
  for (const auto& j : *jobs)
    if (j.pipeline == spec.name && j.state == JobState::kSucceeded) return true;
  return false;
}

}  // namespace

Result<Plan> plan_with_history(const PipelineSpec& spec, PlanInput* input, const Config& config) {
  // Planning creates no SQLite file; a team's PostgreSQL store is always there.
  if (!config.store_url.empty() || access(config.db_path.c_str(), F_OK) == 0) {
    if (auto store = open_store(config.store_url, config.db_path); store.ok()) {
      if (volume_used_before(**store, spec)) input->warm_volume = true;
      // The planner fits each GPU type from these runs (plan/calibration.h).
      if (auto runs =
              (*store)->calibration_samples(spec.name, spec.workload.kind, kCalibrationHistory);
          runs.ok())
        input->calibration_history = std::move(*runs);
    }
  }
  return make_plan(spec, *input);
}

}  // namespace burst
