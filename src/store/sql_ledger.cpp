// The money ledger and the stored caps over the dialect layer (contract in sql_ledger.h).
#include "store/sql_ledger.h"

#include <utility>

#include "store/cap_sql.h"
#include "store/sql_rows.h"

namespace burst::sql {
namespace {

// What a job has spent, as a scalar subquery over ledger_spend.
constexpr const char* kSpentByJob =
    "COALESCE((SELECT SUM(s.usd) FROM ledger_spend s WHERE s.job_id = r.job_id), 0)";

// The rows a cap counts: its day or month, pipeline, team and user where set, except one job.
std::string cap_scope(const Dialect& d) {
  const std::string t = d.text_param;
  return "(" + t + " = '' OR day = ?) AND (" + t + " = '' OR month = ?) AND (" + t +
         " = '' OR pipeline = ?) AND job_id <> ? AND ((" + t + " = '' AND " + t +
         " = '') OR job_id IN (SELECT t.job_id FROM ledger_reservations t WHERE (" + t +
         " = '' OR t.team = ?) AND (" + t + " = '' OR t.user_name = ?)))";
}

}  // namespace

bool cap_applies(const LedgerCap& cap, const ReservationRecord& r) {
  return (cap.pipeline.empty() || cap.pipeline == r.pipeline) &&
         (cap.team.empty() || cap.team == r.team) && (cap.user.empty() || cap.user == r.user);
}

bool has_headroom(const LedgerCap& cap, double committed_usd, double usd) {
  return !(committed_usd + usd > cap.usd + 1e-9 || committed_usd >= cap.usd);
}

Result<double> committed_usd(Db& db, const LedgerCap& cap, const std::string& day,
                             const std::string& month, const std::string& except_job_id) {
  const std::string scope = cap_scope(db.dialect());
  const std::string sql = "SELECT COALESCE((SELECT SUM(usd) FROM ledger_spend WHERE " + scope +
                          "), 0) + COALESCE((SELECT SUM(r.usd - " + kSpentByJob +
                          ") FROM ledger_reservations r WHERE r.released_ms = 0 AND r.usd > " +
                          kSpentByJob + " AND " + scope + "), 0)";
  Prepared s = db.prepare(sql, "sum committed spend for " + cap.name);
  if (!s) return s.error();
  const std::string d = cap.period == "day" ? day : "";
  const std::string m = cap.period == "month" ? month : "";
  for (int i = 0; i < 2; ++i) {
    (*s)->bind(d).bind(d).bind(m).bind(m).bind(cap.pipeline).bind(cap.pipeline);
    (*s)->bind(except_job_id).bind(cap.team).bind(cap.user).bind(cap.team).bind(cap.team);
    (*s)->bind(cap.user).bind(cap.user);
  }
  Result<bool> row = (*s)->step();
  if (!row) return row.error();
  return *row ? (*s)->real(0) : 0.0;
}

Result<std::string> reserve(Db& db, const ReservationRecord& r,
                            const std::vector<LedgerCap>& caps) {
  // Reservations one after the other, each seeing the other's row.
  Transaction tx(db, "reservation");
  if (Status begun = tx.begin(Lock::kLedger); !begun) return begun.error();
  for (const LedgerCap& cap : caps) {
    if (!cap_applies(cap, r)) continue;
    Result<double> committed = committed_usd(db, cap, r.day, r.month, r.job_id);
    if (!committed) return committed.error();
    if (!has_headroom(cap, *committed, r.usd)) return cap.name;  // rolled back
  }
  Prepared s = db.prepare(
      "INSERT INTO ledger_reservations (job_id, pipeline, usd, day, month, reserved_ms, "
      "released_ms, team, user_name) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?) ON CONFLICT (job_id) DO "
      "UPDATE SET usd = excluded.usd, day = excluded.day, month = excluded.month, "
      "reserved_ms = excluded.reserved_ms, released_ms = 0, team = excluded.team, "
      "user_name = excluded.user_name",
      "reserve for job " + r.job_id);
  if (!s) return s.error();
  (*s)->bind(r.job_id).bind(r.pipeline).bind(r.usd).bind(r.day).bind(r.month);
  (*s)->bind(r.reserved_ms).bind(r.team).bind(r.user);
  if (Status ran = (*s)->run(); !ran) return ran.error();
  if (Status done = tx.commit(); !done) return done.error();
  return std::string();
}

Status release_reservation(Db& db, const std::string& job_id, int64_t at_ms) {
  Prepared s = db.prepare(
      "UPDATE ledger_reservations SET released_ms = ? WHERE job_id = ? AND released_ms = 0",
      "release reservation of job " + job_id);
  if (!s) return s.error();
  (*s)->bind(at_ms).bind(job_id);
  return (*s)->run();
}

Result<std::vector<ReservationRecord>> open_reservations(Db& db) {
  Prepared s =
      db.prepare(std::string("SELECT ") + kReservationColumns +
                     " FROM ledger_reservations WHERE released_ms = 0 ORDER BY reserved_ms, job_id",
                 "list open reservations");
  if (!s) return s.error();
  return collect(**s, read_reservation);
}

Status record_spend(Db& db, const SpendRecord& e) {
  Prepared s = db.prepare(
      std::string("INSERT INTO ledger_spend (") + kSpendColumns + ") VALUES (" +
          placeholders(kSpendColumns) +
          ") ON CONFLICT (pod_row_id, from_ms) DO UPDATE SET to_ms = excluded.to_ms, "
          "usd = excluded.usd "
          "WHERE excluded.to_ms > ledger_spend.to_ms AND excluded.usd >= ledger_spend.usd",
      "record spend of job " + e.job_id);
  if (!s) return s.error();
  (*s)->bind(e.pod_row_id).bind(e.from_ms).bind(e.to_ms).bind(e.usd).bind(e.job_id);
  (*s)->bind(e.pipeline).bind(e.day).bind(e.month);
  return (*s)->run();
}

Result<std::vector<SpendRecord>> spend_of_job(Db& db, const std::string& job_id) {
  Prepared s = db.prepare(std::string("SELECT ") + kSpendColumns +
                              " FROM ledger_spend WHERE job_id = ? ORDER BY pod_row_id, from_ms",
                          "list spend of job " + job_id);
  if (!s) return s.error();
  (*s)->bind(job_id);
  return collect(**s, read_spend);
}

// Stored caps (store/cap_sql.h), in a write transaction that keeps the old value read the one
// replaced, whichever daemon or client changes it at once.
Status set_cap(Db& db, const CapChange& ch) {
  Transaction tx(db, "cap change");
  if (Status begun = tx.begin(Lock::kWrite); !begun) return begun;
  double old_usd = store_sql::kNoCap;
  {
    Prepared old = db.prepare(std::string(store_sql::kCapOld) + db.dialect().lock_rows, "read cap");
    if (!old) return old.error();
    (*old)->bind(ch.scope).bind(ch.subject).bind(ch.period);
    Result<bool> row = (*old)->step();
    if (!row) return row.error();
    if (*row) old_usd = (*old)->real(0);
  }
  Prepared write =
      db.prepare(ch.new_usd ? store_sql::kCapUpsert : store_sql::kCapDelete, "set cap");
  if (!write) return write.error();
  (*write)->bind(ch.scope).bind(ch.subject).bind(ch.period);
  if (ch.new_usd) (*write)->bind(*ch.new_usd).bind(ch.set_by).bind(ch.at_ms);
  if (Status ran = (*write)->run(); !ran) return ran;
  Prepared audit = db.prepare(store_sql::kCapAudit, "audit cap change");
  if (!audit) return audit.error();
  (*audit)->bind(ch.scope).bind(ch.subject).bind(ch.period).bind(old_usd);
  (*audit)->bind(ch.new_usd.value_or(store_sql::kNoCap)).bind(ch.set_by).bind(ch.at_ms);
  if (Status ran = (*audit)->run(); !ran) return ran;
  return tx.commit();
}

Result<std::vector<CapSetting>> caps(Db& db) {
  Prepared s = db.prepare(store_sql::kCapList, "list caps");
  if (!s) return s.error();
  return collect(**s, read_cap);
}

Result<std::vector<CapChange>> cap_changes(Db& db, int limit) {
  Prepared s = db.prepare(store_sql::kCapChanges, "list cap changes");
  if (!s) return s.error();
  (*s)->bind(limit);
  return collect(**s, read_cap_change);
}

}  // namespace burst::sql
