// burstd's queue: scheduled pipelines fire on their cron (src/schedule), submitted jobs wait
// their turn (in the store too, daemon/job_queue.h, so a restart loses none), at most
// `max_concurrent` jobs run at once, and a pipeline never overlaps itself unless its schedule says
// `overlap: true`. Jobs run on worker threads through a JobLauncher.
//
// Jobs start from the store's queue, never from memory alone (docs/daemon.md, "Leases"): a free
// slot claims the oldest queued row no live lease holds (Store::claim_queued), so several burstd
// sharing one PostgreSQL database each take different jobs, and a job submitted to one daemon may
// run on another. The lease of every job this daemon runs is renewed every third of its length
// while it runs; a claimed row whose job already has a record was started by a daemon that died
// (its lease ran out, or its owner is a dead process on this host): it goes to `take_over`, which
// reattaches or fails it, so no job runs twice. A lease this daemon lost (another daemon took the
// job over) interrupts its run here. With `poll` (a shared store) an idle daemon looks at the
// queue that often, for jobs other daemons queued or left; without it an idle daemon sleeps.
//
// Time comes only from the Clock. tick() does everything due at clock.now() and says when the
// next fire is; run_loop() calls tick() and then waits on a Waiter of the clock (monotonic time)
// until that time or until something changes (a submit, a job ending, wake()), so an idle daemon
// sleeps. Tests drive tick() or run_loop() with a FakeClock, whose advance() ends the loop's wait,
// and never sleep.
//
// The parts: which schedules fire is pure (daemon/cron_fires.h; the store's claim of a fire in
// daemon/fire_claims.h), the queue is daemon/job_queue.h (rows in the store, RunQueue in memory),
// the leases daemon/lease_book.h, the threads daemon/job_pool.h. This class is the policy over
// them. Its state mutex guards memory only and is never held over a store call, a callback or a
// log line, so jobs(), is_running(), cancel() and the job threads answer while a tick waits on the
// store (a PostgreSQL round trip); tick(), submit(), restore_queue() and set_pipelines() take
// turns on a second mutex, so their store steps never interleave.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/spec.h"
#include "burst/store.h"
#include "daemon/cron_fires.h"
#include "daemon/fire_claims.h"
#include "daemon/job_launcher.h"
#include "daemon/job_pool.h"
#include "daemon/job_queue.h"
#include "daemon/lease_book.h"

namespace burst::daemon {

// A job the daemon knows in memory: queued or running (finished ones are read from the store).
struct JobView {
  std::string id;
  std::string pipeline;
  JobState state = JobState::kQueued;  // kQueued | kRunning
  std::string reason;  // "submitted", "schedule 2026-11-22T03:00:00Z", "missed run (run-once)"
  int64_t queued_ms = 0;
  std::string held_by;  // queued: why it may not start yet (a budget cap); "" otherwise
};

struct SchedulerOptions {
  int max_concurrent = 2;
  // Called from the scheduler's thread, API threads and job threads, one call at a time (the
  // scheduler serialises them), never while it holds its state lock.
  std::function<void(const std::string&)> log = [](const std::string&) {};
  // Before a job starts: "" to let it run (burstd reserves its budget here), or what holds it;
  // a held job stays queued and is asked again on the next tick.
  std::function<std::string(const std::string& job_id, const PipelineSpec&)> admit =
      [](const std::string&, const PipelineSpec&) { return std::string(); };
  // After a job (run or reattached) ended, from its thread; also from tick() for a claimed row
  // whose job had ended elsewhere, and for an admitted job cancelled before it started. Never
  // under the scheduler's state lock.
  std::function<void(const std::string& job_id)> ended = [](const std::string&) {};
  // A reattached job whose runner never took it over (it is still "running" in the store after
  // JobLauncher::resume returned): the daemon fails it and deletes its pods.
  std::function<void(const std::string& job_id, const std::string& error)> resume_failed;
  // The lease owner (daemon/lease_owner.h; "" makes one) and the lease's length.
  std::string lease_owner;
  Duration lease = std::chrono::seconds(30);
  // A shared store: how often an idle daemon looks for work other daemons left; 0: never.
  Duration poll{0};
  // A claimed job that was already started (its daemon died): reattach it (adopt()) or fail it,
  // its pods deleted, and remove its queue row. Called from tick(), without the scheduler's lock.
  std::function<void(const JobRecord& job)> take_over;
};

class Scheduler {
 public:
  Scheduler(Clock& clock, Store& store, JobLauncher& launcher, SchedulerOptions options);
  ~Scheduler();  // stops the loop and waits for running jobs' threads (the pool's destructor)
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Replaces the scheduled pipelines. With `apply_missed` (daemon start), each pipeline's missed
  // fire times are handled from the last fire recorded in the store (docs/schedules.md): run-once
  // queues one run now, skip drops them. A pipeline never seen before is recorded as fired now,
  // so a later restart knows what it missed.
  void set_pipelines(std::vector<ScheduledPipeline> pipelines, bool apply_missed);

