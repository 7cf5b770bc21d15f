// Estimate calibration from history. After each succeeded job whose plan timed the run, the
// runner records the measured run-step seconds against the model's own prediction (calibration
// table). The next plan of the same pipeline and workload kind multiplies the model's run time
// by the median measured / predicted ratio of the latest kCalibrationWindow runs and says so
// ("calibrated from 3 runs"). Rules: docs/reports.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/store.h"
#include "plan/planner.h"
#include "report/job_report.h"

namespace burst {

inline constexpr int kCalibrationWindow = 10;
// Ratios outside [1/kCalibrationClamp, kCalibrationClamp] are clamped: one broken run must not
// make the next plan absurd.
inline constexpr double kCalibrationClamp = 10;

struct CalibrationFit {
  int runs = 0;              // samples the factor came from; 0 = uncalibrated
  double factor = 1;         // multiply the model's run time by this
  std::string note() const;  // "calibrated from 3 runs (run time x1.42)", "" when uncalibrated
};

// The sample a finished job contributes, or nullopt (not succeeded, no timed estimate, no run).
// The prediction recorded is the model's own: the plan's run time with any calibration undone.
std::optional<CalibrationRecord> calibration_sample(const JobReport& r);

// Median ratio over the samples (newest first, as the store returns them).
CalibrationFit fit_calibration(const std::vector<CalibrationRecord>& samples);

// The cost model's calibration scaled so every roofline step takes `factor` times as long:
// both efficiencies divided by it and the fixed per-step overhead multiplied by it.
Calibration scale_calibration(const Calibration& base, double factor);

// Looks up the pipeline's samples and applies the fit before planning: to `input` (roofline
// workloads) and to `spec`'s workload.reference runtime (custom workloads). Returns the fit.
CalibrationFit apply_calibration(Store& store, PipelineSpec* spec, PlanInput* input);

// Records the fit on a made plan: the estimate carries runs and factor, the basis the note.
void mark_calibrated(const CalibrationFit& fit, Plan* plan);

}  // namespace burst
