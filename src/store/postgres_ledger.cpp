#include "store/postgres_ledger.h"

#include "store/cap_sql.h"
#include "store/pg_conn.h"
#include "store/postgres_rows.h"

namespace burst::pg {
namespace {

// pg_advisory_xact_lock key for reservations ("burstled" as bytes).
constexpr const char* kLedgerLock = "SELECT pg_advisory_xact_lock(7166740835714360676)";

// What a job has spent, as a scalar subquery over ledger_spend.
constexpr const char* kSpentByJob =
    "COALESCE((SELECT SUM(s.usd) FROM ledger_spend s WHERE s.job_id = r.job_id), 0)";

Status changed(Result<Rows> rows, const std::string& missing) {
  if (!rows) return rows.error();
  if (rows->affected() == 0) return make_error(ErrorCode::kNotFound, missing);
  return Status::Ok();
}

Status ran(Result<Rows> rows) { return rows ? Status::Ok() : Status(rows.error()); }

}  // namespace

Status add_queued(PGconn* c, const QueuedJobRecord& q) {
  Query s(
      "INSERT INTO job_queue (id, pipeline, spec_path, spec_text, reason, queued_ms, held_by, "
      "submitted_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      "queue job " + q.id);
  s.bind(q.id).bind(q.pipeline).bind(q.spec_path).bind(q.spec_text).bind(q.reason);
  s.bind(q.queued_ms).bind(q.held_by).bind(q.user);
  Result<Rows> rows = s.run(c);
  if (!rows && s.sqlstate() == kUniqueViolation)
    return make_error(ErrorCode::kInvalid, "store: job " + q.id + " is already queued");
  return ran(std::move(rows));
}

Result<std::vector<QueuedJobRecord>> queued_jobs(PGconn* c) {
  Query s(std::string("SELECT ") + kQueueColumns + " FROM job_queue ORDER BY queued_ms, id",
          "list queued jobs");
  Result<Rows> rows = s.run(c);
  if (!rows) return rows.error();
  return collect<QueuedJobRecord>(*rows, read_queued);
}

Status set_queued_hold(PGconn* c, const std::string& id, const std::string& held_by) {
  Query s("UPDATE job_queue SET held_by = ? WHERE id = ?", "hold queued job " + id);
  s.bind(held_by).bind(id);
  return changed(s.run(c), "store: no queued job " + id);
}

Status remove_queued(PGconn* c, const std::string& id) {
  Query s("DELETE FROM job_queue WHERE id = ?", "remove queued job " + id);
  s.bind(id);
  return changed(s.run(c), "store: no queued job " + id);
}

Result<std::optional<QueuedJobRecord>> claim_queued(PGconn* c, const std::string& owner,
                                                    int64_t now_ms, int64_t lease_ms) {
  // One statement is one transaction. SKIP LOCKED passes over a row another daemon is claiming
  // this instant; the row lock then re-checks the lease, so a row is never handed out twice.
  Query s(std::string("UPDATE job_queue SET lease_owner = ?, lease_expires_ms = ? WHERE id = ("
                      "SELECT id FROM job_queue WHERE lease_owner = '' OR lease_expires_ms <= ? "
                      "ORDER BY queued_ms, id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING ") +
              kQueueColumns,
          "claim a queued job");
  s.bind(owner).bind(now_ms + lease_ms).bind(now_ms);
  Result<Rows> rows = s.run(c);
  if (!rows) return rows.error();
  if (rows->size() == 0) return std::optional<QueuedJobRecord>();
  return std::optional<QueuedJobRecord>(read_queued(*rows, 0));
}

Status renew_lease(PGconn* c, const std::string& id, const std::string& owner, int64_t now_ms,
                   int64_t lease_ms) {
  Query s("UPDATE job_queue SET lease_expires_ms = ? WHERE id = ? AND lease_owner = ?",
          "renew lease of job " + id);
  s.bind(now_ms + lease_ms).bind(id).bind(owner);
  return changed(s.run(c), "store: the lease of job " + id + " is no longer " + owner + "'s");
}

Result<double> committed_usd(PGconn* c, const LedgerCap& cap, const std::string& day,
                             const std::string& month, const std::string& except_job_id) {
  const std::string scope =
      "(?::text = '' OR day = ?) AND (?::text = '' OR month = ?) AND "
      "(?::text = '' OR pipeline = ?) AND job_id <> ? AND ((?::text = '' AND ?::text = '') OR "
      "job_id IN (SELECT t.job_id FROM ledger_reservations t WHERE (?::text = '' OR t.team = ?) "
      "AND (?::text = '' OR t.user_name = ?)))";
  const std::string sql = "SELECT COALESCE((SELECT SUM(usd) FROM ledger_spend WHERE " + scope +
                          "), 0) + COALESCE((SELECT SUM(r.usd - " + kSpentByJob +
                          ") FROM ledger_reservations r WHERE r.released_ms = 0 AND r.usd > " +
                          kSpentByJob + " AND " + scope + "), 0)";
  Query s(sql, "sum committed spend for " + cap.name);
  const std::string d = cap.period == "day" ? day : "";
  const std::string m = cap.period == "month" ? month : "";
  for (int i = 0; i < 2; ++i) {
    s.bind(d).bind(d).bind(m).bind(m).bind(cap.pipeline).bind(cap.pipeline).bind(except_job_id);
    s.bind(cap.team).bind(cap.user).bind(cap.team).bind(cap.team).bind(cap.user).bind(cap.user);
  }
  Result<Rows> rows = s.run(c);
  if (!rows) return rows.error();
  return rows->size() ? rows->real(0, 0) : 0.0;
}

Result<std::string> reserve(PGconn* c, const ReservationRecord& r,
                            const std::vector<LedgerCap>& caps) {
  if (Status begun = exec(c, "BEGIN", "begin reservation"); !begun) return begun.error();
  auto fail = [&](Error e) -> Result<std::string> {
    (void)exec(c, "ROLLBACK", "roll back reservation");
    return e;
  };
  // Daemons on other machines reserve one after the other, each seeing the other's row.
  if (Status locked = exec(c, kLedgerLock, "lock the ledger"); !locked) return fail(locked.error());
  for (const LedgerCap& cap : caps) {
    if (!cap.pipeline.empty() && cap.pipeline != r.pipeline) continue;
    if (!cap.team.empty() && cap.team != r.team) continue;
    if (!cap.user.empty() && cap.user != r.user) continue;
    Result<double> committed = committed_usd(c, cap, r.day, r.month, r.job_id);
    if (!committed) return fail(committed.error());
    // A job with no estimate (0) still needs some headroom left.
    if (*committed + r.usd > cap.usd + 1e-9 || *committed >= cap.usd) {
      (void)exec(c, "ROLLBACK", "roll back reservation");
      return cap.name;
    }
  }
  Query s(
      "INSERT INTO ledger_reservations (job_id, pipeline, usd, day, month, reserved_ms, "
      "released_ms, team, user_name) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?) ON CONFLICT (job_id) DO "
      "UPDATE SET usd = excluded.usd, day = excluded.day, month = excluded.month, "
      "reserved_ms = excluded.reserved_ms, released_ms = 0, team = excluded.team, "
      "user_name = excluded.user_name",
      "reserve for job " + r.job_id);
  s.bind(r.job_id).bind(r.pipeline).bind(r.usd).bind(r.day).bind(r.month).bind(r.reserved_ms);
  s.bind(r.team).bind(r.user);
  if (Result<Rows> rows = s.run(c); !rows) return fail(rows.error());
  if (Status done = exec(c, "COMMIT", "commit reservation"); !done) return fail(done.error());
  return std::string();
}

Status release_reservation(PGconn* c, const std::string& job_id, int64_t at_ms) {
  Query s("UPDATE ledger_reservations SET released_ms = ? WHERE job_id = ? AND released_ms = 0",
          "release reservation of job " + job_id);
  s.bind(at_ms).bind(job_id);
  return ran(s.run(c));
}

Result<std::vector<ReservationRecord>> open_reservations(PGconn* c) {
  Query s(
      "SELECT job_id, pipeline, usd, day, month, reserved_ms, released_ms, team, user_name FROM "
      "ledger_reservations WHERE released_ms = 0 ORDER BY reserved_ms, job_id",
      "list open reservations");
  Result<Rows> rows = s.run(c);
  if (!rows) return rows.error();
  return collect<ReservationRecord>(*rows, [](const Rows& st, int i) {
    ReservationRecord r;
    r.job_id = st.text(i, 0);
    r.pipeline = st.text(i, 1);
    r.usd = st.real(i, 2);
    r.day = st.text(i, 3);
    r.month = st.text(i, 4);
    r.reserved_ms = st.int64(i, 5);
    r.released_ms = st.int64(i, 6);
    r.team = st.text(i, 7);
    r.user = st.text(i, 8);
    return r;
  });
}

Status record_spend(PGconn* c, const SpendRecord& e) {
  Query s(
      "INSERT INTO ledger_spend (pod_row_id, from_ms, to_ms, usd, job_id, pipeline, day, month) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (pod_row_id, from_ms) DO UPDATE SET "
      "to_ms = excluded.to_ms, usd = excluded.usd "
      "WHERE excluded.to_ms > ledger_spend.to_ms AND excluded.usd >= ledger_spend.usd",
      "record spend of job " + e.job_id);
  s.bind(e.pod_row_id).bind(e.from_ms).bind(e.to_ms).bind(e.usd).bind(e.job_id);
  s.bind(e.pipeline).bind(e.day).bind(e.month);
  return ran(s.run(c));
}

Result<std::vector<SpendRecord>> spend_of_job(PGconn* c, const std::string& job_id) {
  Query s(
      "SELECT pod_row_id, from_ms, to_ms, usd, job_id, pipeline, day, month FROM ledger_spend "
      "WHERE job_id = ? ORDER BY pod_row_id, from_ms",
      "list spend of job " + job_id);
  s.bind(job_id);
  Result<Rows> rows = s.run(c);
  if (!rows) return rows.error();
  return collect<SpendRecord>(*rows, [](const Rows& st, int i) {
    SpendRecord e;
    e.pod_row_id = st.int64(i, 0);
    e.from_ms = st.int64(i, 1);
    e.to_ms = st.int64(i, 2);
    e.usd = st.real(i, 3);
    e.job_id = st.text(i, 4);
    e.pipeline = st.text(i, 5);
    e.day = st.text(i, 6);
    e.month = st.text(i, 7);
    return e;
  });
}

}  // namespace burst::pg

namespace burst::pg {

// Stored caps (store/cap_sql.h): the row is locked (FOR UPDATE) so the old value read is the
// one replaced, whichever daemon or client changes it at once.
Status set_cap(PGconn* c, const CapChange& ch) {
  if (Status begun = exec(c, "BEGIN", "begin cap change"); !begun) return begun;
  auto fail = [&](Status e) {
    (void)exec(c, "ROLLBACK", "roll back cap change");
    return e;
  };
  Query old(std::string(store_sql::kCapOld) + " FOR UPDATE", "read cap");
  old.bind(ch.scope).bind(ch.subject).bind(ch.period);
  Result<Rows> was = old.run(c);
  if (!was) return fail(was.error());
  const double old_usd = was->size() > 0 ? was->real(0, 0) : store_sql::kNoCap;
  Query write(ch.new_usd ? store_sql::kCapUpsert : store_sql::kCapDelete, "set cap");
  write.bind(ch.scope).bind(ch.subject).bind(ch.period);
  if (ch.new_usd) write.bind(*ch.new_usd).bind(ch.set_by).bind(ch.at_ms);
  if (Result<Rows> rows = write.run(c); !rows) return fail(rows.error());
  Query audit(store_sql::kCapAudit, "audit cap change");
  audit.bind(ch.scope).bind(ch.subject).bind(ch.period).bind(old_usd);
  audit.bind(ch.new_usd.value_or(store_sql::kNoCap)).bind(ch.set_by).bind(ch.at_ms);
  if (Result<Rows> rows = audit.run(c); !rows) return fail(rows.error());
  return exec(c, "COMMIT", "commit cap change");
}

Result<std::vector<CapSetting>> caps(PGconn* c) {
  Query s(store_sql::kCapList, "list caps");
  Result<Rows> rows = s.run(c);
  if (!rows) return rows.error();
  return collect<CapSetting>(*rows, [](const Rows& r, int i) {
    return CapSetting{r.text(i, 0), r.text(i, 1), r.text(i, 2),
                      r.real(i, 3), r.text(i, 4), r.int64(i, 5)};
  });
}

Result<std::vector<CapChange>> cap_changes(PGconn* c, int limit) {
  Query s(store_sql::kCapChanges, "list cap changes");
  s.bind(limit);
  Result<Rows> rows = s.run(c);
  if (!rows) return rows.error();
  return collect<CapChange>(*rows, [](const Rows& r, int i) {
    auto value = [&](int col) {
      return r.real(i, col) < 0 ? std::nullopt : std::optional<double>(r.real(i, col));
    };
    return CapChange{r.text(i, 0), r.text(i, 1), r.text(i, 2), value(3),
                     value(4),     r.text(i, 5), r.int64(i, 6)};
  });
}

}  // namespace burst::pg
