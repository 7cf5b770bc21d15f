// burstd's GET /metrics: the Prometheus text exposition format (version 0.0.4), served on the
// API's listeners with the API's auth (docs/dashboard.md lists every series):
//   burst_jobs{state}                         gauge: jobs by state (queued from the queue, the
//                                             others from the store)
//   burst_queue_length                        gauge: jobs waiting in this burstd's queue
//   burst_pods_alive{provider}                gauge: pod rows not confirmed deleted
//   burst_pods_alive_past_job{provider}       gauge: those whose job is not running
//   burst_spend_usd_total{provider,pipeline}  counter: the ledger's spend records, summed
//   burst_budget_remaining_usd{cap}           gauge: what jobs leave of each burstd cap
//   burst_budget_cap_usd{cap}                 gauge: the cap
//   burst_phase_duration_seconds{phase}       histogram: every ended phase of every job
//   burst_provider_api_errors_total{provider,kind}  counter: failed cloud API calls
//   burst_reconcile_runs_total                counter: reconcile (reap) passes
// A finished job's figures never change, so they are read from the store once and kept: a scrape
// reads the job list, the pod rows and the running jobs' rows only.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "burst/store.h"
#include "daemon/scheduler.h"
#include "job/budget_guard.h"

namespace burst::daemon {

// A sample value as the text format writes it: the shortest decimal that reads back as `v`
// (0.708, never 0.70799999999999996), or +Inf, -Inf, NaN.
std::string metrics_number(double v);

struct MetricsDeps {
  Store& store;
  Scheduler& scheduler;
  std::vector<std::string> providers;  // reported with 0 pods when none is alive
  // burstd's caps, each with its live remainder (Ledger::caps_for).
  std::function<std::vector<BudgetCap>()> caps;
  std::function<int64_t()> reconcile_runs;
};

class Metrics {
 public:
  explicit Metrics(MetricsDeps deps) : d_(std::move(deps)) {}
  // The whole exposition. Thread-safe.
  std::string render();

  static constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

 private:
  struct JobFigures {
    std::string state;
    std::string pipeline;
    std::map<std::string, double> usd_by_provider;
    std::vector<std::pair<std::string, double>> phase_seconds;  // ended phases only
  };
  JobFigures figures(const JobRecord& job, const std::map<int64_t, std::string>& provider_of);

  MetricsDeps d_;
  std::mutex mu_;
  std::map<std::string, JobFigures> finished_;  // by job id: jobs that can no longer change
};

}  // namespace burst::daemon
