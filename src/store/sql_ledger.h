// burstd's durable queue, its leases and the money ledger (Store's queue, ledger and cap calls;
// the contract is in include/burst/store.h), written once over the dialect layer (sql_db.h) for
// SQLite and PostgreSQL. Free functions over one connection: the caller (the store) holds its
// connection lock around each call. Where daemons race, the database decides: a claim takes the
// oldest free row in a write transaction (PostgreSQL passes over a row another daemon is taking:
// FOR UPDATE SKIP LOCKED), and reservations run one after the other (SQLite's write lock,
// PostgreSQL's advisory lock), so two daemons never reserve against the same headroom.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burst/store.h"
#include "store/sql_db.h"

namespace burst::sql {

// The queue and its leases (sql_queue.cpp).
Status add_queued(Db& db, const QueuedJobRecord& q);
Result<std::vector<QueuedJobRecord>> queued_jobs(Db& db);
Status set_queued_hold(Db& db, const std::string& id, const std::string& held_by);
Status remove_queued(Db& db, const std::string& id);
Result<std::optional<QueuedJobRecord>> claim_queued(Db& db, const std::string& owner,
                                                    int64_t now_ms, int64_t lease_ms);
Status renew_lease(Db& db, const std::string& id, const std::string& owner, int64_t now_ms,
                   int64_t lease_ms);

// The budget policy: whether a cap counts for a reservation (its pipeline, team and user, where
// set, are the reservation's), and whether the committed spend leaves it room for `usd` more
// (a job with no estimate, 0, still needs some headroom left).
bool cap_applies(const LedgerCap& cap, const ReservationRecord& r);
bool has_headroom(const LedgerCap& cap, double committed_usd, double usd);

// The ledger and the stored caps (sql_ledger.cpp).
Result<std::string> reserve(Db& db, const ReservationRecord& r, const std::vector<LedgerCap>& caps);
Status release_reservation(Db& db, const std::string& job_id, int64_t at_ms);
Result<std::vector<ReservationRecord>> open_reservations(Db& db);
Status record_spend(Db& db, const SpendRecord& s);
Result<std::vector<SpendRecord>> spend_of_job(Db& db, const std::string& job_id);
Result<double> committed_usd(Db& db, const LedgerCap& cap, const std::string& day,
                             const std::string& month, const std::string& except_job_id);

Status set_cap(Db& db, const CapChange& change);
Result<std::vector<CapSetting>> caps(Db& db);
Result<std::vector<CapChange>> cap_changes(Db& db, int limit);

}  // namespace burst::sql
