// The job context: what every part of one job's phases (job/job_phases.h) shares about the job
// itself rather than its pods. It says things (console and the job's 0600 log, every line
// redacted and made terminal-safe, "[w<i>] " before a fleet worker's), keeps the job's first
// failure, turns an error into a phase's Outcome (naming the deadline, the fleet's stop or the
// stop request that caused it), and answers whether the job must stop: a stop request,
// budget.deadline passed (job/job_watchdog.h), a money cap reached (job/budget_guard.h). It
// tells JobDeps::faults each fault point. Internal to src/job; one per job (or fleet worker),
// used from the job's (worker's) thread only.
#pragma once

#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "job/job_types.h"
#include "job/job_watchdog.h"
#include "util/redactor.h"

namespace burst {

class JobContext {
 public:
  // Opens <logs_dir>/<job id>.log (0600, appended) and gathers the job's money caps: the spec's
  // budget.max_usd and JobDeps::extra_caps, less the plan's per-GB downloads (job_money_caps).
  JobContext(JobDeps& deps, JobInput& input, Redactor& redact);

  JobDeps& deps() const { return d_; }
  JobInput& input() const { return in_; }
  const Redactor& redact() const { return redact_; }

  // The job's deadlines: sessions are attached to it while they live (adopt_session), the run
  // step sets its runtime limit, and a failure caused by its abort names the deadline.
  void set_watchdog(JobWatchdog* watchdog) { watchdog_ = watchdog; }
  JobWatchdog* watchdog() const { return watchdog_; }
  // One worker of several (JobInput::worker.count > 1): `stop_reason` says why the fleet stops
  // ("" while it runs on), `provision` is what the workers share (job/job_types.h).
  void set_fleet(std::function<std::string()> stop_reason, FleetProvision* provision);
  FleetProvision* fleet() const { return fleet_provision_; }
  bool wide() const { return in_.worker.count > 1; }

  // A line for the user (console.line and the log), redacted, terminal-safe, tagged.
  void say(const std::string& text);
  // A phase begins: the typed fact to the console (Console::phase_started, with this worker's
  // index in a job of several), then the "==> <phase>" line, as say writes it.
  void phase_started(Phase phase);
  // A line a pod's command wrote (console.remote_out/err and the log, "| " or "! ").
  void remote_line(bool is_err, const std::string& line);
  // Keeps `why` (redacted) as the job's error unless one is kept already: the first one wins,
  // and `stop` (which limit stopped the job, if one did) with it.
  void fail(const std::string& why, JobStop stop = JobStop::kNone);
  const std::string& error() const { return error_; }
  JobStop stop() const { return stop_; }  // the limit behind error(); kNone without one
  // A phase's failure: *detail becomes "<what>: <why>" (redacted), the job's error (first wins),
  // and an "error: " line. kInterrupted for a stop, kConnectionLost for a broken session, else
  // kFailed. The cause is the watchdog's when its deadline or abort broke the call, the fleet's
  // when a worker stopped with it, the stop request's when one came.
  // `stop`: the limit the caller knows stopped the job (step_runner's budget.max_runtime, a money
  // cap); a deadline, the watchdog's or the no-progress timeout's stop is found here. It becomes
  // the job's typed stop with its error (first wins).
  Outcome failed(const Error& error, const std::string& what, std::string* detail,
                 JobStop stop = JobStop::kNone);
  // The end of a phase that did its work: kOk, kInterrupted after a stop request, or the failure
  // "<what>: stopped: budget.deadline (N s) reached" once the deadline has passed.
  Outcome unless_stopped(const std::string& what, std::string* detail);

  // A stop request, or budget.deadline passed: whatever polls for a stop.
  bool interrupted() const { return d_.interrupts() > 0 || past_deadline(); }
  bool past_deadline() const { return watchdog_ && watchdog_->deadline_passed(); }
  // "" or why the money caps stop the job: over `own_pods` (JobPods::records()) for a one-pod
  // job, over every pod of the job in the store for a fleet's worker (retried ones included).
  std::string budget_exceeded(const std::vector<PodRecord>& own_pods) const;
  // A limit (budget.max_runtime, budget.deadline, a money cap) stopped the job: never retried.
  void set_stopped_by_limit(bool stopped = true) { stopped_by_limit_ = stopped; }
  bool stopped_by_limit() const { return stopped_by_limit_; }
  // The job thread is moving (bytes arrived, a poll loop ran): the watchdog's progress.
  void moving() {
    if (watchdog_) watchdog_->progress();
  }
  // Tells JobDeps::faults (if any) that the job is at `point` + `suffix` ("mid-" + "run").
  void fault(std::string_view point, std::string_view suffix = {});

  // A pod's session, attached to the watchdog while it lives (so its abort breaks a stuck call).
  void adopt_session(PodHandle& pod, std::unique_ptr<RemoteSession> session);
  void drop_session(PodHandle& pod);

 private:
  JobDeps& d_;
  JobInput& in_;
  Redactor& redact_;
  std::ofstream log_;
  std::string error_;
  JobStop stop_ = JobStop::kNone;
  std::string tag_;                     // "[w2] " for a worker of several, else ""
  std::vector<BudgetCap> caps_;         // budget.max_usd and the extra caps from JobDeps
  mutable BillingClock billing_clock_;  // the budget check's time: never runs backwards
  const JobBilling billing_;            // each provider's rule (billing_of_plan)
  JobWatchdog* watchdog_ = nullptr;
  std::function<std::string()> fleet_stop_;
  FleetProvision* fleet_provision_ = nullptr;
  bool stopped_by_limit_ = false;
};

}  // namespace burst
