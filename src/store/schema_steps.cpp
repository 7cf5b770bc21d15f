// The schema as one ordered list of steps for both databases: step i takes version i to i + 1
// (SQLite keeps the version in PRAGMA user_version, PostgreSQL in the table burst_schema). Most
// steps are SQL both run unchanged (portable_migrations.h); the first ones are written once with
// the few words where the dialects differ, filled in per database:
//   {int}    INTEGER (SQLite)                      | BIGINT
//   {real}   REAL                                  | DOUBLE PRECISION
//   {serial} INTEGER PRIMARY KEY AUTOINCREMENT     | BIGSERIAL PRIMARY KEY
//   {rowid}  INTEGER PRIMARY KEY (SQLite's rowid)  | BIGSERIAL PRIMARY KEY
//   {seq}    nothing (SQLite orders by rowid)      | a `seq BIGSERIAL` column after this one
//   {new_id} 10 random hex digits, each database's own way
// SQLite gets the very text it always ran (its schema table keeps it). Never edit a released
// step; append one.
#include "store/schema_steps.h"

#include "store/portable_migrations.h"

namespace burst::store_sql {
namespace {

// 1: jobs, their phase transitions, pods and transfers.
constexpr const char* kJobsStep = R"sql(
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
          created_ms {int} NOT NULL,
          finished_ms {int} NOT NULL,
          owner_pid {int} NOT NULL DEFAULT 0{seq}
        );
        CREATE INDEX jobs_created_ms ON jobs(created_ms);
        CREATE TABLE phases (
          id {serial},
          job_id TEXT NOT NULL REFERENCES jobs(id),
          phase TEXT NOT NULL,
          started_ms {int} NOT NULL,
          ended_ms {int},  -- NULL while the phase is open
          outcome TEXT NOT NULL,
          detail TEXT NOT NULL
        );
        CREATE INDEX phases_job_id ON phases(job_id);
        CREATE TABLE pods (
          row_id {rowid},
          job_id TEXT NOT NULL REFERENCES jobs(id),
          provider TEXT NOT NULL,
          role TEXT NOT NULL,
          name TEXT NOT NULL,
          pod_id TEXT NOT NULL,
          gpu_type TEXT NOT NULL,
          gpu_count {int} NOT NULL,
          usd_per_hour {real} NOT NULL,
          price_source TEXT NOT NULL,
          state TEXT NOT NULL,
          host_key TEXT NOT NULL,
          created_ms {int} NOT NULL,
          deleted_ms {int} NOT NULL
        );
        CREATE INDEX pods_job_id ON pods(job_id);
        CREATE INDEX pods_state ON pods(state);
        CREATE TABLE transfers (
          id {serial},
          job_id TEXT NOT NULL REFERENCES jobs(id),
          direction TEXT NOT NULL,
          files {int} NOT NULL,
          bytes {int} NOT NULL,
          millis {int} NOT NULL
        );
        CREATE INDEX transfers_job_id ON transfers(job_id);
      )sql";

// 2 (reports, issue 7): facts the cost report needs, recorded when the job is created (billing
// rule, budget, deadline, predicted bound), and measured run time per unit of work against the
// model's prediction, which calibrates the next plan.
constexpr const char* kReportsStep = R"sql(
        ALTER TABLE jobs ADD COLUMN facts_json TEXT NOT NULL DEFAULT '';
        CREATE TABLE calibration (
          id {serial},
          job_id TEXT NOT NULL REFERENCES jobs(id),
          pipeline TEXT NOT NULL,
          gpu_type TEXT NOT NULL,
          workload_kind TEXT NOT NULL,
          units {real} NOT NULL,
          measured_s {real} NOT NULL,
          predicted_s {real} NOT NULL,
          recorded_ms {int} NOT NULL
        );
        CREATE INDEX calibration_pipeline ON calibration(pipeline, workload_kind);
      )sql";

// 3 (burstd, issue 6): the last fire time handled per scheduled pipeline (docs/daemon.md).
constexpr const char* kFiresStep = R"sql(
        CREATE TABLE schedule_fires (
          pipeline TEXT PRIMARY KEY,
          last_fire_ms {int} NOT NULL
        );
      )sql";

// 4 (volumes, issue 17): which provider volume holds a spec's volume in a region; the only way
// back to a volume on providers whose list returns no name (Vast).
constexpr const char* kVolumesStep = R"sql(
        CREATE TABLE volumes (
          provider TEXT NOT NULL,
          spec_name TEXT NOT NULL,
          region TEXT NOT NULL,
          volume_id TEXT NOT NULL,
          state TEXT NOT NULL,
          size_gb {int} NOT NULL,
          usd_per_gb_month {real} NOT NULL,
          created_ms {int} NOT NULL,
          updated_ms {int} NOT NULL{seq},
          PRIMARY KEY (provider, spec_name, region)
        );
      )sql";

