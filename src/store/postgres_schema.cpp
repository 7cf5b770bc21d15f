#include "store/postgres_schema.h"

#include <string>
#include <vector>

#include "store/pg_conn.h"
#include "store/portable_migrations.h"

namespace burst::pg {
namespace {

// pg_advisory_xact_lock key for migrations ("burstmig" as bytes); the ledger uses another.
constexpr const char* kMigrationLock = "SELECT pg_advisory_xact_lock(7166740835716098407)";

// Step i takes version i to i + 1, as SQLite's list does; never edit a released step.
const std::vector<const char*>& migrations() {
  static const std::vector<const char*> steps = {
      // 1: jobs, their phase transitions, pods and transfers. `seq` orders rows inserted in the
      // same millisecond, as SQLite's rowid does.
      R"sql(
        CREATE TABLE jobs (
          id TEXT PRIMARY KEY,
          pipeline TEXT NOT NULL,
          spec_path TEXT NOT NULL,
          state TEXT NOT NULL,
          phase TEXT NOT NULL,
          provider TEXT NOT NULL,
          error TEXT NOT NULL,
          estimate_json TEXT NOT NULL,
          report_path TEXT NOT NULL,
          created_ms BIGINT NOT NULL,
          finished_ms BIGINT NOT NULL,
          owner_pid BIGINT NOT NULL DEFAULT 0,
          seq BIGSERIAL NOT NULL
        );
        CREATE INDEX jobs_created_ms ON jobs(created_ms);
        CREATE TABLE phases (
          id BIGSERIAL PRIMARY KEY,
          job_id TEXT NOT NULL REFERENCES jobs(id),
          phase TEXT NOT NULL,
          started_ms BIGINT NOT NULL,
          ended_ms BIGINT,
          outcome TEXT NOT NULL,
          detail TEXT NOT NULL
        );
        CREATE INDEX phases_job_id ON phases(job_id);
        CREATE TABLE pods (
          row_id BIGSERIAL PRIMARY KEY,
          job_id TEXT NOT NULL REFERENCES jobs(id),
          provider TEXT NOT NULL,
          role TEXT NOT NULL,
          name TEXT NOT NULL,
          pod_id TEXT NOT NULL,
          gpu_type TEXT NOT NULL,
          gpu_count BIGINT NOT NULL,
          usd_per_hour DOUBLE PRECISION NOT NULL,
          price_source TEXT NOT NULL,
          state TEXT NOT NULL,
          host_key TEXT NOT NULL,
          created_ms BIGINT NOT NULL,
          deleted_ms BIGINT NOT NULL
        );
        CREATE INDEX pods_job_id ON pods(job_id);
        CREATE INDEX pods_state ON pods(state);
        CREATE TABLE transfers (
          id BIGSERIAL PRIMARY KEY,
          job_id TEXT NOT NULL REFERENCES jobs(id),
          direction TEXT NOT NULL,
          files BIGINT NOT NULL,
          bytes BIGINT NOT NULL,
          millis BIGINT NOT NULL
        );
        CREATE INDEX transfers_job_id ON transfers(job_id);
      )sql",
      // 2 (reports, issue 7): report facts per job and calibration measurements.
      R"sql(
        ALTER TABLE jobs ADD COLUMN facts_json TEXT NOT NULL DEFAULT '';
        CREATE TABLE calibration (
          id BIGSERIAL PRIMARY KEY,
          job_id TEXT NOT NULL REFERENCES jobs(id),
          pipeline TEXT NOT NULL,
          gpu_type TEXT NOT NULL,
          workload_kind TEXT NOT NULL,
          units DOUBLE PRECISION NOT NULL,
          measured_s DOUBLE PRECISION NOT NULL,
          predicted_s DOUBLE PRECISION NOT NULL,
          recorded_ms BIGINT NOT NULL
        );
        CREATE INDEX calibration_pipeline ON calibration(pipeline, workload_kind);
      )sql",
      // 3 (burstd, issue 6): the last fire time handled per scheduled pipeline.
      R"sql(
        CREATE TABLE schedule_fires (
          pipeline TEXT PRIMARY KEY,
          last_fire_ms BIGINT NOT NULL
        );
      )sql",
      // 4 (volumes, issue 17): which provider volume holds a spec's volume in a region.
      R"sql(
        CREATE TABLE volumes (
          provider TEXT NOT NULL,
          spec_name TEXT NOT NULL,
          region TEXT NOT NULL,
          volume_id TEXT NOT NULL,
          state TEXT NOT NULL,
          size_gb BIGINT NOT NULL,
          usd_per_gb_month DOUBLE PRECISION NOT NULL,
          created_ms BIGINT NOT NULL,
          updated_ms BIGINT NOT NULL,
          seq BIGSERIAL NOT NULL,
          PRIMARY KEY (provider, spec_name, region)
        );
      )sql",
      // 5 (ownership, issue 20): the installation's id (10 hex digits, as SQLite makes it), the
      // owner's start time, and when each unknown pod of ours was first seen. A team sharing one
      // database is one installation (docs/daemon.md, "A team on PostgreSQL").
      R"sql(
        CREATE TABLE installation (id TEXT NOT NULL);
        INSERT INTO installation (id)
          VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 10));
        ALTER TABLE jobs ADD COLUMN owner_start TEXT NOT NULL DEFAULT '';
        CREATE TABLE unknown_pods (
          provider TEXT NOT NULL,
          pod_id TEXT NOT NULL,
          first_seen_ms BIGINT NOT NULL,
          PRIMARY KEY (provider, pod_id)
        );
      )sql",
      store_sql::kQueueStep,
      store_sql::kLedgerStep,
      store_sql::kLeaseStep,
      store_sql::kTeamBudgetStep,
      store_sql::kImageSizeStep,
      store_sql::kCapsStep,
      // 12 (issue 35): every change of a stored cap, in order (Store::cap_changes).
      R"sql(
        CREATE TABLE budget_cap_changes (
          seq BIGSERIAL PRIMARY KEY,
          scope TEXT NOT NULL,
          subject TEXT NOT NULL,
          period TEXT NOT NULL,
          old_usd DOUBLE PRECISION,
          new_usd DOUBLE PRECISION,
          set_by TEXT NOT NULL,
          at_ms BIGINT NOT NULL
        );
      )sql",
  };
  return steps;
}

