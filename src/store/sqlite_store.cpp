// The SQLite implementation of Store: one connection per instance, every statement prepared with
// bound parameters. Several instances (and processes) may share one file: WAL mode lets readers
// and a writer overlap, and the busy timeout makes a second writer wait instead of failing.
#include <algorithm>
#include <mutex>
#include <type_traits>
#include <utility>

#include "burst/store.h"
#include "store/sqlite_ledger.h"
#include "store/sqlite_schema.h"
#include "store/sqlite_stmt.h"

namespace burst {
namespace {

using sqlite::DbPtr;
using sqlite::Stmt;

constexpr const char* kJobColumns =
    "id, pipeline, spec_path, state, phase, provider, error, estimate_json, report_path, "
    "created_ms, finished_ms, owner_pid, facts_json, owner_start";
constexpr const char* kPodColumns =
    "row_id, job_id, provider, role, name, pod_id, gpu_type, gpu_count, usd_per_hour, "
    "price_source, state, host_key, created_ms, deleted_ms";

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// States are stored as the text burst/states.h's to_string gives: the very strings burst wrote
// before the states were typed, so existing databases need no migration. A string this burst does
// not know (a newer burst's state, a hand edit) is an error naming the row, never a default.
Error unknown_state(const std::string& row, const std::string& text) {
  return make_error(ErrorCode::kInvalid, "store: " + row + " has unknown state " + quoted(text) +
                                             " (written by a newer burst?)");
}

Result<JobRecord> read_job(const Stmt& s) {
  JobRecord j;
  j.id = s.text(0);
  j.pipeline = s.text(1);
  j.spec_path = s.text(2);
  const std::string state = s.text(3);
  if (auto st = job_state_from_string(state))
    j.state = *st;
  else
    return unknown_state("job " + quoted(j.id), state);
  j.phase = s.text(4);
  j.provider = s.text(5);
  j.error = s.text(6);
  j.estimate_json = s.text(7);
  j.report_path = s.text(8);
  j.created_ms = s.int64(9);
  j.finished_ms = s.int64(10);
  j.owner_pid = s.int64(11);
  j.facts_json = s.text(12);
  j.owner_start = s.text(13);
  return j;
}

Result<PhaseRecord> read_phase(const Stmt& s) {
  PhaseRecord p;
  p.job_id = s.text(0);
  const std::string phase = s.text(1);
  if (auto ph = phase_from_string(phase))
    p.phase = *ph;
  else
    return make_error(ErrorCode::kInvalid, "store: a phase row of job " + quoted(p.job_id) +
                                               " has unknown phase " + quoted(phase) +
                                               " (written by a newer burst?)");
  p.started_ms = s.int64(2);
  p.ended_ms = s.int64(3);                // NULL (open) reads as 0
  const std::string outcome = s.text(4);  // "" while the phase is open
  if (!outcome.empty()) {
    p.outcome = outcome_from_string(outcome);
    if (!p.outcome)
      return make_error(ErrorCode::kInvalid, "store: phase " + quoted(phase) + " of job " +
                                                 quoted(p.job_id) + " has unknown outcome " +
                                                 quoted(outcome) + " (written by a newer burst?)");
  }
  p.detail = s.text(5);
  return p;
}

Result<PodRecord> read_pod(const Stmt& s) {
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
    return unknown_state("pod row " + std::to_string(p.row_id) + " (job " + quoted(p.job_id) + ")",
                         state);
  p.host_key = s.text(11);
  p.created_ms = s.int64(12);
  p.deleted_ms = s.int64(13);
  return p;
}

TransferRecord read_transfer(const Stmt& s) {
  TransferRecord t;
  t.job_id = s.text(0);
  t.direction = s.text(1);
  t.files = s.int64(2);
  t.bytes = s.int64(3);
  t.millis = s.int64(4);
  return t;
}

// Binds every pod field but row_id, in kPodColumns order.
void bind_pod_fields(Stmt& s, const PodRecord& p) {
  s.bind(p.job_id).bind(p.provider).bind(p.role).bind(p.name).bind(p.pod_id).bind(p.gpu_type);
  s.bind(p.gpu_count)
      .bind(p.usd_per_hour)
      .bind(p.price_source)
      .bind(std::string(to_string(p.state)))
      .bind(p.host_key);
  s.bind(p.created_ms).bind(p.deleted_ms);
}

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(DbPtr db) : db_(std::move(db)) {}

