#include "store/sql_rows.h"

#include <optional>

#include "store/cap_sql.h"

namespace burst::sql {
namespace {

Error unknown(const std::string& what, const std::string& text) {
  return make_error(ErrorCode::kInvalid,
                    "store: " + what + " " + in_quotes(text) + " (written by a newer burst?)");
}

}  // namespace

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

Result<JobRecord> read_job(const Row& s) {
  JobRecord j;
  j.id = s.text(0);
  j.pipeline = s.text(1);
  j.spec_path = s.text(2);
  const std::string state = s.text(3);
  if (auto st = job_state_from_string(state))
    j.state = *st;
  else
    return unknown("job " + in_quotes(j.id) + " has unknown state", state);
  // The phase column holds to_string's text (burst/states.h). "" only in a row no burst writes
  // today (the field had no default once): it reads as the job's first phase.
  const std::string phase = s.text(4);
  if (phase.empty())
    j.phase = Phase::kPlan;
  else if (auto ph = phase_from_string(phase))
    j.phase = *ph;
  else
    return unknown("job " + in_quotes(j.id) + " has unknown phase", phase);
  j.provider = s.text(5);
  j.error = s.text(6);
  j.estimate_json = s.text(7);
  j.report_path = s.text(8);
  j.created_ms = s.int64(9);
  j.finished_ms = s.int64(10);
  j.owner_pid = s.int64(11);
  j.facts_json = s.text(12);
  j.owner_start = s.text(13);
  if (const std::string stop = s.text(14); !stop.empty()) {  // "": a job recorded before
    j.stop = job_stop_from_string(stop);
    if (!j.stop) return unknown("job " + in_quotes(j.id) + " has unknown stop", stop);
  }
  return j;
}

Result<PhaseRecord> read_phase(const Row& s) {
  PhaseRecord p;
  p.job_id = s.text(0);
  const std::string phase = s.text(1);
  if (auto ph = phase_from_string(phase))
    p.phase = *ph;
  else
    return unknown("a phase row of job " + in_quotes(p.job_id) + " has unknown phase", phase);
  p.started_ms = s.int64(2);
  p.ended_ms = s.int64(3);                // NULL (open) reads as 0
  const std::string outcome = s.text(4);  // "" while the phase is open
  if (!outcome.empty()) {
    p.outcome = outcome_from_string(outcome);
    if (!p.outcome)
      return unknown(
          "phase " + in_quotes(phase) + " of job " + in_quotes(p.job_id) + " has unknown outcome",
          outcome);
  }
  p.detail = s.text(5);
  if (const int64_t worker = s.int64(6); worker >= 0) p.worker = static_cast<int>(worker);
  p.deviation = s.text(7);
  return p;
}

Result<PodRecord> read_pod(const Row& s) {
  PodRecord p;
  p.row_id = s.int64(0);
  p.job_id = s.text(1);
  p.provider = s.text(2);
  p.role = s.text(3);
  p.name = s.text(4);
  p.pod_id = s.text(5);
  p.gpu_type = s.text(6);
  p.gpu_count = static_cast<int>(s.int64(7));
  p.usd_per_hour = s.real(8);
  p.price_source = s.text(9);
  const std::string state = s.text(10);
  if (auto st = pod_record_state_from_string(state))
    p.state = *st;
  else
    return unknown("pod row " + std::to_string(p.row_id) + " (job " + in_quotes(p.job_id) +
                       ") has unknown state",
                   state);
  p.host_key = s.text(11);
  p.created_ms = s.int64(12);
  p.deleted_ms = s.int64(13);
  return p;
}

TransferRecord read_transfer(const Row& s) {
  return TransferRecord{s.text(0), s.text(1), s.int64(2), s.int64(3), s.int64(4)};
}

ReplicaRecord read_replica(const Row& s) {
  ReplicaRecord r;
  r.job_id = s.text(0);
  r.worker = static_cast<int>(s.int64(1));
  r.pod_id = s.text(2);
  r.replica = static_cast<int>(s.int64(3));
  r.replicas = static_cast<int>(s.int64(4));
  r.gpus = s.text(5);
  r.items = s.int64(6);
  r.run_ms = s.int64(7);
  r.step_ms = s.int64(8);
  if (const double u = s.real(9); u >= 0) r.gpu_util_pct = u;
  r.gpu_util_samples = s.int64(10);
  r.exit_status = static_cast<int>(s.int64(11));
  return r;
}

void bind_replica(Stmt& s, const ReplicaRecord& r) {
  s.bind(r.job_id).bind(r.worker).bind(r.pod_id).bind(r.replica).bind(r.replicas).bind(r.gpus);
  s.bind(r.items).bind(r.run_ms).bind(r.step_ms).bind(r.gpu_util_pct.value_or(-1.0));
  s.bind(r.gpu_util_samples).bind(r.exit_status);
}

CalibrationRecord read_calibration(const Row& s) {
  CalibrationRecord c;
  c.job_id = s.text(0);
  c.pipeline = s.text(1);
  c.gpu_type = s.text(2);
  c.workload_kind = s.text(3);
  c.units = s.real(4);
  c.measured_s = s.real(5);
  c.predicted_s = s.real(6);
  c.recorded_ms = s.int64(7);
  return c;
}

VolumeRecord read_volume(const Row& s) {
  VolumeRecord v;
  v.provider = s.text(0);
  v.spec_name = s.text(1);
  v.region = s.text(2);
  v.volume_id = s.text(3);
  v.state = s.text(4);
  v.size_gb = static_cast<int>(s.int64(5));
  v.usd_per_gb_month = s.real(6);
  v.created_ms = s.int64(7);
  v.updated_ms = s.int64(8);
  return v;
}

ImageSizeRecord read_image_size(const Row& s) {
  return ImageSizeRecord{s.text(0), s.int64(1), s.int64(2), s.text(3)};
}

QueuedJobRecord read_queued(const Row& s) {
  QueuedJobRecord q;
  q.id = s.text(0);
  q.pipeline = s.text(1);
  q.spec_path = s.text(2);
  q.spec_text = s.text(3);
  q.reason = s.text(4);
  q.queued_ms = s.int64(5);
  q.held_by = s.text(6);
  q.lease_owner = s.text(7);
  q.lease_expires_ms = s.int64(8);
  q.user = s.text(9);
  return q;
}

ReservationRecord read_reservation(const Row& s) {
  ReservationRecord r;
  r.job_id = s.text(0);
  r.pipeline = s.text(1);
  r.usd = s.real(2);
  r.day = s.text(3);
  r.month = s.text(4);
  r.reserved_ms = s.int64(5);
  r.released_ms = s.int64(6);
  r.team = s.text(7);
  r.user = s.text(8);
  return r;
}

SpendRecord read_spend(const Row& s) {
  SpendRecord e;
  e.pod_row_id = s.int64(0);
  e.from_ms = s.int64(1);
  e.to_ms = s.int64(2);
  e.usd = s.real(3);
  e.job_id = s.text(4);
  e.pipeline = s.text(5);
  e.day = s.text(6);
  e.month = s.text(7);
  return e;
}

CapSetting read_cap(const Row& s) {
  return CapSetting{s.text(0), s.text(1), s.text(2), s.real(3), s.text(4), s.int64(5)};
}

CapChange read_cap_change(const Row& s) {
  auto value = [&](int col) {
    return s.real(col) < 0 ? std::nullopt : std::optional<double>(s.real(col));
  };
  return CapChange{s.text(0), s.text(1), s.text(2), value(3), value(4), s.text(5), s.int64(6)};
}

void bind_job(Stmt& s, const JobRecord& j) {
  s.bind(j.id).bind(j.pipeline).bind(j.spec_path).bind(stored(j.state)).bind(stored(j.phase));
  s.bind(j.provider).bind(j.error).bind(j.estimate_json).bind(j.report_path).bind(j.created_ms);
  s.bind(j.finished_ms).bind(j.owner_pid).bind(j.facts_json).bind(j.owner_start);
  s.bind(stored_stop(j.stop));
}

std::string stored_stop(const std::optional<JobStop>& stop) {
  return stop ? stored(*stop) : std::string();
}

void bind_phase(Stmt& s, const PhaseRecord& p) {
  s.bind(p.job_id).bind(stored(p.phase)).bind(p.started_ms).bind(p.ended_ms);
  s.bind(p.outcome ? stored(*p.outcome) : std::string()).bind(p.detail);
  s.bind(static_cast<int64_t>(p.worker.value_or(-1))).bind(p.deviation);
}

void bind_pod(Stmt& s, const PodRecord& p) {
  s.bind(p.job_id).bind(p.provider).bind(p.role).bind(p.name).bind(p.pod_id).bind(p.gpu_type);
  s.bind(p.gpu_count).bind(p.usd_per_hour).bind(p.price_source).bind(stored(p.state));
  s.bind(p.host_key).bind(p.created_ms).bind(p.deleted_ms);
}

void bind_volume(Stmt& s, const VolumeRecord& v) {
  s.bind(v.provider).bind(v.spec_name).bind(v.region).bind(v.volume_id).bind(v.state);
  s.bind(v.size_gb).bind(v.usd_per_gb_month).bind(v.created_ms).bind(v.updated_ms);
}

void bind_calibration(Stmt& s, const CalibrationRecord& c) {
  s.bind(c.job_id).bind(c.pipeline).bind(c.gpu_type).bind(c.workload_kind).bind(c.units);
  s.bind(c.measured_s).bind(c.predicted_s).bind(c.recorded_ms);
}

}  // namespace burst::sql