Status apply(PGconn* conn) {
  if (Status locked = exec(conn, kMigrationLock, "lock for migration"); !locked) return locked;
  Status made = exec(conn, "CREATE TABLE IF NOT EXISTS burst_schema (version INTEGER NOT NULL)",
                     "create the schema version table");
  if (!made) return made;
  Result<int> version = schema_version(conn);
  if (!version) return version.error();
  if (*version > current_schema_version())
    return make_error(ErrorCode::kInvalid,
                      "store: the PostgreSQL database has schema version " +
                          std::to_string(*version) + "; this burst understands up to " +
                          std::to_string(current_schema_version()) + ": upgrade burst");
  for (int v = *version; v < current_schema_version(); ++v) {
    Status step = exec(conn, migrations()[static_cast<size_t>(v)],
                       "migrate schema to version " + std::to_string(v + 1));
    if (!step) return step;
  }
  if (*version == current_schema_version()) return Status::Ok();
  Query set(*version == 0 ? "INSERT INTO burst_schema (version) VALUES (?)"
                          : "UPDATE burst_schema SET version = ?",
            "set schema version");
  set.bind(current_schema_version());
  Result<Rows> done = set.run(conn);
  return done ? Status::Ok() : Status(done.error());
}

}  // namespace

int current_schema_version() { return static_cast<int>(migrations().size()); }

Result<int> schema_version(PGconn* conn) {
  Query q("SELECT max(version) FROM burst_schema", "read schema version");
  Result<Rows> rows = q.run(conn);
  if (!rows) return rows.error();
  return rows->size() == 0 ? 0 : static_cast<int>(rows->int64(0, 0));
}

Status migrate(PGconn* conn) {
  if (Status begun = exec(conn, "BEGIN", "begin migration"); !begun) return begun;
  Status done = apply(conn);
  if (done) done = exec(conn, "COMMIT", "commit migration");
  if (!done) (void)exec(conn, "ROLLBACK", "roll back migration");  // best effort
  return done;
}

}  // namespace burst::pg
