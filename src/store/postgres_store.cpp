// The PostgreSQL implementation of Store: one connection per instance, behind a mutex, every
// statement with bound parameters (pg_conn.h). The SQL is SQLite's wherever PostgreSQL reads it
// the same; the dialects differ in upserts (ON CONFLICT for INSERT OR REPLACE / OR IGNORE), in
// RETURNING for new row ids, and in `seq` where SQLite orders by rowid.
#include <algorithm>
#include <mutex>
#include <type_traits>
#include <utility>

#include "burst/store.h"
#include "store/pg_conn.h"
#include "store/postgres_ledger.h"
#include "store/postgres_rows.h"
#include "store/postgres_schema.h"

namespace burst {
namespace {

using pg::Query;
using pg::Rows;

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

Status ran(const Result<Rows>& rows) { return rows ? Status::Ok() : Status(rows.error()); }

Status changed(const Result<Rows>& rows, const std::string& missing) {
  if (!rows) return rows.error();
  if (rows->affected() == 0) return make_error(ErrorCode::kNotFound, missing);
  return Status::Ok();
}

// Every pod field but row_id, in kPodColumns order.
void bind_pod_fields(Query& s, const PodRecord& p) {
  s.bind(p.job_id).bind(p.provider).bind(p.role).bind(p.name).bind(p.pod_id).bind(p.gpu_type);
  s.bind(p.gpu_count).bind(p.usd_per_hour).bind(p.price_source);
  s.bind(std::string(to_string(p.state))).bind(p.host_key).bind(p.created_ms).bind(p.deleted_ms);
}

template <typename T>
Result<std::vector<T>> all(Query& q, PGconn* c, Result<T> (*read)(const Rows&, int)) {
  Result<Rows> rows = q.run(c);
  if (!rows) return rows.error();
  return pg::collect_checked(*rows, read);
}

template <typename T>
Result<std::vector<T>> all(Query& q, PGconn* c, T (*read)(const Rows&, int)) {
  Result<Rows> rows = q.run(c);
  if (!rows) return rows.error();
  return pg::collect<T>(*rows, read);
}

class PostgresStore final : public Store {
 public:
  explicit PostgresStore(pg::ConnPtr conn) : conn_(std::move(conn)) {}

  Status create_job(const JobRecord& j) override {
    auto c = lock();
    Query s(std::string("INSERT INTO jobs (") + pg::kJobColumns +
                ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            "create job");
    s.bind(j.id).bind(j.pipeline).bind(j.spec_path).bind(std::string(to_string(j.state)));
    s.bind(j.phase).bind(j.provider).bind(j.error).bind(j.estimate_json).bind(j.report_path);
    s.bind(j.created_ms).bind(j.finished_ms).bind(j.owner_pid).bind(j.facts_json);
    s.bind(j.owner_start);
    return ran(s.run(c.conn));
  }

  Status update_job(const JobRecord& j) override {
    auto c = lock();
    Query s(
        "UPDATE jobs SET pipeline = ?, spec_path = ?, state = ?, phase = ?, provider = ?, "
        "error = ?, estimate_json = ?, report_path = ?, finished_ms = ?, owner_pid = ?, "
        "owner_start = ? WHERE id = ?",
        "update job");
    s.bind(j.pipeline).bind(j.spec_path).bind(std::string(to_string(j.state))).bind(j.phase);
    s.bind(j.provider).bind(j.error).bind(j.estimate_json).bind(j.report_path);
    s.bind(j.finished_ms).bind(j.owner_pid).bind(j.owner_start).bind(j.id);
    return changed(s.run(c.conn), "store: no job with id " + quoted(j.id));
  }

  Result<JobRecord> get_job(const std::string& id) override {
    auto c = lock();
    Query s(std::string("SELECT ") + pg::kJobColumns + " FROM jobs WHERE id = ?", "get job");
    s.bind(id);
    Result<Rows> rows = s.run(c.conn);
    if (!rows) return rows.error();
    if (rows->size() == 0)
      return make_error(ErrorCode::kNotFound, "store: no job with id " + quoted(id));
    return pg::read_job(*rows, 0);
  }