// 5 (ownership, issue 20): the installation's id (10 hex digits), made once here and never
// changed (it tags every pod's name, so reap touches only this installation's pods; a team sharing
// one PostgreSQL database is one installation); when each job's owner process started (pid + start
// time recognise it, util/proc_start.h); and when burstd first saw each pod of ours the store did
// not know (the orphan grace counts from it, across restarts). docs/daemon.md, "Ownership".
constexpr const char* kOwnershipStep = R"sql(
        CREATE TABLE installation (id TEXT NOT NULL);
        INSERT INTO installation (id) VALUES ({new_id});
        ALTER TABLE jobs ADD COLUMN owner_start TEXT NOT NULL DEFAULT '';
        CREATE TABLE unknown_pods (
          provider TEXT NOT NULL,
          pod_id TEXT NOT NULL,
          first_seen_ms {int} NOT NULL,
          PRIMARY KEY (provider, pod_id)
        );
      )sql";

// 12 (issue 35): every change of a stored cap, in order (Store::cap_changes).
constexpr const char* kCapChangesStep = R"sql(
        CREATE TABLE budget_cap_changes (
          seq {serial},
          scope TEXT NOT NULL,
          subject TEXT NOT NULL,
          period TEXT NOT NULL,
          old_usd DOUBLE PRECISION,
          new_usd DOUBLE PRECISION,
          set_by TEXT NOT NULL,
          at_ms BIGINT NOT NULL
        );
      )sql";

// 13 (typed facts, issue 31): which limit stopped a job (JobRecord::stop; '' not known: a job
// recorded before), and a fleet worker's phase rows' worker and deviation (PhaseRecord::worker,
// -1 for none or not known; ::deviation). Rows recorded before keep reading as they did.
constexpr const char* kTypedFactsStep = R"sql(
        ALTER TABLE jobs ADD COLUMN stopped_by TEXT NOT NULL DEFAULT '';
        ALTER TABLE phases ADD COLUMN worker BIGINT NOT NULL DEFAULT -1;
        ALTER TABLE phases ADD COLUMN deviation TEXT NOT NULL DEFAULT '';
      )sql";

// 14 (issue 33): each replica of a run step that ran as several on one pod (ReplicaRecord),
// in the order added (id). gpu_util_pct is -1 when the pod gave no sample.
constexpr const char* kReplicasStep = R"sql(
        CREATE TABLE replicas (
          id {serial},
          job_id TEXT NOT NULL REFERENCES jobs(id),
          worker {int} NOT NULL,
          pod_id TEXT NOT NULL,
          replica {int} NOT NULL,
          replicas {int} NOT NULL,
          gpus TEXT NOT NULL,
          items {int} NOT NULL,
          run_ms {int} NOT NULL,
          step_ms {int} NOT NULL,
          gpu_util_pct {real} NOT NULL,
          gpu_util_samples {int} NOT NULL,
          exit_status {int} NOT NULL
        );
        CREATE INDEX replicas_job_id ON replicas(job_id);
      )sql";

struct Word {
  const char* token;
  const char* sqlite;
  const char* postgres;
};
constexpr Word kWords[] = {
    {"{int}", "INTEGER", "BIGINT"},
    {"{real}", "REAL", "DOUBLE PRECISION"},
    {"{serial}", "INTEGER PRIMARY KEY AUTOINCREMENT", "BIGSERIAL PRIMARY KEY"},
    {"{rowid}", "INTEGER PRIMARY KEY", "BIGSERIAL PRIMARY KEY"},
    {"{seq}", "", ",\n          seq BIGSERIAL NOT NULL"},
    {"{new_id}", "lower(hex(randomblob(5)))",
     "substr(md5(random()::text || clock_timestamp()::text), 1, 10)"},
};

std::string render(std::string sql, Engine engine) {
  for (const Word& w : kWords) {
    const std::string token = w.token;
    const std::string word = engine == Engine::kSqlite ? w.sqlite : w.postgres;
    for (size_t at = sql.find(token); at != std::string::npos; at = sql.find(token, at)) {
      sql.replace(at, token.size(), word);
      at += word.size();
    }
  }
  return sql;
}

std::vector<std::string> render_all(Engine engine) {
  // 6 to 11 (issues 20, 18, 35): the queue, the ledger, leases, team budgets, image sizes, caps.
  // 13: typed facts (issue 31). 14: replicas (issue 33).
  const char* steps[] = {kJobsStep,       kReportsStep,   kFiresStep,  kVolumesStep,
                         kOwnershipStep,  kQueueStep,     kLedgerStep, kLeaseStep,
                         kTeamBudgetStep, kImageSizeStep, kCapsStep,   kCapChangesStep,
                         kTypedFactsStep, kReplicasStep};
  std::vector<std::string> out;
  for (const char* step : steps) out.push_back(render(step, engine));
  return out;
}

}  // namespace

const std::vector<std::string>& schema_steps(Engine engine) {
  static const std::vector<std::string> sqlite = render_all(Engine::kSqlite);
  static const std::vector<std::string> postgres = render_all(Engine::kPostgres);
  return engine == Engine::kSqlite ? sqlite : postgres;
}

}  // namespace burst::store_sql
