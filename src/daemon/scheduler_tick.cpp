// The Scheduler's policy loop (daemon/scheduler.h): tick() and run_loop(). Every store call here
// is made without the state mutex mu_; tick() holds only policy_mu_.
#include <algorithm>

#include "daemon/scheduler.h"

namespace burst::daemon {

std::optional<TimePoint> Scheduler::tick() {
  std::unique_lock<std::mutex> policy(policy_mu_);
  pool_.reap();
  const TimePoint now = clock_.now();
  fire_due(now);
  // Drops from the local queue the jobs the store no longer has queued for anyone (started or
  // ended elsewhere); ends the live leases of owners proven dead (lease_owner.h).
  if (auto free = leases_.free_rows(now, log_fn())) {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.keep_only(*free);
  }
  for (const std::string& id : leases_.renew_due(now))
    if (pool_.interrupt(id))
      log("job " + id + ": its lease was taken over by another burstd; stopping it here");
  std::vector<JobRecord> take_overs = start_ready(now);
  const std::optional<TimePoint> next = next_wake(now);
  policy.unlock();
  for (const JobRecord& job : take_overs) {
    log("job " + job.id + " (" + job.pipeline + "): its daemon's lease ended; taking it over");
    if (opt_.take_over) opt_.take_over(job);
  }
  return next;
}

void Scheduler::fire_due(TimePoint now) {
  std::vector<DueFire> due;
  {
    std::lock_guard<std::mutex> lock(mu_);
    due = take_due_fires(pipelines_, now);
  }
  for (DueFire& f : due) {
    const std::string& name = f.spec.name;
    const std::string at = "fire at " + format_utc(f.fire);
    if (!claim_fire(store_, name, f.fire, log_fn())) continue;
    bool draining = false;
    bool busy = false;  // queued or running
    {
      std::lock_guard<std::mutex> lock(mu_);
      draining = draining_;
      busy = queue_.has_pipeline(name) || pool_.pipeline_running(name);
    }
    if (draining) {
      log(name + ": " + at + " dropped: burstd is draining");
    } else if (!f.spec.schedule->overlap && busy) {
      log(name + ": " + at +
          " skipped: its previous run is still going (schedule.overlap is false)");
    } else {
      std::string id = enqueue(f.spec, "schedule " + format_utc(f.fire));
      if (!id.empty()) log(name + ": fired at " + format_utc(f.fire) + " as job " + id);
    }
  }
}

std::vector<JobRecord> Scheduler::start_ready(TimePoint now) {
  std::vector<JobRecord> take_overs;
  std::vector<std::string> let_go;  // claimed but not started here: their leases end below
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (draining_ || pool_.size() + static_cast<int>(take_overs.size()) >= opt_.max_concurrent)
        break;
    }
    Claim c = leases_.claim(now, log_fn());
    if (c.kind == Claim::Kind::kNone) break;
    const QueuedJobRecord& q = c.row;
    if (pool_.contains(q.id)) continue;  // ours, renewed late: the claim renewed it
    if (c.kind == Claim::Kind::kStarted) {
      take_overs.push_back(std::move(c.job));  // its daemon died mid-run
    } else if (c.kind == Claim::Kind::kEnded) {
      opt_.ended(q.id);  // it ended; its daemon died before removing the row
      durable_.remove(q.id);
    } else if (c.kind == Claim::Kind::kUnknown) {
      let_go.push_back(q.id);
      break;
    } else if (!start_claimed(q, now)) {
      let_go.push_back(q.id);
    }
  }
  leases_.release(let_go, now);
  return take_overs;
}

bool Scheduler::start_claimed(const QueuedJobRecord& q, TimePoint now) {
  std::optional<QueuedJob> p;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (const QueuedJob* mine = queue_.find(q.id)) p = *mine;
  }
  const bool local = p.has_value();
  if (!p) p = durable_.load(q, "queued, then its spec no longer loads", to_unix_ms(now), log_fn());
  if (!p) return true;  // recorded as failed; its row is gone
  const bool may_overlap = p->spec.schedule && p->spec.schedule->overlap;
  bool wait = !may_overlap && pool_.pipeline_running(p->spec.name);  // its own previous run
  bool admitted = false;
  if (!wait) {
    if (std::string held = opt_.admit(p->id, p->spec); held != p->held_by) {
      if (!held.empty()) log("job " + p->id + " waits: " + held);
      p->held_by = held;
      durable_.hold(p->id, held);
    }
    wait = !p->held_by.empty();  // for budget; a later, smaller job may still fit
    admitted = !wait;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);  // from queue_ to pool_ at once (jobs(), cancel())
    const bool cancelled = local && !queue_.take(q.id);
    if (!cancelled && wait) queue_.push(*p);
    if (!cancelled && !wait) {
      leases_.hold(p->id, now);
      const std::string id = p->id;
      const std::string line = "job " + id + " (" + p->spec.name + ") starting: " + p->reason;
      pool_.start(*p, [this, id, line, spec = p->spec](const std::function<int()>& interrupts) {
        log(line);
        return launcher_.run(id, spec, interrupts);
      });
      return true;
    }
    if (!cancelled) return false;
  }
  if (admitted) opt_.ended(q.id);  // cancelled while it was admitted: its reservation goes
  return false;
}

std::optional<TimePoint> Scheduler::next_wake(TimePoint now) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<TimePoint> next = earliest_fire(pipelines_);
  // A job held by a budget cap is asked again within a minute (a new UTC day frees the cap).
  if (queue_.any_held() && !draining_ && (!next || *next > now + std::chrono::minutes(1)))
    next = now + std::chrono::minutes(1);
  const std::optional<TimePoint> renew = leases_.next_renew();
  if (pool_.size() > 0 && renew && (!next || *renew < *next)) next = renew;
  if (opt_.poll.count() > 0 && !draining_ && (!next || *next > now + opt_.poll))
    next = now + opt_.poll;
  return next;
}

void Scheduler::run_loop() {
  while (true) {
    std::optional<TimePoint> next = tick();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
    }
    if (!next) {
      waiter_->wait();
      continue;
    }
    // The fire time is on the wall clock; the wait runs on monotonic time, capped so a wall clock
    // that jumps (suspend, NTP) is noticed within a minute. Monotonic time is read first: if the
    // clock moves between the two reads, the wait ends early and tick() runs again, never late.
    const MonoTime mono = clock_.mono_now();
    const Duration wait = std::min<Duration>(
        std::chrono::duration_cast<Duration>(*next - clock_.now()), std::chrono::minutes(1));
    if (wait.count() > 0) waiter_->wait_until(mono + wait);
  }
}

}  // namespace burst::daemon