  Status create_job(const JobRecord& job) override;
  Status update_job(const JobRecord& job) override;
  Result<JobRecord> get_job(const std::string& id) override;
  Result<std::vector<JobRecord>> recent_jobs(int limit) override;
  Result<std::vector<JobRecord>> jobs_between(int64_t from_ms, int64_t to_ms) override;

  Status begin_phase(const std::string& job_id, Phase phase, int64_t at_ms) override;
  Status end_phase(const std::string& job_id, Phase phase, int64_t at_ms, Outcome outcome,
                   const std::string& detail) override;
  Result<std::vector<PhaseRecord>> phases(const std::string& job_id) override;

  Result<int64_t> add_pod(const PodRecord& pod) override;
  Status update_pod(const PodRecord& pod) override;
  Result<std::vector<PodRecord>> pods_of_job(const std::string& job_id) override;
  Result<std::vector<PodRecord>> live_pods() override;
  Result<std::vector<PodRecord>> pods_of_jobs_between(int64_t from_ms, int64_t to_ms) override;

  Status add_transfer(const TransferRecord& t) override;
  Result<std::vector<TransferRecord>> transfers(const std::string& job_id) override;
  Result<std::optional<int64_t>> last_fire(const std::string& pipeline) override;
  Status set_last_fire(const std::string& pipeline, int64_t fire_ms) override;
  Result<bool> claim_fire(const std::string& pipeline, int64_t fire_ms) override;

  Status put_volume(const VolumeRecord& v) override;
  Result<std::optional<VolumeRecord>> get_volume(const std::string& provider,
                                                 const std::string& spec_name,
                                                 const std::string& region) override;
  Result<std::vector<VolumeRecord>> live_volumes() override { return volumes_where(true); }
  Result<std::vector<VolumeRecord>> all_volumes() override { return volumes_where(false); }
  Result<std::vector<VolumeRecord>> volumes_where(bool live_only);
  Status put_image_size(const ImageSizeRecord& r) override;
  Result<std::optional<ImageSizeRecord>> get_image_size(const std::string& image) override;

  Result<std::string> installation_id() override;
  Result<int64_t> pod_first_seen(const std::string& provider, const std::string& pod_id,
                                 int64_t now_ms) override;
  Status forget_pods_seen(const std::string& provider,
                          const std::vector<std::string>& still_listed) override;

  // The queue and the ledger live in sqlite_ledger.cpp; each call holds the connection lock.
  Status add_queued(const QueuedJobRecord& q) override { return locked(sqlite::add_queued, q); }
  Result<std::vector<QueuedJobRecord>> queued_jobs() override {
    return locked(sqlite::queued_jobs);
  }
  Status set_queued_hold(const std::string& id, const std::string& held_by) override {
    return locked(sqlite::set_queued_hold, id, held_by);
  }
  Status remove_queued(const std::string& id) override { return locked(sqlite::remove_queued, id); }
  Result<std::optional<QueuedJobRecord>> claim_queued(const std::string& owner, int64_t now_ms,
                                                      int64_t lease_ms) override {
    return locked(sqlite::claim_queued, owner, now_ms, lease_ms);
  }
  Status renew_lease(const std::string& id, const std::string& owner, int64_t now_ms,
                     int64_t lease_ms) override {
    return locked(sqlite::renew_lease, id, owner, now_ms, lease_ms);
  }
  Result<std::string> reserve(const ReservationRecord& r,
                              const std::vector<LedgerCap>& caps) override {
    return locked(sqlite::reserve, r, caps);
  }
  Status release_reservation(const std::string& job_id, int64_t at_ms) override {
    return locked(sqlite::release_reservation, job_id, at_ms);
  }
  Result<std::vector<ReservationRecord>> open_reservations() override {
    return locked(sqlite::open_reservations);
  }
  Status record_spend(const SpendRecord& e) override { return locked(sqlite::record_spend, e); }
  Result<std::vector<SpendRecord>> spend_of_job(const std::string& job_id) override {
    return locked(sqlite::spend_of_job, job_id);
  }
  Result<double> committed_usd(const LedgerCap& cap, const std::string& day,
                               const std::string& month, const std::string& except) override {
    return locked(sqlite::committed_usd, cap, day, month, except);
  }
  Status set_cap(const CapChange& change) override { return locked(sqlite::set_cap, change); }
  Result<std::vector<CapSetting>> caps() override { return locked(sqlite::caps); }
  Result<std::vector<CapChange>> cap_changes(int limit) override {
    return locked(sqlite::cap_changes, limit);
  }

