#include "store/sqlite_ledger.h"

#include "store/cap_sql.h"
#include "store/sqlite_stmt.h"

namespace burst::sqlite {
namespace {

Status run_changing(sqlite3* db, Stmt& stmt, const std::string& missing) {
  Status ran = stmt.run();
  if (!ran) return ran;
  if (sqlite3_changes(db) == 0) return make_error(ErrorCode::kNotFound, missing);
  return Status::Ok();
}

// What a job has spent, as a scalar subquery over ledger_spend.
constexpr const char* kSpentByJob =
    "COALESCE((SELECT SUM(s.usd) FROM ledger_spend s WHERE s.job_id = r.job_id), 0)";

}  // namespace

Status add_queued(sqlite3* db, const QueuedJobRecord& q) {
  Result<Stmt> s = Stmt::prepare(db,
                                 "INSERT INTO job_queue (id, pipeline, spec_path, spec_text, "
                                 "reason, queued_ms, held_by, submitted_by) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                 "queue job " + q.id);
  if (!s) return s.error();
  s->bind(q.id).bind(q.pipeline).bind(q.spec_path).bind(q.spec_text).bind(q.reason);
  s->bind(q.queued_ms).bind(q.held_by).bind(q.user);
  Status ran = s->run();
  if (!ran && sqlite3_extended_errcode(db) == SQLITE_CONSTRAINT_PRIMARYKEY)
    return make_error(ErrorCode::kInvalid, "store: job " + q.id + " is already queued");
  return ran;
}

namespace {

constexpr const char* kQueueColumns =
    "id, pipeline, spec_path, spec_text, reason, queued_ms, held_by, lease_owner, "
    "lease_expires_ms, submitted_by";

QueuedJobRecord read_queued(const Stmt& st) {
  QueuedJobRecord q;
  q.id = st.text(0);
  q.pipeline = st.text(1);
  q.spec_path = st.text(2);
  q.spec_text = st.text(3);
  q.reason = st.text(4);
  q.queued_ms = st.int64(5);
  q.held_by = st.text(6);
  q.lease_owner = st.text(7);
  q.lease_expires_ms = st.int64(8);
  q.user = st.text(9);
  return q;
}

}  // namespace

Result<std::vector<QueuedJobRecord>> queued_jobs(sqlite3* db) {
  Result<Stmt> s = Stmt::prepare(
      db,
      (std::string("SELECT ") + kQueueColumns + " FROM job_queue ORDER BY queued_ms, id").c_str(),
      "list queued jobs");
  if (!s) return s.error();
  return collect(*s, read_queued);
}

Result<std::optional<QueuedJobRecord>> claim_queued(sqlite3* db, const std::string& owner,
                                                    int64_t now_ms, int64_t lease_ms) {
  // BEGIN IMMEDIATE: a second process claiming at once waits for this one, then sees its lease.
  if (Status begun = exec(db, "BEGIN IMMEDIATE", "begin claim"); !begun) return begun.error();
  auto fail = [&](Error e) -> Result<std::optional<QueuedJobRecord>> {
    (void)exec(db, "ROLLBACK", "roll back claim");
    return e;
  };
  Result<Stmt> pick =
      Stmt::prepare(db,
                    (std::string("SELECT ") + kQueueColumns +
                     " FROM job_queue WHERE lease_owner = '' OR lease_expires_ms <= ? "
                     "ORDER BY queued_ms, id LIMIT 1")
                        .c_str(),
                    "claim a queued job");
  if (!pick) return fail(pick.error());
  pick->bind(now_ms);
  Result<bool> row = pick->step();
  if (!row) return fail(row.error());
  if (!*row) {
    if (Status done = exec(db, "COMMIT", "commit claim"); !done) return fail(done.error());
    return std::optional<QueuedJobRecord>();
  }
  QueuedJobRecord q = read_queued(*pick);
  q.lease_owner = owner;
  q.lease_expires_ms = now_ms + lease_ms;
  Result<Stmt> take =
      Stmt::prepare(db, "UPDATE job_queue SET lease_owner = ?, lease_expires_ms = ? WHERE id = ?",
                    "claim queued job " + q.id);
  if (!take) return fail(take.error());
  take->bind(owner).bind(q.lease_expires_ms).bind(q.id);
  if (Status ran = take->run(); !ran) return fail(ran.error());
  if (Status done = exec(db, "COMMIT", "commit claim"); !done) return fail(done.error());
  return std::optional<QueuedJobRecord>(std::move(q));
}

Status renew_lease(sqlite3* db, const std::string& id, const std::string& owner, int64_t now_ms,
                   int64_t lease_ms) {
  Result<Stmt> s = Stmt::prepare(
      db, "UPDATE job_queue SET lease_expires_ms = ? WHERE id = ? AND lease_owner = ?",
      "renew lease of job " + id);
  if (!s) return s.error();
  s->bind(now_ms + lease_ms).bind(id).bind(owner);
  return run_changing(db, *s, "store: the lease of job " + id + " is no longer " + owner + "'s");
}

Status set_queued_hold(sqlite3* db, const std::string& id, const std::string& held_by) {
  Result<Stmt> s =
      Stmt::prepare(db, "UPDATE job_queue SET held_by = ? WHERE id = ?", "hold queued job " + id);
  if (!s) return s.error();
  s->bind(held_by).bind(id);
  return run_changing(db, *s, "store: no queued job " + id);
}

Status remove_queued(sqlite3* db, const std::string& id) {
  Result<Stmt> s =
      Stmt::prepare(db, "DELETE FROM job_queue WHERE id = ?", "remove queued job " + id);
  if (!s) return s.error();
  s->bind(id);
  return run_changing(db, *s, "store: no queued job " + id);
}

Result<double> committed_usd(sqlite3* db, const LedgerCap& cap, const std::string& day,
                             const std::string& month, const std::string& except_job_id) {
  const std::string scope =
      "(? = '' OR day = ?) AND (? = '' OR month = ?) AND (? = '' OR pipeline = ?) AND job_id <> ? "
      "AND ((? = '' AND ? = '') OR job_id IN (SELECT t.job_id FROM ledger_reservations t WHERE "
      "(? = '' OR t.team = ?) AND (? = '' OR t.user_name = ?)))";
  const std::string sql = "SELECT COALESCE((SELECT SUM(usd) FROM ledger_spend WHERE " + scope +
                          "), 0) + COALESCE((SELECT SUM(r.usd - " + kSpentByJob +
                          ") FROM ledger_reservations r WHERE r.released_ms = 0 AND r.usd > " +
                          kSpentByJob + " AND " + scope + "), 0)";
  Result<Stmt> s = Stmt::prepare(db, sql.c_str(), "sum committed spend for " + cap.name);
  if (!s) return s.error();
  const std::string d = cap.period == "day" ? day : "";
  const std::string m = cap.period == "month" ? month : "";
  for (int i = 0; i < 2; ++i) {
    s->bind(d).bind(d).bind(m).bind(m).bind(cap.pipeline).bind(cap.pipeline).bind(except_job_id);
    s->bind(cap.team).bind(cap.user).bind(cap.team).bind(cap.team).bind(cap.user).bind(cap.user);
  }
  Result<bool> row = s->step();
  if (!row) return row.error();
  return *row ? s->real(0) : 0.0;
}

Result<std::string> reserve(sqlite3* db, const ReservationRecord& r,
                            const std::vector<LedgerCap>& caps) {
  // BEGIN IMMEDIATE takes the write lock first: two daemons sharing the file reserve one after
  // the other, each seeing the other's reservation.
  Status begun = exec(db, "BEGIN IMMEDIATE", "begin reservation");
  if (!begun) return begun.error();
  auto fail = [&](Error e) -> Result<std::string> {
    (void)exec(db, "ROLLBACK", "roll back reservation");
    return e;
  };
  for (const LedgerCap& cap : caps) {
    if (!cap.pipeline.empty() && cap.pipeline != r.pipeline) continue;
    if (!cap.team.empty() && cap.team != r.team) continue;
    if (!cap.user.empty() && cap.user != r.user) continue;
    Result<double> committed = committed_usd(db, cap, r.day, r.month, r.job_id);
    if (!committed) return fail(committed.error());
    // A job with no estimate (0) still needs some headroom left.
    if (*committed + r.usd > cap.usd + 1e-9 || *committed >= cap.usd) {
      (void)exec(db, "ROLLBACK", "roll back reservation");
      return cap.name;
    }
  }
  Result<Stmt> s = Stmt::prepare(
      db,
      "INSERT INTO ledger_reservations (job_id, pipeline, usd, day, month, reserved_ms, "
      "released_ms, team, user_name) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?) ON CONFLICT (job_id) DO "
      "UPDATE SET usd = excluded.usd, day = excluded.day, month = excluded.month, "
      "reserved_ms = excluded.reserved_ms, released_ms = 0, team = excluded.team, "
      "user_name = excluded.user_name",
      "reserve for job " + r.job_id);
  if (!s) return fail(s.error());
  s->bind(r.job_id).bind(r.pipeline).bind(r.usd).bind(r.day).bind(r.month).bind(r.reserved_ms);
  s->bind(r.team).bind(r.user);
  if (Status ran = s->run(); !ran) return fail(ran.error());
  if (Status done = exec(db, "COMMIT", "commit reservation"); !done) return fail(done.error());
  return std::string();
}

Status release_reservation(sqlite3* db, const std::string& job_id, int64_t at_ms) {
  Result<Stmt> s = Stmt::prepare(
      db, "UPDATE ledger_reservations SET released_ms = ? WHERE job_id = ? AND released_ms = 0",
      "release reservation of job " + job_id);
  if (!s) return s.error();
  s->bind(at_ms).bind(job_id);
  return s->run();
}

Result<std::vector<ReservationRecord>> open_reservations(sqlite3* db) {
  Result<Stmt> s = Stmt::prepare(db,
                                 "SELECT job_id, pipeline, usd, day, month, reserved_ms, "
                                 "released_ms, team, user_name FROM ledger_reservations WHERE "
                                 "released_ms = 0 "
                                 "ORDER BY reserved_ms, job_id",
                                 "list open reservations");
  if (!s) return s.error();
  return collect<ReservationRecord>(*s, [](const Stmt& st) {
    ReservationRecord r;
    r.job_id = st.text(0);
    r.pipeline = st.text(1);
    r.usd = st.real(2);
    r.day = st.text(3);
    r.month = st.text(4);
    r.reserved_ms = st.int64(5);
    r.released_ms = st.int64(6);
    r.team = st.text(7);
    r.user = st.text(8);
    return r;
  });
}

Status record_spend(sqlite3* db, const SpendRecord& e) {
  Result<Stmt> s = Stmt::prepare(
      db,
      "INSERT INTO ledger_spend (pod_row_id, from_ms, to_ms, usd, job_id, pipeline, day, month) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (pod_row_id, from_ms) DO UPDATE SET "
      "to_ms = excluded.to_ms, usd = excluded.usd "
      "WHERE excluded.to_ms > ledger_spend.to_ms AND excluded.usd >= ledger_spend.usd",
      "record spend of job " + e.job_id);
  if (!s) return s.error();
  s->bind(e.pod_row_id).bind(e.from_ms).bind(e.to_ms).bind(e.usd).bind(e.job_id);
  s->bind(e.pipeline).bind(e.day).bind(e.month);
  return s->run();
}

Result<std::vector<SpendRecord>> spend_of_job(sqlite3* db, const std::string& job_id) {
  Result<Stmt> s = Stmt::prepare(db,
                                 "SELECT pod_row_id, from_ms, to_ms, usd, job_id, pipeline, day, "
                                 "month FROM ledger_spend WHERE job_id = ? "
                                 "ORDER BY pod_row_id, from_ms",
                                 "list spend of job " + job_id);
  if (!s) return s.error();
  s->bind(job_id);
  return collect<SpendRecord>(*s, [](const Stmt& st) {
    SpendRecord e;
    e.pod_row_id = st.int64(0);
    e.from_ms = st.int64(1);
    e.to_ms = st.int64(2);
    e.usd = st.real(3);
    e.job_id = st.text(4);
    e.pipeline = st.text(5);
    e.day = st.text(6);
    e.month = st.text(7);
    return e;
  });
}

}  // namespace burst::sqlite

namespace burst::sqlite {

// Stored caps (store/cap_sql.h): BEGIN IMMEDIATE, so the old value read is the one replaced.
Status set_cap(sqlite3* db, const CapChange& ch) {
  if (Status begun = exec(db, "BEGIN IMMEDIATE", "begin cap change"); !begun) return begun;
  auto fail = [&](Status e) {
    (void)exec(db, "ROLLBACK", "roll back cap change");
    return e;
  };
  double old_usd = store_sql::kNoCap;
  {
    Result<Stmt> old = Stmt::prepare(db, store_sql::kCapOld, "read cap");
    if (!old) return fail(old.error());
    old->bind(ch.scope).bind(ch.subject).bind(ch.period);
    Result<bool> row = old->step();
    if (!row) return fail(row.error());
    if (*row) old_usd = old->real(0);
  }
  Result<Stmt> write =
      Stmt::prepare(db, ch.new_usd ? store_sql::kCapUpsert : store_sql::kCapDelete, "set cap");
  if (!write) return fail(write.error());
  write->bind(ch.scope).bind(ch.subject).bind(ch.period);
  if (ch.new_usd) write->bind(*ch.new_usd).bind(ch.set_by).bind(ch.at_ms);
  if (Status ran = write->run(); !ran) return fail(ran);
  Result<Stmt> audit = Stmt::prepare(db, store_sql::kCapAudit, "audit cap change");
  if (!audit) return fail(audit.error());
  audit->bind(ch.scope).bind(ch.subject).bind(ch.period).bind(old_usd);
  audit->bind(ch.new_usd.value_or(store_sql::kNoCap)).bind(ch.set_by).bind(ch.at_ms);
  if (Status ran = audit->run(); !ran) return fail(ran);
  return exec(db, "COMMIT", "commit cap change");
}

Result<std::vector<CapSetting>> caps(sqlite3* db) {
  Result<Stmt> s = Stmt::prepare(db, store_sql::kCapList, "list caps");
  if (!s) return s.error();
  return collect<CapSetting>(*s, [](const Stmt& st) {
    return CapSetting{st.text(0), st.text(1), st.text(2), st.real(3), st.text(4), st.int64(5)};
  });
}

Result<std::vector<CapChange>> cap_changes(sqlite3* db, int limit) {
  Result<Stmt> s = Stmt::prepare(db, store_sql::kCapChanges, "list cap changes");
  if (!s) return s.error();
  s->bind(limit);
  return collect<CapChange>(*s, [](const Stmt& st) {
    auto value = [&](int col) {
      return st.real(col) < 0 ? std::nullopt : std::optional<double>(st.real(col));
    };
    return CapChange{st.text(0), st.text(1), st.text(2), value(3),
                     value(4),   st.text(5), st.int64(6)};
  });
}

}  // namespace burst::sqlite
