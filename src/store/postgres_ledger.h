// The PostgreSQL side of burstd's durable queue, leases and money ledger (Store's calls; the
// contract is in include/burst/store.h). Free functions over one connection, as in
// sqlite_ledger.h; the caller (PostgresStore) holds its connection lock around each call.
// Where daemons on several machines race, the database decides: a claim locks its row with
// FOR UPDATE SKIP LOCKED, and reservations take one transaction-scoped advisory lock, so two
// daemons never reserve against the same headroom.
#pragma once

#include <libpq-fe.h>

#include <optional>
#include <string>
#include <vector>

#include "burst/store.h"

namespace burst::pg {

Status add_queued(PGconn* c, const QueuedJobRecord& q);
Result<std::vector<QueuedJobRecord>> queued_jobs(PGconn* c);
Status set_queued_hold(PGconn* c, const std::string& id, const std::string& held_by);
Status remove_queued(PGconn* c, const std::string& id);
Result<std::optional<QueuedJobRecord>> claim_queued(PGconn* c, const std::string& owner,
                                                    int64_t now_ms, int64_t lease_ms);
Status renew_lease(PGconn* c, const std::string& id, const std::string& owner, int64_t now_ms,
                   int64_t lease_ms);

Result<std::string> reserve(PGconn* c, const ReservationRecord& r,
                            const std::vector<LedgerCap>& caps);
Status release_reservation(PGconn* c, const std::string& job_id, int64_t at_ms);
Result<std::vector<ReservationRecord>> open_reservations(PGconn* c);
Status record_spend(PGconn* c, const SpendRecord& s);
Result<std::vector<SpendRecord>> spend_of_job(PGconn* c, const std::string& job_id);
Result<double> committed_usd(PGconn* c, const LedgerCap& cap, const std::string& day,
                             const std::string& month, const std::string& except_job_id);

Status set_cap(PGconn* c, const CapChange& change);
Result<std::vector<CapSetting>> caps(PGconn* c);
Result<std::vector<CapChange>> cap_changes(PGconn* c, int limit);

}  // namespace burst::pg