  Result<std::vector<JobRecord>> recent_jobs(int limit) override {
    auto c = lock();
    Query s(std::string("SELECT ") + pg::kJobColumns +
                " FROM jobs ORDER BY created_ms DESC, seq DESC LIMIT ?",
            "list recent jobs");
    s.bind(limit);
    return all(s, c.conn, pg::read_job);
  }

  Result<std::vector<JobRecord>> jobs_between(int64_t from_ms, int64_t to_ms) override {
    auto c = lock();
    Query s(std::string("SELECT ") + pg::kJobColumns +
                " FROM jobs WHERE created_ms >= ? AND created_ms < ? ORDER BY created_ms, seq",
            "list jobs between");
    s.bind(from_ms).bind(to_ms);
    return all(s, c.conn, pg::read_job);
  }

  Status begin_phase(const std::string& job_id, Phase phase, int64_t at_ms) override {
    auto c = lock();
    Query s(
        "INSERT INTO phases (job_id, phase, started_ms, ended_ms, outcome, detail) "
        "VALUES (?, ?, ?, NULL, '', '')",
        "begin phase");
    s.bind(job_id).bind(std::string(to_string(phase))).bind(at_ms);
    return ran(s.run(c.conn));
  }

  Status end_phase(const std::string& job_id, Phase phase, int64_t at_ms, Outcome outcome,
                   const std::string& detail) override {
    const std::string name = to_string(phase);
    auto c = lock();
    Query s(
        "UPDATE phases SET ended_ms = ?, outcome = ?, detail = ? WHERE id = "
        "(SELECT max(id) FROM phases WHERE job_id = ? AND phase = ? AND ended_ms IS NULL)",
        "end phase");
    s.bind(at_ms).bind(std::string(to_string(outcome))).bind(detail).bind(job_id).bind(name);
    return changed(s.run(c.conn),
                   "store: no open phase " + quoted(name) + " for job " + quoted(job_id));
  }

  Result<std::vector<PhaseRecord>> phases(const std::string& job_id) override {
    auto c = lock();
    Query s(
        "SELECT job_id, phase, started_ms, ended_ms, outcome, detail FROM phases "
        "WHERE job_id = ? ORDER BY id",
        "list phases");
    s.bind(job_id);
    return all(s, c.conn, pg::read_phase);
  }

  Result<int64_t> add_pod(const PodRecord& pod) override {
    auto c = lock();
    Query s(
        "INSERT INTO pods (job_id, provider, role, name, pod_id, gpu_type, gpu_count, "
        "usd_per_hour, price_source, state, host_key, created_ms, deleted_ms) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING row_id",
        "add pod");
    bind_pod_fields(s, pod);
    Result<Rows> rows = s.run(c.conn);
    if (!rows) return rows.error();
    return rows->int64(0, 0);
  }

  Status update_pod(const PodRecord& pod) override {
    auto c = lock();
    Query s(
        "UPDATE pods SET job_id = ?, provider = ?, role = ?, name = ?, pod_id = ?, gpu_type = ?, "
        "gpu_count = ?, usd_per_hour = ?, price_source = ?, state = ?, host_key = ?, "
        "created_ms = ?, deleted_ms = ? WHERE row_id = ?",
        "update pod");
    bind_pod_fields(s, pod);
    s.bind(pod.row_id);
    return changed(s.run(c.conn), "store: no pod with row_id " + std::to_string(pod.row_id));
  }

  Result<std::vector<PodRecord>> pods_of_job(const std::string& job_id) override {
    auto c = lock();
    Query s(
        std::string("SELECT ") + pg::kPodColumns + " FROM pods WHERE job_id = ? ORDER BY row_id",
        "list pods of job");
    s.bind(job_id);
    return all(s, c.conn, pg::read_pod);
  }

  Result<std::vector<PodRecord>> live_pods() override {
    auto c = lock();
    Query s(std::string("SELECT ") + pg::kPodColumns +
                " FROM pods WHERE state NOT IN ('deleted', 'create-failed') "
                "ORDER BY created_ms, row_id",
            "list live pods");
    return all(s, c.conn, pg::read_pod);
  }