  Status add_calibration(const CalibrationRecord& c) override;
  Result<std::vector<CalibrationRecord>> calibration_samples(const std::string& pipeline,
                                                             const std::string& kind,
                                                             int limit) override;

 private:
  template <typename F, typename... Args>
  std::invoke_result_t<F, sqlite3*, const Args&...> locked(F f, const Args&... args) {
    std::lock_guard<std::mutex> lock(mu_);
    return f(db_.get(), args...);
  }
  Result<Stmt> prepare(const std::string& sql, std::string op) {
    return Stmt::prepare(db_.get(), sql.c_str(), std::move(op));
  }
  // Runs a bound write; kNotFound with `missing` when it changed no row.
  Status run_changing(Stmt& stmt, const std::string& missing);

  std::mutex mu_;  // one statement at a time on the connection
  DbPtr db_;
};

Status SqliteStore::run_changing(Stmt& stmt, const std::string& missing) {
  Status ran = stmt.run();
  if (!ran) return ran;
  if (sqlite3_changes(db_.get()) == 0) return make_error(ErrorCode::kNotFound, missing);
  return Status::Ok();
}

Status SqliteStore::create_job(const JobRecord& j) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(std::string("INSERT INTO jobs (") + kJobColumns +
                               ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           "create job");
  if (!s) return s.error();
  s->bind(j.id)
      .bind(j.pipeline)
      .bind(j.spec_path)
      .bind(std::string(to_string(j.state)))
      .bind(j.phase)
      .bind(j.provider);
  s->bind(j.error).bind(j.estimate_json).bind(j.report_path).bind(j.created_ms);
  s->bind(j.finished_ms).bind(j.owner_pid).bind(j.facts_json).bind(j.owner_start);
  return s->run();
}

Status SqliteStore::update_job(const JobRecord& j) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "UPDATE jobs SET pipeline = ?, spec_path = ?, state = ?, phase = ?, provider = ?, "
      "error = ?, estimate_json = ?, report_path = ?, finished_ms = ?, owner_pid = ?, "
      "owner_start = ? WHERE id = ?",
      "update job");
  if (!s) return s.error();
  s->bind(j.pipeline)
      .bind(j.spec_path)
      .bind(std::string(to_string(j.state)))
      .bind(j.phase)
      .bind(j.provider);
  s->bind(j.error).bind(j.estimate_json).bind(j.report_path).bind(j.finished_ms).bind(j.owner_pid);
  s->bind(j.owner_start).bind(j.id);
  return run_changing(*s, "store: no job with id " + quoted(j.id));
}

Result<JobRecord> SqliteStore::get_job(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s =
      prepare(std::string("SELECT ") + kJobColumns + " FROM jobs WHERE id = ?", "get job");
  if (!s) return s.error();
  s->bind(id);
  Result<bool> row = s->step();
  if (!row) return row.error();
  if (!*row) return make_error(ErrorCode::kNotFound, "store: no job with id " + quoted(id));
  return read_job(*s);
}

Result<std::vector<JobRecord>> SqliteStore::recent_jobs(int limit) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(std::string("SELECT ") + kJobColumns +
                               " FROM jobs ORDER BY created_ms DESC, rowid DESC LIMIT ?",
                           "list recent jobs");
  if (!s) return s.error();
  s->bind(limit);
  return collect(*s, read_job);
}

Status SqliteStore::begin_phase(const std::string& job_id, Phase phase, int64_t at_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "INSERT INTO phases (job_id, phase, started_ms, ended_ms, outcome, detail) "
      "VALUES (?, ?, ?, NULL, '', '')",
      "begin phase");
  if (!s) return s.error();
  s->bind(job_id).bind(std::string(to_string(phase))).bind(at_ms);
  return s->run();
}

