// The job's deadlines, kept on a thread of their own so that they hold while the job thread is
// blocked in a read from a pod that has gone quiet. Every `period` it checks, on the injected
// Clock: budget.deadline (the whole job, from its start: every phase up to the last upload),
// budget.max_runtime (from the run phase's start until the GPU pod's teardown begins), the
// money caps over the job's pods (job/budget_guard.h) and stop requests (Ctrl-C, SIGTERM,
// `burst cancel`, burstd's drain: JobDeps::interrupts). The first that fires is the job's stop
// reason. The job thread normally notices it within 100 ms (its step loops poll) and stops
// gracefully; if it then shows no progress (JobWatchdog::progress) for `grace`, it is stuck on the
// pod, and the watchdog aborts every attached RemoteSession so the blocked call returns and the
// runner goes on to delete the pod through the provider's API.
//
// budget.deadline is hard: once it fires, every attached session (and every one attached later)
// is aborted `deadline_grace` after it, whether the job thread moves or not. A transfer that keeps
// trickling bytes (a sync or a pull has no stop of its own) cannot outlive it, and the job ends
// within the deadline plus the grace plus the delete, whatever the pod does or does not answer.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "burst/clock.h"
#include "burst/remote.h"
#include "burst/store.h"
#include "job/budget_guard.h"

namespace burst {

struct WatchdogConfig {
  std::vector<BudgetCap> caps;
  JobBilling billing;  // each provider's rule, for the caps (job/budget_guard.h)
  std::string stop_source = "Ctrl-C or SIGTERM";  // named in the reason
  Duration grace = std::chrono::seconds(3);       // a healthy stop command takes about 1 s
  // Past budget.deadline, sessions are aborted this long after it, moving or not: a step gets
  // about a second to stop its command (the pod's delete stops it anyway; nothing is pulled).
  Duration deadline_grace = std::chrono::seconds(1);
  Duration period = std::chrono::milliseconds(200);
};

class JobWatchdog {
 public:
  // `interrupts` counts stop requests; `pods` lists the job's pods for the money caps.
  JobWatchdog(Clock& clock, std::function<int()> interrupts,
              std::function<std::vector<PodRecord>()> pods, WatchdogConfig config);
  ~JobWatchdog();  // stops the thread
  JobWatchdog(const JobWatchdog&) = delete;
  JobWatchdog& operator=(const JobWatchdog&) = delete;

  void start();  // the thread; tests may call check() instead
  void stop();

  // From the job thread.
  void set_runtime_limit(TimePoint run_start, double max_seconds);  // max_seconds 0: none
  void clear_runtime_limit();
  // As set_runtime_limit, unless a limit is set already: a fleet's first worker to start its run
  // step starts the job's limit (job/worker_fleet.h).
  void start_runtime_limit(TimePoint run_start, double max_seconds);
  // budget.deadline: the job must be over `max_seconds` after `start` (0: none). Never cleared:
  // only the deletes, which use the provider's API alone, run after it.
  void set_deadline(TimePoint start, double max_seconds);
  // The deadline fired (it may not be the job's first stop reason: deadline_reason() is its own).
  bool deadline_passed() const;
  std::string deadline_reason() const;  // "stopped: budget.deadline (20 s) reached"
  void progress();  // the job thread is moving: bytes arrived, or its poll loop ran
  // A session to abort when the job is stuck. Detach before destroying it.
  void attach(RemoteSession* session);
  void detach(RemoteSession* session);

  // "" until a deadline fired; then e.g. "stopped: budget.max_runtime (30 s) reached".
  std::string reason() const;
  // The limit behind reason(), typed: kNone before it fired and for a stop request.
  JobStop stopped_by() const;
  bool fired() const;
  bool aborted() const;  // sessions were aborted (the job was stuck on the pod)

  // One round of checks, as the thread runs every period. Returns reason().
  std::string check();

 private:
  std::string find_reason(TimePoint now, bool* deadline, JobStop* stop);

  Clock& clock_;
  std::function<int()> interrupts_;
  std::function<std::vector<PodRecord>()> pods_;
  WatchdogConfig cfg_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
  TimePoint run_start_{};
  double max_seconds_ = 0;
  TimePoint deadline_start_{};
  double deadline_seconds_ = 0;
  bool deadline_passed_ = false;
  TimePoint deadline_at_{};
  TimePoint last_progress_{};
  BillingClock billing_clock_;  // the budget check's time: never runs backwards
  TimePoint fired_at_{};
  std::string reason_;
  JobStop stop_ = JobStop::kNone;
  bool aborted_ = false;
  std::set<RemoteSession*> sessions_;
};

}  // namespace burst