  Result<std::vector<PodRecord>> pods_of_jobs_between(int64_t from_ms, int64_t to_ms) override {
    auto c = lock();
    Query s(std::string("SELECT ") + pg::kPodColumns +
                " FROM pods WHERE job_id IN (SELECT id FROM jobs WHERE "
                "created_ms >= ? AND created_ms < ?) ORDER BY row_id",
            "list pods of jobs between");
    s.bind(from_ms).bind(to_ms);
    return all(s, c.conn, pg::read_pod);
  }

  Status add_transfer(const TransferRecord& t) override {
    auto c = lock();
    Query s(
        "INSERT INTO transfers (job_id, direction, files, bytes, millis) VALUES (?, ?, ?, ?, ?)",
        "add transfer");
    s.bind(t.job_id).bind(t.direction).bind(t.files).bind(t.bytes).bind(t.millis);
    return ran(s.run(c.conn));
  }

  Result<std::vector<TransferRecord>> transfers(const std::string& job_id) override {
    auto c = lock();
    Query s(
        "SELECT job_id, direction, files, bytes, millis FROM transfers WHERE job_id = ? "
        "ORDER BY id",
        "list transfers");
    s.bind(job_id);
    return all(s, c.conn, pg::read_transfer);
  }

  Result<std::optional<int64_t>> last_fire(const std::string& pipeline) override {
    auto c = lock();
    Query s("SELECT last_fire_ms FROM schedule_fires WHERE pipeline = ?", "get last fire");
    s.bind(pipeline);
    Result<Rows> rows = s.run(c.conn);
    if (!rows) return rows.error();
    if (rows->size() == 0) return std::optional<int64_t>();
    return std::optional<int64_t>(rows->int64(0, 0));
  }

  Status set_last_fire(const std::string& pipeline, int64_t fire_ms) override {
    auto c = lock();
    Query s(
        "INSERT INTO schedule_fires (pipeline, last_fire_ms) VALUES (?, ?) "
        "ON CONFLICT (pipeline) DO UPDATE SET last_fire_ms = excluded.last_fire_ms",
        "set last fire");
    s.bind(pipeline).bind(fire_ms);
    return ran(s.run(c.conn));
  }

  Result<bool> claim_fire(const std::string& pipeline, int64_t fire_ms) override {
    auto c = lock();
    Query s(
        "INSERT INTO schedule_fires (pipeline, last_fire_ms) VALUES (?, ?) "
        "ON CONFLICT (pipeline) DO UPDATE SET last_fire_ms = excluded.last_fire_ms "
        "WHERE schedule_fires.last_fire_ms < excluded.last_fire_ms RETURNING last_fire_ms",
        "claim a schedule fire");
    s.bind(pipeline).bind(fire_ms);
    Result<Rows> rows = s.run(c.conn);
    if (!rows) return rows.error();
    return rows->size() == 1;
  }

  Status put_volume(const VolumeRecord& v) override {
    auto c = lock();
    Query s(std::string("INSERT INTO volumes (") + pg::kVolumeColumns +
                ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (provider, spec_name, region) "
                "DO UPDATE SET volume_id = excluded.volume_id, state = excluded.state, "
                "size_gb = excluded.size_gb, usd_per_gb_month = excluded.usd_per_gb_month, "
                "created_ms = excluded.created_ms, updated_ms = excluded.updated_ms",
            "put volume");
    s.bind(v.provider).bind(v.spec_name).bind(v.region).bind(v.volume_id).bind(v.state);
    s.bind(v.size_gb).bind(v.usd_per_gb_month).bind(v.created_ms).bind(v.updated_ms);
    return ran(s.run(c.conn));
  }

  Result<std::optional<VolumeRecord>> get_volume(const std::string& provider,
                                                 const std::string& spec_name,
                                                 const std::string& region) override {
    auto c = lock();
    Query s(std::string("SELECT ") + pg::kVolumeColumns +
                " FROM volumes WHERE provider = ? AND spec_name = ? AND region = ?",
            "get volume");
    s.bind(provider).bind(spec_name).bind(region);
    Result<Rows> rows = s.run(c.conn);
    if (!rows) return rows.error();
    if (rows->size() == 0) return std::optional<VolumeRecord>();
    return std::optional<VolumeRecord>(pg::read_volume(*rows, 0));
  }

  Result<std::vector<VolumeRecord>> live_volumes() override { return volumes_where(true); }
  Result<std::vector<VolumeRecord>> all_volumes() override { return volumes_where(false); }