Status SqliteStore::end_phase(const std::string& job_id, Phase phase, int64_t at_ms,
                              Outcome outcome, const std::string& detail) {
  const std::string name = to_string(phase);
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "UPDATE phases SET ended_ms = ?, outcome = ?, detail = ? WHERE id = "
      "(SELECT max(id) FROM phases WHERE job_id = ? AND phase = ? AND ended_ms IS NULL)",
      "end phase");
  if (!s) return s.error();
  s->bind(at_ms).bind(std::string(to_string(outcome))).bind(detail).bind(job_id).bind(name);
  return run_changing(*s, "store: no open phase " + quoted(name) + " for job " + quoted(job_id));
}

Result<std::vector<PhaseRecord>> SqliteStore::phases(const std::string& job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "SELECT job_id, phase, started_ms, ended_ms, outcome, detail FROM phases "
      "WHERE job_id = ? ORDER BY id",
      "list phases");
  if (!s) return s.error();
  s->bind(job_id);
  return collect(*s, read_phase);
}

Result<int64_t> SqliteStore::add_pod(const PodRecord& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "INSERT INTO pods (job_id, provider, role, name, pod_id, gpu_type, gpu_count, "
      "usd_per_hour, price_source, state, host_key, created_ms, deleted_ms) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      "add pod");
  if (!s) return s.error();
  bind_pod_fields(*s, pod);
  Status ran = s->run();
  if (!ran) return ran.error();
  return static_cast<int64_t>(sqlite3_last_insert_rowid(db_.get()));
}

Status SqliteStore::update_pod(const PodRecord& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "UPDATE pods SET job_id = ?, provider = ?, role = ?, name = ?, pod_id = ?, gpu_type = ?, "
      "gpu_count = ?, usd_per_hour = ?, price_source = ?, state = ?, host_key = ?, "
      "created_ms = ?, deleted_ms = ? WHERE row_id = ?",
      "update pod");
  if (!s) return s.error();
  bind_pod_fields(*s, pod);
  s->bind(pod.row_id);
  return run_changing(*s, "store: no pod with row_id " + std::to_string(pod.row_id));
}

Result<std::vector<PodRecord>> SqliteStore::pods_of_job(const std::string& job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s =
      prepare(std::string("SELECT ") + kPodColumns + " FROM pods WHERE job_id = ? ORDER BY row_id",
              "list pods of job");
  if (!s) return s.error();
  s->bind(job_id);
  return collect(*s, read_pod);
}

Result<std::vector<PodRecord>> SqliteStore::live_pods() {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(std::string("SELECT ") + kPodColumns +
                               // to_string(PodRecordState::kDeleted), kCreateFailed
                               " FROM pods WHERE state NOT IN ('deleted', 'create-failed') "
                               "ORDER BY created_ms, row_id",
                           "list live pods");
  if (!s) return s.error();
  return collect(*s, read_pod);
}

Status SqliteStore::add_transfer(const TransferRecord& t) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "INSERT INTO transfers (job_id, direction, files, bytes, millis) VALUES (?, ?, ?, ?, ?)",
      "add transfer");
  if (!s) return s.error();
  s->bind(t.job_id).bind(t.direction).bind(t.files).bind(t.bytes).bind(t.millis);
  return s->run();
}

Result<std::vector<TransferRecord>> SqliteStore::transfers(const std::string& job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "SELECT job_id, direction, files, bytes, millis FROM transfers WHERE job_id = ? "
      "ORDER BY id",
      "list transfers");
  if (!s) return s.error();
  s->bind(job_id);
  return collect(*s, read_transfer);
}

Result<std::vector<JobRecord>> SqliteStore::jobs_between(int64_t from_ms, int64_t to_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(std::string("SELECT ") + kJobColumns +
                               " FROM jobs WHERE created_ms >= ? AND created_ms < ? "
                               "ORDER BY created_ms, rowid",
                           "list jobs between");
  if (!s) return s.error();
  s->bind(from_ms).bind(to_ms);
  return collect(*s, read_job);
}

