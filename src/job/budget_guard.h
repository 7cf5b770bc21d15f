// The mid-run budget stop: a running job's accrued cost (each pod's price x its billed time,
// rounded to the provider's billing increment, plan/billing.h) against its caps: the spec's
// budget.max_usd and, under burstd, what is left of the global daily/monthly caps. The runner
// asks while a step runs (job/job_phases.cpp); time comes from the Clock passed in as `now`,
// through a BillingClock so a wall clock stepping back never makes the check late.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/provider.h"
#include "burst/store.h"

namespace burst {

struct BudgetCap {
  BudgetCap() = default;
  BudgetCap(double cap_usd, std::string cap_name, std::function<double()> live_usd = {})
      : usd(cap_usd), name(std::move(cap_name)), live(std::move(live_usd)) {}

  double usd = 0;
  std::string name;  // "budget.max_usd", "burstd budget.usd_per_day (left today)", ...
  // When set, the cap's current value, asked at every check instead of `usd` (burstd's ledger:
  // what other jobs have not committed yet changes while this one runs).
  std::function<double()> live;
  // When set, the cap's name as it is now (a cap replaced while the job runs: burstd's stored
  // caps), for the stop reason instead of `name`.
  std::function<std::string()> live_name = {};
};

// Wall time for billing that never runs backwards: each answer is at least the previous one
// plus the monotonic time since it, so a wall clock stepped back (NTP, a VM restore) keeps the
// accrued cost growing. A clock stepping forward is taken as it is (it only bills more). Tests
// pass a monotonic source of their own. Thread-safe.
class BillingClock {
 public:
  using Mono = std::function<std::chrono::steady_clock::time_point()>;
  explicit BillingClock(Mono mono = [] { return std::chrono::steady_clock::now(); })
      : mono_(std::move(mono)) {}
  TimePoint now(TimePoint wall);

 private:
  Mono mono_;
  std::mutex mu_;
  std::optional<std::pair<TimePoint, std::chrono::steady_clock::time_point>> last_;
};

// How a job's pods are billed: each pod by its own provider's rule (ProviderTraits::billing). A
// wide job's workers may run on several providers (job/worker_fleet.h); a pod of a provider not
// named in `by_provider` is billed by `rule`, the job's planned provider's.
struct JobBilling {
  JobBilling() = default;
  JobBilling(BillingRule r) : rule(std::move(r)) {}  // NOLINT: one provider, as before
  BillingRule rule;
  std::map<std::string, BillingRule> by_provider;
  const BillingRule& of(const std::string& provider) const {
    auto it = by_provider.find(provider);
    return it == by_provider.end() ? rule : it->second;
  }
};

// What `pods` have cost by `at`, as billed: from each pod's create request to its confirmed
// deletion (or `at`), each rounded per its provider's rule and priced at its own recorded
// $/hour. Pods that were never created (create-failed) cost nothing.
double accrued_usd(const std::vector<PodRecord>& pods, TimePoint at, const JobBilling& billing);

// A job's money caps on its pods: the spec's budget.max_usd, then `extra` (burstd's daily and
// monthly caps), each less `committed_usd`: what the plan priced that no pod bills, the host's
// per-GB charge on its downloads (Vast's inet_down_cost; Estimate::transfer_usd), counted as
// spent from the start so the pods stop before the whole bill passes a cap. A cap so lowered
// says so in its name: "budget.max_usd, less $0.3400 of per-GB downloads (estimated)".
std::vector<BudgetCap> job_money_caps(std::optional<double> max_usd,
                                      const std::vector<BudgetCap>& extra, double committed_usd);

// The time a stop and a delete take: a cap counts as crossed when the cost billed `margin` from
// now would exceed it, so the pod is gone before the bill passes the cap.
inline constexpr Duration kBudgetMargin = std::chrono::seconds(30);

// "" while every cap holds; otherwise why the job must stop:
// "stopped by budget: accrued $0.5100 would cross cap $0.5000 (budget.max_usd)".
std::string budget_stop_reason(const std::vector<PodRecord>& pods, TimePoint now,
                               const std::vector<BudgetCap>& caps, const JobBilling& billing,
                               Duration margin = kBudgetMargin);

}  // namespace burst