  Status put_image_size(const ImageSizeRecord& r) override {
    auto c = lock();
    Query s(
        "INSERT INTO image_sizes (image, bytes, fetched_ms, failure) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (image) DO UPDATE SET bytes = excluded.bytes, "
        "fetched_ms = excluded.fetched_ms, failure = excluded.failure",
        "put image size");
    s.bind(r.image).bind(r.bytes).bind(r.fetched_ms).bind(r.failure);
    return ran(s.run(c.conn));
  }

  Result<std::optional<ImageSizeRecord>> get_image_size(const std::string& image) override {
    auto c = lock();
    Query s("SELECT image, bytes, fetched_ms, failure FROM image_sizes WHERE image = ?",
            "get image size");
    s.bind(image);
    Result<Rows> rows = s.run(c.conn);
    if (!rows) return rows.error();
    if (rows->size() == 0) return std::optional<ImageSizeRecord>();
    return std::optional<ImageSizeRecord>(
        ImageSizeRecord{rows->text(0, 0), rows->int64(0, 1), rows->int64(0, 2), rows->text(0, 3)});
  }

  Result<std::string> installation_id() override {
    auto c = lock();
    Query s("SELECT id FROM installation LIMIT 1", "get installation id");
    Result<Rows> rows = s.run(c.conn);
    if (!rows) return rows.error();
    if (rows->size() == 0)
      return make_error(ErrorCode::kInternal, "store: the installation id is missing");
    return rows->text(0, 0);
  }

  Result<int64_t> pod_first_seen(const std::string& provider, const std::string& pod_id,
                                 int64_t now_ms) override {
    auto c = lock();
    Query add(
        "INSERT INTO unknown_pods (provider, pod_id, first_seen_ms) VALUES (?, ?, ?) "
        "ON CONFLICT (provider, pod_id) DO NOTHING",
        "record pod first seen");
    add.bind(provider).bind(pod_id).bind(now_ms);
    if (Result<Rows> r = add.run(c.conn); !r) return r.error();
    Query get("SELECT first_seen_ms FROM unknown_pods WHERE provider = ? AND pod_id = ?",
              "get pod first seen");
    get.bind(provider).bind(pod_id);
    Result<Rows> rows = get.run(c.conn);
    if (!rows) return rows.error();
    return rows->size() ? rows->int64(0, 0) : now_ms;
  }

  Status forget_pods_seen(const std::string& provider,
                          const std::vector<std::string>& still_listed) override {
    auto c = lock();
    Query list("SELECT pod_id FROM unknown_pods WHERE provider = ?", "list pods seen");
    list.bind(provider);
    Result<Rows> rows = list.run(c.conn);
    if (!rows) return rows.error();
    for (int r = 0; r < rows->size(); ++r) {  // a handful at most: pods of ours the store lost
      const std::string id = rows->text(r, 0);
      if (std::find(still_listed.begin(), still_listed.end(), id) != still_listed.end()) continue;
      Query del("DELETE FROM unknown_pods WHERE provider = ? AND pod_id = ?", "forget pod seen");
      del.bind(provider).bind(id);
      if (Result<Rows> d = del.run(c.conn); !d) return d.error();
    }
    return Status::Ok();
  }

  Status add_queued(const QueuedJobRecord& q) override { return locked(pg::add_queued, q); }
  Result<std::vector<QueuedJobRecord>> queued_jobs() override { return locked(pg::queued_jobs); }
  Status set_queued_hold(const std::string& id, const std::string& held_by) override {
    return locked(pg::set_queued_hold, id, held_by);
  }
  Status remove_queued(const std::string& id) override { return locked(pg::remove_queued, id); }
  Result<std::optional<QueuedJobRecord>> claim_queued(const std::string& owner, int64_t now_ms,
                                                      int64_t lease_ms) override {
    return locked(pg::claim_queued, owner, now_ms, lease_ms);
  }
  Status renew_lease(const std::string& id, const std::string& owner, int64_t now_ms,
                     int64_t lease_ms) override {
    return locked(pg::renew_lease, id, owner, now_ms, lease_ms);
  }
  Result<std::string> reserve(const ReservationRecord& r,
                              const std::vector<LedgerCap>& caps) override {
    return locked(pg::reserve, r, caps);
  }
  Status release_reservation(const std::string& job_id, int64_t at_ms) override {
    return locked(pg::release_reservation, job_id, at_ms);
  }
  Result<std::vector<ReservationRecord>> open_reservations() override {
    return locked(pg::open_reservations);
  }
  Status record_spend(const SpendRecord& e) override { return locked(pg::record_spend, e); }
  Result<std::vector<SpendRecord>> spend_of_job(const std::string& job_id) override {
    return locked(pg::spend_of_job, job_id);
  }
  Result<double> committed_usd(const LedgerCap& cap, const std::string& day,
                               const std::string& month, const std::string& except) override {
    return locked(pg::committed_usd, cap, day, month, except);
  }
  Status set_cap(const CapChange& change) override { return locked(pg::set_cap, change); }
  Result<std::vector<CapSetting>> caps() override { return locked(pg::caps); }
  Result<std::vector<CapChange>> cap_changes(int limit) override {
    return locked(pg::cap_changes, limit);
  }

