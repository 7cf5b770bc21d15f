// burstd's money ledger over the Store (docs/daemon.md, "The ledger"). Before a job starts it
// reserves the job's estimated cost (its budget.max_usd; 0 when it has none) against every cap
// it falls under (burstd's budget.usd_per_day and usd_per_month) in one store transaction, so
// two jobs never both count on the same dollars. While it runs, its spend is recorded per pod and
// billing interval and its caps are what other jobs have not committed (their spend plus the
// rest of their reservations): its own spend counts once, however often burstd restarts and
// reattaches it. When it ends its final spend is recorded and its reservation released.
// Time for billing comes from a BillingClock over the Clock, so it never runs backwards.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/spec.h"
#include "burst/store.h"
#include "job/budget_guard.h"

namespace burst::daemon {

class Ledger {
 public:
  Ledger(Store& store, Clock& clock)
      : store_(store), clock_(clock), billing_([&clock] { return clock.mono_now(); }) {}

  // burstd's global caps (config and reload); nullopt: no such cap.
  void set_caps(std::optional<double> usd_per_day, std::optional<double> usd_per_month);
  // The team's caps (over the jobs this `team` reserved, every daemon of it; "" = every job) and
  // each user's (over the jobs that user submitted; a schedule's fire has no user and only the
  // other caps apply to it). Set with set_caps, on config and reload.
  void set_scoped_caps(const std::string& team, std::optional<double> team_usd_per_day,
                       std::optional<double> team_usd_per_month,
                       std::optional<double> user_usd_per_day,
                       std::optional<double> user_usd_per_month);

  // "" when the job's estimate is reserved; otherwise what holds it, for `burst status`:
  // "budget: burstd budget.usd_per_day ($0.0900 committed of $0.1000; this job needs $0.0500)".
  std::string reserve(const std::string& job_id, const PipelineSpec& spec);
  // A job without budget.max_usd reserved $0 at admission (it had no plan yet): once planned, it
  // reserves its plan's estimate before anything is created (issue 35: four such jobs had
  // pushed a $0.02 cap to $0.02108). A job with max_usd keeps that, its hard bound. Returns what
  // reserve() returns; *never_fits is set when the estimate alone is over a cap, so waiting
  // for other jobs to end cannot help.
  std::string reserve_estimate(const std::string& job_id, const PipelineSpec& spec,
                               double estimate_usd, bool* never_fits);
  // The caps the runner checks the job's accrued cost against (job/budget_guard.h), live: each
  // asks the cap's current value (a reload, or `burst caps set` on any host of the team) at
  // every check. For a job (job_id not "") every scope and period is watched, so a cap set while
  // it runs holds it too; "" (metrics, dashboard) lists the caps set now.
  std::vector<BudgetCap> caps_for(const std::string& job_id);
  // Records the job's spend up to now (or each pod's deletion). Idempotent.
  void record(const std::string& job_id);
  // The job ended: its final spend is recorded and its reservation released.
  void settle(const std::string& job_id);
  // At start: settles every open reservation whose job is not `running` (it ended while burstd
  // was down, or recovery failed it); reattached jobs keep theirs.
  void settle_stale(const std::function<bool(const std::string&)>& running);

 private:
  // Every cap a job of `user` and `pipeline` falls under ("" no user: no per-user caps), each
  // with its key ("global/day", "team/month", "user/day", "pipeline/month"): burstd.yaml's caps,
  // where the store holds one of the same key it replaces the file's (the team's one place).
  std::vector<std::pair<std::string, LedgerCap>> keyed_caps(const std::string& user,
                                                            const std::string& pipeline);
  std::vector<LedgerCap> caps(const std::string& user, const std::string& pipeline);
  // The store's caps (Store::caps), read at most every kStoredCapsTtl.
  std::vector<CapSetting> stored_caps();
  // record(), at most once a second per job: the runner checks its caps every ~100 ms.
  void record_soon(const std::string& job_id);
  TimePoint now() { return billing_.now(clock_.now()); }
  std::string user_of(const std::string& job_id);  // who submitted it (its queue row)

  Store& store_;
  Clock& clock_;
  BillingClock billing_;
  mutable std::mutex mu_;  // the caps (reload runs on another thread)
  std::optional<double> usd_per_day_, usd_per_month_;
  std::string team_;
  std::optional<double> team_day_, team_month_, user_day_, user_month_;
  std::map<std::string, TimePoint> recorded_;  // per job, the last record_soon() that wrote
  std::mutex stored_mu_;                       // the cache of the store's caps
  std::vector<CapSetting> stored_;
  std::optional<MonoTime> stored_at_;
};

// How long a daemon keeps the store's caps before asking again: the runner checks its caps every
// ~100 ms, and a change made on any host holds everywhere within this.
inline constexpr Duration kStoredCapsTtl = std::chrono::seconds(2);

}  // namespace burst::daemon
