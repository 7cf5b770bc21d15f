#include "store/postgres_rows.h"

namespace burst::pg {
namespace {

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

Error unknown(const std::string& what, const std::string& text) {
  return make_error(ErrorCode::kInvalid,
                    "store: " + what + " " + quoted(text) + " (written by a newer burst?)");
}

}  // namespace

Result<JobRecord> read_job(const Rows& s, int r) {
  JobRecord j;
  j.id = s.text(r, 0);
  j.pipeline = s.text(r, 1);
  j.spec_path = s.text(r, 2);
  const std::string state = s.text(r, 3);
  if (auto st = job_state_from_string(state))
    j.state = *st;
  else
    return unknown("job " + quoted(j.id) + " has unknown state", state);
  j.phase = s.text(r, 4);
  j.provider = s.text(r, 5);
  j.error = s.text(r, 6);
  j.estimate_json = s.text(r, 7);
  j.report_path = s.text(r, 8);
  j.created_ms = s.int64(r, 9);
  j.finished_ms = s.int64(r, 10);
  j.owner_pid = s.int64(r, 11);
  j.facts_json = s.text(r, 12);
  j.owner_start = s.text(r, 13);
  return j;
}

Result<PhaseRecord> read_phase(const Rows& s, int r) {
  PhaseRecord p;
  p.job_id = s.text(r, 0);
  const std::string phase = s.text(r, 1);
  if (auto ph = phase_from_string(phase))
    p.phase = *ph;
  else
    return unknown("a phase row of job " + quoted(p.job_id) + " has unknown phase", phase);
  p.started_ms = s.int64(r, 2);
  p.ended_ms = s.int64(r, 3);                // NULL (open) reads as 0
  const std::string outcome = s.text(r, 4);  // "" while the phase is open
  if (!outcome.empty()) {
    p.outcome = outcome_from_string(outcome);
    if (!p.outcome)
      return unknown(
          "phase " + quoted(phase) + " of job " + quoted(p.job_id) + " has unknown outcome",
          outcome);
  }
  p.detail = s.text(r, 5);
  return p;
}

Result<PodRecord> read_pod(const Rows& s, int r) {
  PodRecord p;
  p.row_id = s.int64(r, 0);
  p.job_id = s.text(r, 1);
  p.provider = s.text(r, 2);
  p.role = s.text(r, 3);
  p.name = s.text(r, 4);
  p.pod_id = s.text(r, 5);
  p.gpu_type = s.text(r, 6);
  p.gpu_count = static_cast<int>(s.int64(r, 7));
  p.usd_per_hour = s.real(r, 8);
  p.price_source = s.text(r, 9);
  const std::string state = s.text(r, 10);
  if (auto st = pod_record_state_from_string(state))
    p.state = *st;
  else
    return unknown(
        "pod row " + std::to_string(p.row_id) + " (job " + quoted(p.job_id) + ") has unknown state",
        state);
  p.host_key = s.text(r, 11);
  p.created_ms = s.int64(r, 12);
  p.deleted_ms = s.int64(r, 13);
  return p;
}

TransferRecord read_transfer(const Rows& s, int r) {
  TransferRecord t;
  t.job_id = s.text(r, 0);
  t.direction = s.text(r, 1);
  t.files = s.int64(r, 2);
  t.bytes = s.int64(r, 3);
  t.millis = s.int64(r, 4);
  return t;
}

CalibrationRecord read_calibration(const Rows& s, int r) {
  CalibrationRecord c;
  c.job_id = s.text(r, 0);
  c.pipeline = s.text(r, 1);
  c.gpu_type = s.text(r, 2);
  c.workload_kind = s.text(r, 3);
  c.units = s.real(r, 4);
  c.measured_s = s.real(r, 5);
  c.predicted_s = s.real(r, 6);
  c.recorded_ms = s.int64(r, 7);
  return c;
}

VolumeRecord read_volume(const Rows& s, int r) {
  VolumeRecord v;
  v.provider = s.text(r, 0);
  v.spec_name = s.text(r, 1);
  v.region = s.text(r, 2);
  v.volume_id = s.text(r, 3);
  v.state = s.text(r, 4);
  v.size_gb = static_cast<int>(s.int64(r, 5));
  v.usd_per_gb_month = s.real(r, 6);
  v.created_ms = s.int64(r, 7);
  v.updated_ms = s.int64(r, 8);
  return v;
}

QueuedJobRecord read_queued(const Rows& s, int r) {
  QueuedJobRecord q;
  q.id = s.text(r, 0);
  q.pipeline = s.text(r, 1);
  q.spec_path = s.text(r, 2);
  q.spec_text = s.text(r, 3);
  q.reason = s.text(r, 4);
  q.queued_ms = s.int64(r, 5);
  q.held_by = s.text(r, 6);
  q.lease_owner = s.text(r, 7);
  q.lease_expires_ms = s.int64(r, 8);
  q.user = s.text(r, 9);
  return q;
}

}  // namespace burst::pg