  // Queues a job: it is a row in the store when this returns its id; "" when the store refused
  // (nothing queued). `spec_text` is the spec's YAML when it came inline ("" reads spec.path).
  // `user` is who submitted it (the per-user budget caps); "" for none.
  std::string submit(PipelineSpec spec, const std::string& reason,
                     const std::string& spec_text = "", const std::string& user = "");
  // Queues again the jobs an earlier burstd accepted and never started (daemon start).
  void restore_queue();
  // Runs a job a dead burstd left in its run phase through JobLauncher::resume (or, `restart`,
  // one it left before its run step through JobLauncher::restart), now, outside the queue (it
  // counts against the concurrency limit while it runs).
  void adopt(const std::string& job_id, PipelineSpec spec, const std::string& why,
             bool restart = false);
  // A queued job is dropped (recorded as interrupted, "cancelled while queued"); a running one is
  // interrupted: its remote command stops and its pods are deleted. kNotFound when neither.
  Status cancel(const std::string& job_id);

  // Fires due schedules and starts queued jobs; returns the next fire time, if any (at most a
  // minute away while a queued job is held by a budget cap).
  std::optional<TimePoint> tick();

  // Calls tick() and waits (no polling) until the next fire or a change, until stop().
  void run_loop();
  void wake() { waiter_->notify(); }  // re-run tick() now (the clock moved, the config changed)
  void stop();

  // No job starts any more; running ones carry on.
  void drain();
  bool draining() const;
  // Sends one more interrupt to every running job (a second cancel skips the pull).
  void interrupt_all() { pool_.interrupt_all(); }
  // Blocks until no job is running, or `timeout` passes on the clock's monotonic time (a FakeClock
  // must be advanced past it). True when idle.
  bool wait_idle(Duration timeout) { return pool_.wait_idle(timeout); }

  std::vector<JobView> jobs() const;  // queued and running, oldest first
  bool is_running(const std::string& job_id) const { return pool_.contains(job_id); }
  int running_count() const { return pool_.size(); }
  std::optional<TimePoint> next_fire(const std::string& pipeline) const;
  const std::string& lease_owner() const { return leases_.owner(); }
  // Whether the store's queue has a row for the job (a daemon's job, queued or running, which
  // only the lease protocol recovers). False when the store cannot be read.
  bool queued_in_store(const std::string& job_id) const { return durable_.contains(job_id); }

 private:
  void fire_due(TimePoint now);
  std::vector<JobRecord> start_ready(TimePoint now);  // returns the jobs to take over
  // Starts the job of a row this daemon claimed, or leaves it queued (false: the caller ends the
  // claim's lease).
  bool start_claimed(const QueuedJobRecord& q, TimePoint now);
  std::optional<TimePoint> next_wake(TimePoint now) const;
  std::string enqueue(PipelineSpec spec, const std::string& reason,
                      const std::string& spec_text = "", const std::string& user = "");
  void job_ended(const std::string& id);  // on the job's thread, before it leaves the pool
  void log(const std::string& line);      // opt_.log, one call at a time
  LogFn log_fn() {
    return [this](const std::string& l) { log(l); };
  }

  Clock& clock_;
  Store& store_;
  JobLauncher& launcher_;
  SchedulerOptions opt_;
  JobQueue durable_;
  LeaseBook leases_;

  std::mutex policy_mu_;   // tick(), submit(), restore_queue(), set_pipelines(): one at a time
  mutable std::mutex mu_;  // the state below; memory only, taken after policy_mu_
  std::mutex log_mu_;      // taken alone
  std::unique_ptr<Waiter> waiter_;  // run_loop's sleep; wake(), stop() and job ends notify it
  bool stop_ = false;
  bool draining_ = false;
  std::vector<CronEntry> pipelines_;
  RunQueue queue_;
  int64_t last_queued_ms_ = 0;  // enqueue()'s last queued_ms
  JobPool pool_;                // last: its destructor waits for jobs that use the members above
};

}  // namespace burst::daemon