Result<std::vector<PodRecord>> SqliteStore::pods_of_jobs_between(int64_t from_ms, int64_t to_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(std::string("SELECT ") + kPodColumns +
                               " FROM pods WHERE job_id IN (SELECT id FROM jobs WHERE "
                               "created_ms >= ? AND created_ms < ?) ORDER BY row_id",
                           "list pods of jobs between");
  if (!s) return s.error();
  s->bind(from_ms).bind(to_ms);
  return collect(*s, read_pod);
}

CalibrationRecord read_calibration(const Stmt& s) {
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

Status SqliteStore::add_calibration(const CalibrationRecord& c) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "INSERT INTO calibration (job_id, pipeline, gpu_type, workload_kind, units, measured_s, "
      "predicted_s, recorded_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      "add calibration");
  if (!s) return s.error();
  s->bind(c.job_id).bind(c.pipeline).bind(c.gpu_type).bind(c.workload_kind).bind(c.units);
  s->bind(c.measured_s).bind(c.predicted_s).bind(c.recorded_ms);
  return s->run();
}

Result<std::vector<CalibrationRecord>> SqliteStore::calibration_samples(const std::string& pipeline,
                                                                        const std::string& kind,
                                                                        int limit) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "SELECT job_id, pipeline, gpu_type, workload_kind, units, measured_s, predicted_s, "
      "recorded_ms FROM calibration WHERE pipeline = ? AND workload_kind = ? "
      "ORDER BY recorded_ms DESC, id DESC LIMIT ?",
      "list calibration samples");
  if (!s) return s.error();
  s->bind(pipeline).bind(kind).bind(limit);
  return collect(*s, read_calibration);
}

Result<std::optional<int64_t>> SqliteStore::last_fire(const std::string& pipeline) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s =
      prepare("SELECT last_fire_ms FROM schedule_fires WHERE pipeline = ?", "get last fire");
  if (!s) return s.error();
  s->bind(pipeline);
  Result<bool> row = s->step();
  if (!row) return row.error();
  if (!*row) return std::optional<int64_t>();
  return std::optional<int64_t>(s->int64(0));
}

Status SqliteStore::set_last_fire(const std::string& pipeline, int64_t fire_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "INSERT INTO schedule_fires (pipeline, last_fire_ms) VALUES (?, ?) "
      "ON CONFLICT(pipeline) DO UPDATE SET last_fire_ms = excluded.last_fire_ms",
      "set last fire");
  if (!s) return s.error();
  s->bind(pipeline).bind(fire_ms);
  return s->run();
}

Result<bool> SqliteStore::claim_fire(const std::string& pipeline, int64_t fire_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  // RETURNING (SQLite 3.35+) yields a row only when the insert or the guarded update happened.
  Result<Stmt> s = prepare(
      "INSERT INTO schedule_fires (pipeline, last_fire_ms) VALUES (?, ?) "
      "ON CONFLICT(pipeline) DO UPDATE SET last_fire_ms = excluded.last_fire_ms "
      "WHERE schedule_fires.last_fire_ms < excluded.last_fire_ms RETURNING last_fire_ms",
      "claim a schedule fire");
  if (!s) return s.error();
  s->bind(pipeline).bind(fire_ms);
  Result<bool> row = s->step();
  if (!row) return row.error();
  const bool claimed = *row;
  if (claimed) {
    if (Result<bool> end = s->step(); !end) return end.error();  // finish the statement
  }
  return claimed;
}

constexpr const char* kVolumeColumns =
    "provider, spec_name, region, volume_id, state, size_gb, usd_per_gb_month, created_ms, "
    "updated_ms";

VolumeRecord read_volume(const Stmt& s) {
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

Status SqliteStore::put_volume(const VolumeRecord& v) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(std::string("INSERT OR REPLACE INTO volumes (") + kVolumeColumns +
                               ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           "put volume");
  if (!s) return s.error();
  s->bind(v.provider)
      .bind(v.spec_name)
      .bind(v.region)
      .bind(v.volume_id)
      .bind(v.state)
      .bind(v.size_gb)
      .bind(v.usd_per_gb_month)
      .bind(v.created_ms)
      .bind(v.updated_ms);
  return s->run();
}