  Status add_calibration(const CalibrationRecord& cr) override {
    auto c = lock();
    Query s(
        "INSERT INTO calibration (job_id, pipeline, gpu_type, workload_kind, units, measured_s, "
        "predicted_s, recorded_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        "add calibration");
    s.bind(cr.job_id).bind(cr.pipeline).bind(cr.gpu_type).bind(cr.workload_kind).bind(cr.units);
    s.bind(cr.measured_s).bind(cr.predicted_s).bind(cr.recorded_ms);
    return ran(s.run(c.conn));
  }

  Result<std::vector<CalibrationRecord>> calibration_samples(const std::string& pipeline,
                                                             const std::string& kind,
                                                             int limit) override {
    auto c = lock();
    Query s(
        "SELECT job_id, pipeline, gpu_type, workload_kind, units, measured_s, predicted_s, "
        "recorded_ms FROM calibration WHERE pipeline = ? AND workload_kind = ? "
        "ORDER BY recorded_ms DESC, id DESC LIMIT ?",
        "list calibration samples");
    s.bind(pipeline).bind(kind).bind(limit);
    return all(s, c.conn, pg::read_calibration);
  }

 private:
  // The connection lock, held for one store call; a dropped connection is reopened first.
  struct Locked {
    std::unique_lock<std::mutex> hold;
    PGconn* conn;
  };
  Locked lock() {
    std::unique_lock<std::mutex> hold(mu_);
    pg::reconnect_if_lost(conn_.get());
    return Locked{std::move(hold), conn_.get()};
  }
  template <typename F, typename... Args>
  std::invoke_result_t<F, PGconn*, const Args&...> locked(F f, const Args&... args) {
    auto c = lock();
    return f(c.conn, args...);
  }

  Result<std::vector<VolumeRecord>> volumes_where(bool live_only) {
    auto c = lock();
    Query s(std::string("SELECT ") + pg::kVolumeColumns + " FROM volumes" +
                (live_only ? " WHERE state != 'deleted'" : "") + " ORDER BY created_ms, seq",
            "list volumes");
    return all(s, c.conn, pg::read_volume);
  }

  std::mutex mu_;  // one statement at a time on the connection
  pg::ConnPtr conn_;
};

}  // namespace

Result<std::unique_ptr<Store>> open_postgres_store(const std::string& conninfo) {
  Result<pg::ConnPtr> conn = pg::connect(conninfo);
  if (!conn) return conn.error();
  // Quiet NOTICEs (CREATE TABLE IF NOT EXISTS on a migrated database) instead of stderr.
  PQsetNoticeProcessor(
      conn->get(), [](void*, const char*) {}, nullptr);
  if (Status migrated = pg::migrate(conn->get()); !migrated) return migrated.error();
  return std::unique_ptr<Store>(std::make_unique<PostgresStore>(std::move(conn).value()));
}

Result<std::unique_ptr<Store>> open_store(const std::string& store_url,
                                          const std::string& db_path) {
  if (store_url.empty()) return open_sqlite_store(db_path);
  if (!is_postgres_url(store_url))
    return make_error(ErrorCode::kInvalid, "store " + redact_store_url(store_url) +
                                               ": not a postgres:// or postgresql:// URL");
  return open_postgres_store(store_url);
}

}  // namespace burst
