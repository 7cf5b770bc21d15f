#include "report/calibration.h"

namespace burst {

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

}  // namespace burst
