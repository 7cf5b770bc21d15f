// The SQLite side of burstd's durable queue and money ledger (Store's queue and ledger calls;
// the contract is in include/burst/store.h). Free functions over one connection: the caller
// (SqliteStore) holds its connection lock around each call. Plain SQL that PostgreSQL also runs.
#pragma once

#include <sqlite3.h>

#include <optional>
#include <string>
#include <vector>

#include "burst/store.h"

namespace burst::sqlite {

Status add_queued(sqlite3* db, const QueuedJobRecord& q);
Result<std::vector<QueuedJobRecord>> queued_jobs(sqlite3* db);
Status set_queued_hold(sqlite3* db, const std::string& id, const std::string& held_by);
Status remove_queued(sqlite3* db, const std::string& id);
Result<std::optional<QueuedJobRecord>> claim_queued(sqlite3* db, const std::string& owner,
                                                    int64_t now_ms, int64_t lease_ms);
Status renew_lease(sqlite3* db, const std::string& id, const std::string& owner, int64_t now_ms,
                   int64_t lease_ms);

Result<std::string> reserve(sqlite3* db, const ReservationRecord& r,
                            const std::vector<LedgerCap>& caps);
Status release_reservation(sqlite3* db, const std::string& job_id, int64_t at_ms);
Result<std::vector<ReservationRecord>> open_reservations(sqlite3* db);
Status record_spend(sqlite3* db, const SpendRecord& s);
Result<std::vector<SpendRecord>> spend_of_job(sqlite3* db, const std::string& job_id);
Result<double> committed_usd(sqlite3* db, const LedgerCap& cap, const std::string& day,
                             const std::string& month, const std::string& except_job_id);

Status set_cap(sqlite3* db, const CapChange& change);
Result<std::vector<CapSetting>> caps(sqlite3* db);
Result<std::vector<CapChange>> cap_changes(sqlite3* db, int limit);

}  // namespace burst::sqlite
