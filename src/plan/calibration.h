// Estimate calibration from history, per hardware. After each succeeded job the runner records the
// measured run-step seconds against the model's own prediction, with the GPU type it ran on
// (report/calibration.h). Planning the same pipeline again, each candidate GPU type gets its own
// fit, the first of:
//   1. runs on that GPU type (the model's bound there is the pipeline's bound there);
//   2. runs on other GPU types of the same memory technology (hbm/gddr) and vendor whose modelled
//      bound is the same as this type's;
//   3. none: the prior (default_calibration()).
// A run on the local cloud or a CPU ("local", "cpu") never calibrates a GPU. The fit is the
// median measured / predicted ratio of the newest kCalibrationWindow runs of its tier. It scales
// only the efficiency of its bound (and the per-step overhead), and a ratio that would put the
// efficiency above 1 (faster than the card's peak) is clamped to 1 and reported as impossible.
// A diffusion step at its host floor (bound "overhead") has no peak to pass: slower runs scale the
// floor alone, faster ones the whole step.
// Rules and the tests that pin them: docs/cost-model.md, "Calibration from history".
#pragma once

#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/spec.h"
#include "burst/store.h"

namespace burst {

inline constexpr int kCalibrationWindow = 10;  // newest runs per tier
// How many of a pipeline's newest runs a plan loads (all GPU types together).
inline constexpr int kCalibrationHistory = 200;
// Ratios outside [1/kCalibrationClamp, kCalibrationClamp] are clamped: one broken run must not
// make the next plan absurd.
inline constexpr double kCalibrationClamp = 10;

struct CalibrationFit {
  int runs = 0;       // samples the factor came from; 0 = the prior applies
  double factor = 1;  // multiply the model's run time (on this GPU type) by this
  std::string scope;  // "RTX_4090" (runs on this type) | "gddr nvidia" (same technology)
  std::string bound;  // the bound whose efficiency the factor scales ("" for measured refs)
  int ignored = 0;    // runs that did not apply (other hardware, local, CPU)
  std::vector<std::string> warnings;  // runs faster than the card's peak, clamped
  // "calibrated from 3 runs on RTX_4090 (run time x1.42)"; "" when uncalibrated.
  std::string note() const;
};

// The fit for the workload `w` of one pipeline on `gpu`. `history`: that pipeline's runs, newest
// first (Store::calibration_samples). `catalog` resolves the GPU types of the runs (the
// technology fallback needs it; empty: runs on `gpu` itself only). `prior`: the calibration the
// runs were predicted with and the fit scales.
CalibrationFit fit_calibration(const std::vector<CalibrationRecord>& history, const GpuSpec& gpu,
                               const Workload& w, const std::vector<GpuSpec>& catalog,
                               const Calibration& prior = default_calibration());

// `base` with the fit applied: the efficiency of the fit's bound divided by the factor (never
// above 1) and the fixed per-step overhead multiplied by it. `base` when uncalibrated.
Calibration apply_fit(const Calibration& base, const CalibrationFit& fit);

}  // namespace burst
