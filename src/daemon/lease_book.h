// The leases of the jobs this burstd runs from the store's queue (docs/daemon.md, "Leases";
// Store::claim_queued, renew_lease). Each is renewed every third of its length while its job
// runs; one another daemon took over (its renewal finds no row of ours) is reported once, so the
// scheduler stops that job here. Also reads which queued rows no other daemon holds, ending at
// once the leases of owners proven dead (daemon/lease_owner.h).
//
// Thread-safe. Its mutex guards only its sets and is never held over a store call; every method
// that calls the store says so, and its caller must hold no lock another thread needs to answer.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/store.h"

namespace burst::daemon {

// A row claimed from the store's queue under this daemon's lease, and what it holds.
struct Claim {
  enum class Kind {
    kNone,     // no free row (or the store failed: logged)
    kNew,      // a job never started: start it or let it go
    kStarted,  // its job runs in the store: its daemon died mid-run (`job` is its record)
    kEnded,    // its job ended; its daemon died before removing the row
    kUnknown,  // the job's record cannot be read now: let it go
  };
  Kind kind = Kind::kNone;
  QueuedJobRecord row;
  JobRecord job;
};

class LeaseBook {
 public:
  LeaseBook(Store& store, std::string owner, Duration lease)
      : store_(store), owner_(std::move(owner)), lease_(lease) {}

  const std::string& owner() const { return owner_; }
  Duration length() const { return lease_; }

  // A job started here under this daemon's lease: renewed from now on.
  void hold(const std::string& id, TimePoint now);
  // A job reattached here: held when its queue row is leased to this daemon (a take-over).
  // Calls the store.
  void hold_if_ours(const std::string& id, TimePoint now);
  // Whether another daemon took the job over (renew_due() reported it).
  bool lost(const std::string& id) const;
  // The job ended here: no more renewals.
  void forget(const std::string& id);

  // Renews the leases due at `now` (calls the store). Returns the held jobs whose lease another
  // daemon has taken, each once (lost() then says so): the caller stops them here.
  std::vector<std::string> renew_due(TimePoint now);
  // When the next renewal is due (none while nothing is held).
  std::optional<TimePoint> next_renew() const;

  // The queued rows (by id) no other daemon's live lease holds; leases of owners proven dead on
  // this host end now (logged). Nullopt when the store cannot be read. Calls the store.
  std::optional<std::set<std::string>> free_rows(
      TimePoint now, const std::function<void(const std::string&)>& log);
  // Claims the oldest free queued row for this daemon (calls the store).
  Claim claim(TimePoint now, const std::function<void(const std::string&)>& log);
  // Ends this daemon's leases on rows it claimed but did not start. Calls the store.
  void release(const std::vector<std::string>& ids, TimePoint now);

 private:
  Store& store_;
  const std::string owner_;
  const Duration lease_;
  mutable std::mutex mu_;
  std::set<std::string> held_;  // running jobs whose queue row this daemon leases
  std::set<std::string> lost_;  // of those, the ones another daemon took over
  std::optional<TimePoint> next_renew_;
};

}  // namespace burst::daemon
