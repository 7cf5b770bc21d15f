// Jobs, phases, pods, transfers and calibration over the dialect layer (contract in sql_jobs.h).
#include "store/sql_jobs.h"

#include "store/sql_rows.h"

namespace burst::sql {
namespace {

std::string select_from(const char* columns, const std::string& rest) {
  return std::string("SELECT ") + columns + " FROM " + rest;
}

}  // namespace

Status create_job(Db& db, const JobRecord& j) {
  Prepared s = db.prepare(std::string("INSERT INTO jobs (") + kJobColumns + ") VALUES (" +
                              placeholders(kJobColumns) + ")",
                          "create job");
  if (!s) return s.error();
  bind_job(**s, j);
  return (*s)->run();
}

Status update_job(Db& db, const JobRecord& j) {
  Prepared s = db.prepare(
      "UPDATE jobs SET pipeline = ?, spec_path = ?, state = ?, phase = ?, provider = ?, "
      "error = ?, estimate_json = ?, report_path = ?, finished_ms = ?, owner_pid = ?, "
      "owner_start = ?, stopped_by = ? WHERE id = ?",
      "update job");
  if (!s) return s.error();
  Stmt& st = **s;
  st.bind(j.pipeline)
      .bind(j.spec_path)
      .bind(stored(j.state))
      .bind(stored(j.phase))
      .bind(j.provider);
  st.bind(j.error).bind(j.estimate_json).bind(j.report_path).bind(j.finished_ms);
  st.bind(j.owner_pid).bind(j.owner_start).bind(stored_stop(j.stop)).bind(j.id);
  return st.run_changing("store: no job with id " + in_quotes(j.id));
}

Result<JobRecord> get_job(Db& db, const std::string& id) {
  Prepared s = db.prepare(select_from(kJobColumns, "jobs WHERE id = ?"), "get job");
  if (!s) return s.error();
  (*s)->bind(id);
  Result<bool> row = (*s)->step();
  if (!row) return row.error();
  if (!*row) return make_error(ErrorCode::kNotFound, "store: no job with id " + in_quotes(id));
  return read_job(**s);
}

Result<std::vector<JobRecord>> recent_jobs(Db& db, int limit) {
  const std::string order = db.dialect().insertion_order;
  Prepared s = db.prepare(
      select_from(kJobColumns, "jobs ORDER BY created_ms DESC, " + order + " DESC LIMIT ?"),
      "list recent jobs");
  if (!s) return s.error();
  (*s)->bind(limit);
  return collect(**s, read_job);
}

Result<std::vector<JobRecord>> jobs_between(Db& db, int64_t from_ms, int64_t to_ms) {
  const std::string order = db.dialect().insertion_order;
  Prepared s = db.prepare(select_from(kJobColumns,
                                      "jobs WHERE created_ms >= ? AND created_ms < ? "
                                      "ORDER BY created_ms, " +
                                          order),
                          "list jobs between");
  if (!s) return s.error();
  (*s)->bind(from_ms).bind(to_ms);
  return collect(**s, read_job);
}

Status begin_phase(Db& db, const std::string& job_id, Phase phase, int64_t at_ms) {
  Prepared s = db.prepare(std::string("INSERT INTO phases (") + kPhaseColumns +
                              ") VALUES (?, ?, ?, NULL, '', '', -1, '')",
                          "begin phase");
  if (!s) return s.error();
  (*s)->bind(job_id).bind(stored(phase)).bind(at_ms);
  return (*s)->run();
}

Status end_phase(Db& db, const std::string& job_id, Phase phase, int64_t at_ms, Outcome outcome,
                 const std::string& detail) {
  const std::string name = stored(phase);
  Prepared s = db.prepare(
      "UPDATE phases SET ended_ms = ?, outcome = ?, detail = ? WHERE id = "
      "(SELECT max(id) FROM phases WHERE job_id = ? AND phase = ? AND ended_ms IS NULL)",
      "end phase");
  if (!s) return s.error();
  (*s)->bind(at_ms).bind(stored(outcome)).bind(detail).bind(job_id).bind(name);
  return (*s)->run_changing("store: no open phase " + in_quotes(name) + " for job " +
                            in_quotes(job_id));
}

Status record_phase(Db& db, const PhaseRecord& row) {
  Prepared s = db.prepare(std::string("INSERT INTO phases (") + kPhaseColumns + ") VALUES (" +
                              placeholders(kPhaseColumns) + ")",
                          "record phase");
  if (!s) return s.error();
  bind_phase(**s, row);
  return (*s)->run();
}

Result<std::vector<PhaseRecord>> phases(Db& db, const std::string& job_id) {
  Prepared s =
      db.prepare(select_from(kPhaseColumns, "phases WHERE job_id = ? ORDER BY id"), "list phases");
  if (!s) return s.error();
  (*s)->bind(job_id);
  return collect(**s, read_phase);
}

Result<int64_t> add_pod(Db& db, const PodRecord& pod) {
  // RETURNING (SQLite 3.35+) gives the number the database chose.
  Prepared s = db.prepare(std::string("INSERT INTO pods (") + kPodFields + ") VALUES (" +
                              placeholders(kPodFields) + ") RETURNING row_id",
                          "add pod");
  if (!s) return s.error();
  bind_pod(**s, pod);
  Result<bool> row = (*s)->step();
  if (!row) return row.error();
  const int64_t row_id = *row ? (*s)->int64(0) : 0;
  if (Status done = (*s)->run(); !done) return done.error();  // finish the statement
  return row_id;
}

Status update_pod(Db& db, const PodRecord& pod) {
  Prepared s =
      db.prepare("UPDATE pods SET " + assignments(kPodFields) + " WHERE row_id = ?", "update pod");
  if (!s) return s.error();
  bind_pod(**s, pod);
  (*s)->bind(pod.row_id);
  return (*s)->run_changing("store: no pod with row_id " + std::to_string(pod.row_id));
}

Result<std::vector<PodRecord>> pods_of_job(Db& db, const std::string& job_id) {
  Prepared s = db.prepare(select_from(kPodColumns, "pods WHERE job_id = ? ORDER BY row_id"),
                          "list pods of job");
  if (!s) return s.error();
  (*s)->bind(job_id);
  return collect(**s, read_pod);
}

Result<std::vector<PodRecord>> live_pods(Db& db) {
  // to_string(PodRecordState::kDeleted), kCreateFailed
  Prepared s = db.prepare(select_from(kPodColumns,
                                      "pods WHERE state NOT IN ('deleted', 'create-failed') "
                                      "ORDER BY created_ms, row_id"),
                          "list live pods");
  if (!s) return s.error();
  return collect(**s, read_pod);
}

Result<std::vector<PodRecord>> pods_of_jobs_between(Db& db, int64_t from_ms, int64_t to_ms) {
  Prepared s = db.prepare(select_from(kPodColumns,
                                      "pods WHERE job_id IN (SELECT id FROM jobs WHERE "
                                      "created_ms >= ? AND created_ms < ?) ORDER BY row_id"),
                          "list pods of jobs between");
  if (!s) return s.error();
  (*s)->bind(from_ms).bind(to_ms);
  return collect(**s, read_pod);
}

Status add_transfer(Db& db, const TransferRecord& t) {
  Prepared s = db.prepare(std::string("INSERT INTO transfers (") + kTransferColumns + ") VALUES (" +
                              placeholders(kTransferColumns) + ")",
                          "add transfer");
  if (!s) return s.error();
  (*s)->bind(t.job_id).bind(t.direction).bind(t.files).bind(t.bytes).bind(t.millis);
  return (*s)->run();
}

Result<std::vector<TransferRecord>> transfers(Db& db, const std::string& job_id) {
  Prepared s = db.prepare(select_from(kTransferColumns, "transfers WHERE job_id = ? ORDER BY id"),
                          "list transfers");
  if (!s) return s.error();
  (*s)->bind(job_id);
  return collect(**s, read_transfer);
}

Status add_replica(Db& db, const ReplicaRecord& r) {
  Prepared s = db.prepare(std::string("INSERT INTO replicas (") + kReplicaColumns + ") VALUES (" +
                              placeholders(kReplicaColumns) + ")",
                          "add replica");
  if (!s) return s.error();
  bind_replica(**s, r);
  return (*s)->run();
}

Result<std::vector<ReplicaRecord>> replicas(Db& db, const std::string& job_id) {
  Prepared s = db.prepare(select_from(kReplicaColumns, "replicas WHERE job_id = ? ORDER BY id"),
                          "list replicas");
  if (!s) return s.error();
  (*s)->bind(job_id);
  return collect(**s, read_replica);
}

Status add_calibration(Db& db, const CalibrationRecord& c) {
  Prepared s = db.prepare(std::string("INSERT INTO calibration (") + kCalibrationColumns +
                              ") VALUES (" + placeholders(kCalibrationColumns) + ")",
                          "add calibration");
  if (!s) return s.error();
  bind_calibration(**s, c);
  return (*s)->run();
}

Result<std::vector<CalibrationRecord>> calibration_samples(Db& db, const std::string& pipeline,
                                                           const std::string& kind, int limit) {
  Prepared s = db.prepare(select_from(kCalibrationColumns,
                                      "calibration WHERE pipeline = ? AND workload_kind = ? "
                                      "ORDER BY recorded_ms DESC, id DESC LIMIT ?"),
                          "list calibration samples");
  if (!s) return s.error();
  (*s)->bind(pipeline).bind(kind).bind(limit);
  return collect(**s, read_calibration);
}

}  // namespace burst::sql
