#include "report/calibration.h"

#include <algorithm>
#include <cstdio>

namespace burst {

std::string CalibrationFit::note() const {
  if (runs == 0) return "";
  char buf[96];
  std::snprintf(buf, sizeof buf, "calibrated from %d run%s (run time x%.2f)", runs,
                runs == 1 ? "" : "s", factor);
  return buf;
}

std::optional<CalibrationRecord> calibration_sample(const JobReport& r) {
  if (r.outcome != "succeeded" || !r.estimate.known || !r.estimate.run_known) return std::nullopt;
  if (!(r.estimate.run_s > 0) || !(r.compute_s > 0)) return std::nullopt;
  const double applied = r.facts.calibration_factor > 0 ? r.facts.calibration_factor : 1;
  CalibrationRecord c;
  c.job_id = r.job.id;
  c.pipeline = r.job.pipeline;
  c.gpu_type = r.facts.gpu_type;
  c.workload_kind = r.facts.workload_kind;
  c.units = r.facts.units;
  c.measured_s = r.compute_s;
  c.predicted_s = r.estimate.run_s / applied;
  c.recorded_ms = r.job.finished_ms ? r.job.finished_ms : r.as_of_ms;
  return c;
}

CalibrationFit fit_calibration(const std::vector<CalibrationRecord>& samples) {
  std::vector<double> ratios;
  for (const CalibrationRecord& s : samples) {
    if (static_cast<int>(ratios.size()) == kCalibrationWindow) break;
    if (!(s.predicted_s > 0) || !(s.measured_s > 0)) continue;
    // Per unit of work, so a run with twice the items weighs the same.
    const double ratio = s.measured_s / s.predicted_s;
    ratios.push_back(std::clamp(ratio, 1 / kCalibrationClamp, kCalibrationClamp));
  }
  CalibrationFit fit;
  if (ratios.empty()) return fit;
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  fit.runs = static_cast<int>(n);
  fit.factor = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  return fit;
}

Calibration scale_calibration(const Calibration& base, double factor) {
  Calibration c = base;
  if (!(factor > 0)) return c;
  c.eta_bw /= factor;
  c.eta_compute /= factor;
  c.t0_s *= factor;
  return c;
}

CalibrationFit apply_calibration(Store& store, PipelineSpec* spec, PlanInput* input) {
  auto samples = store.calibration_samples(spec->name, spec->workload.kind, kCalibrationWindow);
  if (!samples.ok()) return {};
  CalibrationFit fit = fit_calibration(*samples);
  if (fit.runs == 0) return fit;
  input->calibration = scale_calibration(default_calibration(), fit.factor);
  if (spec->workload.reference) spec->workload.reference->runtime_seconds *= fit.factor;
  return fit;
}

void mark_calibrated(const CalibrationFit& fit, Plan* plan) {
  if (fit.runs == 0) return;
  plan->estimate.calibration_runs = fit.runs;
  plan->estimate.calibration_factor = fit.factor;
  plan->estimate.basis += ", " + fit.note();
}

}  // namespace burst