Result<std::optional<VolumeRecord>> SqliteStore::get_volume(const std::string& provider,
                                                            const std::string& spec_name,
                                                            const std::string& region) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(std::string("SELECT ") + kVolumeColumns +
                               " FROM volumes WHERE provider = ? AND spec_name = ? AND region = ?",
                           "get volume");
  if (!s) return s.error();
  s->bind(provider).bind(spec_name).bind(region);
  Result<bool> row = s->step();
  if (!row) return row.error();
  if (!*row) return std::optional<VolumeRecord>();
  return std::optional<VolumeRecord>(read_volume(*s));
}

Result<std::vector<VolumeRecord>> SqliteStore::volumes_where(bool live_only) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s =
      prepare(std::string("SELECT ") + kVolumeColumns + " FROM volumes" +
                  (live_only ? " WHERE state != 'deleted'" : "") + " ORDER BY created_ms, rowid",
              "list volumes");
  if (!s) return s.error();
  std::vector<VolumeRecord> out;
  for (;;) {
    Result<bool> row = s->step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(read_volume(*s));
  }
  return out;
}

Status SqliteStore::put_image_size(const ImageSizeRecord& r) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare(
      "INSERT OR REPLACE INTO image_sizes (image, bytes, fetched_ms, failure) "
      "VALUES (?, ?, ?, ?)",
      "put image size");
  if (!s) return s.error();
  s->bind(r.image).bind(r.bytes).bind(r.fetched_ms).bind(r.failure);
  return s->run();
}

Result<std::optional<ImageSizeRecord>> SqliteStore::get_image_size(const std::string& image) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s =
      prepare("SELECT image, bytes, fetched_ms, failure FROM image_sizes WHERE image = ?",
              "get image size");
  if (!s) return s.error();
  s->bind(image);
  Result<bool> row = s->step();
  if (!row) return row.error();
  if (!*row) return std::optional<ImageSizeRecord>();
  return std::optional<ImageSizeRecord>(
      ImageSizeRecord{s->text(0), s->int64(1), s->int64(2), s->text(3)});
}

Result<std::string> SqliteStore::installation_id() {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> s = prepare("SELECT id FROM installation LIMIT 1", "get installation id");
  if (!s) return s.error();
  Result<bool> row = s->step();
  if (!row) return row.error();
  if (!*row) return make_error(ErrorCode::kInternal, "store: the installation id is missing");
  return s->text(0);
}

Result<int64_t> SqliteStore::pod_first_seen(const std::string& provider, const std::string& pod_id,
                                            int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> add = prepare(
      "INSERT OR IGNORE INTO unknown_pods (provider, pod_id, first_seen_ms) VALUES (?, ?, ?)",
      "record pod first seen");
  if (!add) return add.error();
  add->bind(provider).bind(pod_id).bind(now_ms);
  if (Status ran = add->run(); !ran) return ran.error();
  Result<Stmt> get =
      prepare("SELECT first_seen_ms FROM unknown_pods WHERE provider = ? AND pod_id = ?",
              "get pod first seen");
  if (!get) return get.error();
  get->bind(provider).bind(pod_id);
  Result<bool> row = get->step();
  if (!row) return row.error();
  return *row ? get->int64(0) : now_ms;
}

Status SqliteStore::forget_pods_seen(const std::string& provider,
                                     const std::vector<std::string>& still_listed) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<Stmt> list =
      prepare("SELECT pod_id FROM unknown_pods WHERE provider = ?", "list pods seen");
  if (!list) return list.error();
  list->bind(provider);
  std::vector<std::string> gone;
  for (;;) {
    Result<bool> row = list->step();
    if (!row) return row.error();
    if (!*row) break;
    std::string id = list->text(0);
    if (std::find(still_listed.begin(), still_listed.end(), id) == still_listed.end())
      gone.push_back(std::move(id));
  }
  for (const auto& id : gone) {  // a handful at most: pods of ours the store lost
    Result<Stmt> del =
        prepare("DELETE FROM unknown_pods WHERE provider = ? AND pod_id = ?", "forget pod seen");
    if (!del) return del.error();
    del->bind(provider).bind(id);
    if (Status ran = del->run(); !ran) return ran;
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Store>> open_sqlite_store(const std::string& path) {
  Result<DbPtr> db = sqlite::open_database(path);
  if (!db) return db.error();
  return std::unique_ptr<Store>(std::make_unique<SqliteStore>(std::move(db).value()));
}

}  // namespace burst
