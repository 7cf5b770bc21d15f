// burstd's durable queue and leases over the dialect layer (contract in sql_ledger.h).
#include <utility>

#include "store/sql_ledger.h"
#include "store/sql_rows.h"

namespace burst::sql {

Status add_queued(Db& db, const QueuedJobRecord& q) {
  Prepared s = db.prepare(
      "INSERT INTO job_queue (id, pipeline, spec_path, spec_text, reason, queued_ms, held_by, "
      "submitted_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      "queue job " + q.id);
  if (!s) return s.error();
  Stmt& st = **s;
  st.bind(q.id).bind(q.pipeline).bind(q.spec_path).bind(q.spec_text).bind(q.reason);
  st.bind(q.queued_ms).bind(q.held_by).bind(q.user);
  Status ran = st.run();
  if (!ran && st.duplicate_key())
    return make_error(ErrorCode::kInvalid, "store: job " + q.id + " is already queued");
  return ran;
}

Result<std::vector<QueuedJobRecord>> queued_jobs(Db& db) {
  Prepared s =
      db.prepare(std::string("SELECT ") + kQueueColumns + " FROM job_queue ORDER BY queued_ms, id",
                 "list queued jobs");
  if (!s) return s.error();
  return collect(**s, read_queued);
}

Result<std::optional<QueuedJobRecord>> claim_queued(Db& db, const std::string& owner,
                                                    int64_t now_ms, int64_t lease_ms) {
  // The write transaction makes a second claimer wait for this one, then see its lease (SQLite);
  // SKIP LOCKED passes over a row another daemon is claiming this instant, and the row lock then
  // re-checks the lease (PostgreSQL). Either way a row is never handed out twice.
  Transaction tx(db, "claim");
  if (Status begun = tx.begin(Lock::kWrite); !begun) return begun.error();
  Prepared s = db.prepare(
      std::string("UPDATE job_queue SET lease_owner = ?, lease_expires_ms = ? WHERE id = ("
                  "SELECT id FROM job_queue WHERE lease_owner = '' OR lease_expires_ms <= ? "
                  "ORDER BY queued_ms, id LIMIT 1") +
          db.dialect().skip_locked + ") RETURNING " + kQueueColumns,
      "claim a queued job");
  if (!s) return s.error();
  (*s)->bind(owner).bind(now_ms + lease_ms).bind(now_ms);
  Result<bool> row = (*s)->step();
  if (!row) return row.error();
  std::optional<QueuedJobRecord> claimed;
  if (*row) claimed = read_queued(**s);
  if (Status done = (*s)->run(); !done) return done.error();  // finish the statement
  if (Status done = tx.commit(); !done) return done.error();
  return claimed;
}

Status renew_lease(Db& db, const std::string& id, const std::string& owner, int64_t now_ms,
                   int64_t lease_ms) {
  Prepared s =
      db.prepare("UPDATE job_queue SET lease_expires_ms = ? WHERE id = ? AND lease_owner = ?",
                 "renew lease of job " + id);
  if (!s) return s.error();
  (*s)->bind(now_ms + lease_ms).bind(id).bind(owner);
  return (*s)->run_changing("store: the lease of job " + id + " is no longer " + owner + "'s");
}

Status set_queued_hold(Db& db, const std::string& id, const std::string& held_by) {
  Prepared s = db.prepare("UPDATE job_queue SET held_by = ? WHERE id = ?", "hold queued job " + id);
  if (!s) return s.error();
  (*s)->bind(held_by).bind(id);
  return (*s)->run_changing("store: no queued job " + id);
}

Status remove_queued(Db& db, const std::string& id) {
  Prepared s = db.prepare("DELETE FROM job_queue WHERE id = ?", "remove queued job " + id);
  if (!s) return s.error();
  (*s)->bind(id);
  return (*s)->run_changing("store: no queued job " + id);
}

}  // namespace burst::sql
