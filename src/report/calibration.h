// What a finished job contributes to estimate calibration: the run step's measured seconds against
// the model's own prediction, on the GPU type it ran on. The fitting, per hardware, sits next to
// the planner (plan/calibration.h). Rules: docs/cost-model.md, "Calibration from history".
#pragma once

#include <optional>

#include "burst/store.h"
#include "report/job_report.h"

namespace burst {

// The sample a finished job contributes, or nullopt (not succeeded, no timed estimate, no run).
// The prediction recorded is the model's own: the plan's run time with any calibration undone.
std::optional<CalibrationRecord> calibration_sample(const JobReport& r);

}  // namespace burst
