#include "daemon/scheduler.h"

#include <algorithm>

#include "daemon/lease_owner.h"
#include "registry.h"

namespace burst::daemon {

Scheduler::Scheduler(Clock& clock, Store& store, JobLauncher& launcher, SchedulerOptions options)
    : clock_(clock),
      store_(store),
      launcher_(launcher),
      opt_(std::move(options)),
      durable_(store),
      waiter_(clock.make_waiter()),
      owner_(opt_.lease_owner.empty() ? make_lease_owner() : opt_.lease_owner) {}

Scheduler::~Scheduler() {
  stop();
  // Running jobs' threads call back into this object: wait for them to end, then join.
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return running_.empty(); });
  std::vector<std::thread> threads;
  threads.swap(done_threads_);
  lock.unlock();
  for (auto& t : threads) t.join();
}

void Scheduler::set_pipelines(std::vector<ScheduledPipeline> pipelines, bool apply_missed) {
  const TimePoint now = clock_.now();
  std::vector<std::pair<PipelineSpec, std::string>> catch_up;
  std::vector<Entry> entries;
  for (auto& p : pipelines) {
    Entry e{std::move(p), std::nullopt};
    const std::string& name = e.p.spec.name;
    if (apply_missed) {
      auto last = store_.last_fire(name);
      std::optional<TimePoint> last_fire;
      if (last.ok() && last->has_value()) last_fire = from_unix_ms(**last);
      auto d = schedule::decide_missed_runs(e.p.cron, e.p.zone, last_fire, now, e.p.missed);
      if (d.has_next_fire) e.next = d.next_fire;
      // Claimed, not set: of several burstd on one store only one catches a fire time up.
      bool claimed = true;
      if (d.latest_due) {
        auto c = store_.claim_fire(name, to_unix_ms(*d.latest_due));
        claimed = !c.ok() || *c;
      }
      if (!last.ok() || !last->has_value()) (void)store_.claim_fire(name, to_unix_ms(now));
      if (d.run_now && !claimed) {
        log(name + ": fire at " + format_utc(*d.latest_due) + " was run by another burstd");
      } else if (d.run_now) {
        std::string why = d.catch_up ? "missed run (run-once, " + std::to_string(d.missed) +
                                           " fire time(s) missed)"
                                     : "schedule " + format_utc(*d.latest_due);
        catch_up.emplace_back(e.p.spec, why);
      } else if (d.missed > 0) {
        log(name + ": skipped " + std::to_string(d.missed) +
            " fire time(s) missed while burstd was down (missed: skip)");
      }
    } else {
      e.next = e.p.cron.next_fire(now, e.p.zone);
    }
    entries.push_back(std::move(e));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    pipelines_ = std::move(entries);
  }
  for (auto& [spec, why] : catch_up) {
    log(spec.name + ": " + why);
    submit(spec, why);
  }
  wake();
}

std::string Scheduler::submit(PipelineSpec spec, const std::string& reason,
                              const std::string& spec_text, const std::string& user) {
  std::string id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = enqueue(std::move(spec), reason, spec_text, user);
  }
  wake();
  return id;
}

void Scheduler::restore_queue() {
  auto restored =
      durable_.restore([this](const std::string& l) { log(l); }, to_unix_ms(clock_.now()));
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& r : restored) {
      log("job " + r.id + " (" + r.spec.name + ") queued again after a restart: " + r.reason);
      queue_.push_back({r.id, std::move(r.spec), r.reason, r.queued_ms, r.held_by});
    }
  }
  wake();
}

std::string Scheduler::enqueue(PipelineSpec spec, const std::string& reason,
                               const std::string& spec_text, const std::string& user) {
  Pending p;
  p.id = new_job_id(clock_.now());
  auto taken = [&](const std::string& id) {
    if (running_.count(id)) return true;
    return std::any_of(queue_.begin(), queue_.end(), [&](const Pending& q) { return q.id == id; });
  };
  while (taken(p.id)) p.id = new_job_id(clock_.now());
  p.spec = std::move(spec);
  p.reason = reason;
  // Strictly increasing: the store's queue is taken oldest first (queued_ms, then id), so jobs
  // submitted in one millisecond keep their order.
  p.queued_ms = std::max(to_unix_ms(clock_.now()), last_queued_ms_ + 1);
  last_queued_ms_ = p.queued_ms;
  if (Status st = durable_.add(p.id, p.spec, spec_text, reason, p.queued_ms, user); !st.ok()) {
    log(p.spec.name + ": not queued: " + st.error().message);
    return "";
  }
  queue_.push_back(std::move(p));
  return queue_.back().id;
}

Status Scheduler::cancel(const std::string& job_id) {
  std::unique_lock<std::mutex> lock(mu_);
  if (auto it = running_.find(job_id); it != running_.end()) {
    it->second.interrupts->fetch_add(1);
    log("job " + job_id + ": cancel requested; stopping it and deleting its pods");
    return Status::Ok();
  }
  auto it =
      std::find_if(queue_.begin(), queue_.end(), [&](const Pending& p) { return p.id == job_id; });
  if (it == queue_.end())
    return make_error(ErrorCode::kNotFound, "no queued or running job " + job_id);
  Pending p = std::move(*it);
  queue_.erase(it);
  lock.unlock();
  JobRecord rec;
  rec.id = p.id;
  rec.pipeline = p.spec.name;
  rec.spec_path = p.spec.path;
  rec.state = JobState::kInterrupted;
  rec.phase = "queued";
  rec.error = "cancelled while queued; nothing was created";
  rec.created_ms = p.queued_ms;
  rec.finished_ms = to_unix_ms(clock_.now());
  (void)store_.create_job(rec);
  durable_.remove(p.id);
  log("job " + job_id + ": cancelled while queued");
  return Status::Ok();
}

std::optional<TimePoint> Scheduler::tick() {
  reap_threads();
  const TimePoint now = clock_.now();
  std::vector<JobRecord> take_overs;
  std::optional<TimePoint> next;
  {
    std::lock_guard<std::mutex> lock(mu_);
    fire_due(now);
    sync_with_store(now);
    renew_leases(now);
    start_ready(now, &take_overs);
    for (const auto& e : pipelines_)
      if (e.next && (!next || *e.next < *next)) next = e.next;
    // A job held by a budget cap is asked again within a minute (a new UTC day frees the cap).
    const bool held = std::any_of(queue_.begin(), queue_.end(),
                                  [](const Pending& p) { return !p.held_by.empty(); });
    if (held && !draining_ && (!next || *next > now + std::chrono::minutes(1)))
      next = now + std::chrono::minutes(1);
    if (!running_.empty() && next_renew_ && (!next || *next_renew_ < *next)) next = next_renew_;
    if (opt_.poll.count() > 0 && !draining_ && (!next || *next > now + opt_.poll))
      next = now + opt_.poll;
  }
  for (const JobRecord& job : take_overs) {
    log("job " + job.id + " (" + job.pipeline + "): its daemon's lease ended; taking it over");
    if (opt_.take_over) opt_.take_over(job);
  }
  return next;
}

void Scheduler::sync_with_store(TimePoint now) {
  auto rows = store_.queued_jobs();
  if (!rows.ok()) return;
  const int64_t now_ms = to_unix_ms(now);
  std::set<std::string> free_rows;  // queued rows no other daemon holds
  for (const QueuedJobRecord& q : *rows) {
    const bool foreign = !q.lease_owner.empty() && q.lease_owner != owner_;
    const bool live = q.lease_expires_ms > now_ms;
    if (foreign && live && lease_owner_dead_here(q.lease_owner)) {
      // Its burstd was killed on this host (a restart, or a sibling): no need to wait the lease.
      if (store_.renew_lease(q.id, q.lease_owner, now_ms, 0).ok())
        log("job " + q.id + ": the burstd holding it (" + q.lease_owner +
            ") is gone; its lease ended now");
      free_rows.insert(q.id);
      continue;
    }
    if (!(foreign && live)) free_rows.insert(q.id);
  }
  queue_.erase(std::remove_if(queue_.begin(), queue_.end(),
                              [&](const Pending& p) { return !free_rows.count(p.id); }),
               queue_.end());
}

void Scheduler::renew_leases(TimePoint now) {
  if (leased_.empty()) {
    next_renew_.reset();
    return;
  }
  if (next_renew_ && now < *next_renew_) return;
  const int64_t now_ms = to_unix_ms(now);
  const int64_t lease_ms = opt_.lease.count();
  for (const std::string& id : leased_) {
    if (lost_.count(id)) continue;
    Status st = store_.renew_lease(id, owner_, now_ms, lease_ms);
    if (st.ok() || st.error().code != ErrorCode::kNotFound) continue;
    auto it = running_.find(id);
    if (it == running_.end()) continue;
    lost_.insert(id);
    it->second.interrupts->fetch_add(1);
    log("job " + id + ": its lease was taken over by another burstd; stopping it here");
  }
  next_renew_ = now + opt_.lease / 3;
}

bool Scheduler::queued_in_store(const std::string& job_id) const {
  auto rows = store_.queued_jobs();
  if (!rows.ok()) return false;
  return std::any_of(rows->begin(), rows->end(),
                     [&](const QueuedJobRecord& q) { return q.id == job_id; });
}

bool Scheduler::pending_for(const QueuedJobRecord& q, TimePoint now, Pending* out) {
  auto it =
      std::find_if(queue_.begin(), queue_.end(), [&](const Pending& p) { return p.id == q.id; });
  if (it != queue_.end()) {
    *out = std::move(*it);
    queue_.erase(it);
    return true;
  }
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = q.spec_text.empty()
                                  ? load_spec_file(q.spec_path, &errors, provider_names())
                                  : parse_spec(q.spec_text, q.spec_path, &errors, provider_names());
  if (!spec.ok()) {
    JobRecord rec;
    rec.id = q.id;
    rec.pipeline = q.pipeline;
    rec.spec_path = q.spec_path;
    rec.state = JobState::kFailed;
    rec.phase = "queued";
    rec.error = "queued, then its spec no longer loads: " +
                (errors.empty() ? spec.error().message : errors.front().text);
    rec.created_ms = q.queued_ms;
    rec.finished_ms = to_unix_ms(now);
    (void)store_.create_job(rec);
    durable_.remove(q.id);
    log("job " + q.id + ": " + rec.error);
    return false;
  }
  out->id = q.id;
  out->spec = std::move(*spec);
  out->reason = q.reason;
  out->queued_ms = q.queued_ms;
  out->held_by = q.held_by;
  return true;
}

void Scheduler::fire_due(TimePoint now) {
  for (auto& e : pipelines_) {
    if (!e.next || *e.next > now) continue;
    // Several fire times may have passed (the loop was late): they are one fire, the latest.
    TimePoint fire = *e.next;
    while (auto n = e.p.cron.next_fire(fire, e.p.zone)) {
      if (*n > now) break;
      fire = *n;
    }
    e.next = e.p.cron.next_fire(now, e.p.zone);
    const std::string& name = e.p.spec.name;
    // Several burstd on one store (a team's PostgreSQL) may list the same pipeline: the one whose
    // claim moves the recorded fire time fires; the others log it and wait for the next one. A
    // store error fires anyway, as a lone daemon would.
    auto claimed = store_.claim_fire(name, to_unix_ms(fire));
    if (claimed.ok() && !*claimed) {
      log(name + ": fire at " + format_utc(fire) + " taken by another burstd on this store");
      continue;
    }
    if (draining_) {
      log(name + ": fire at " + format_utc(fire) + " dropped: burstd is draining");
    } else if (!e.p.spec.schedule->overlap && pipeline_busy(name)) {
      log(name + ": fire at " + format_utc(fire) +
          " skipped: its previous run is still going (schedule.overlap is false)");
    } else {
      std::string id = enqueue(e.p.spec, "schedule " + format_utc(fire));
      if (!id.empty()) log(name + ": fired at " + format_utc(fire) + " as job " + id);
    }
  }
}

bool Scheduler::pipeline_running(const std::string& name) const {
  for (const auto& [id, r] : running_)
    if (r.job.spec.name == name) return true;
  return false;
}

bool Scheduler::pipeline_busy(const std::string& name) const {
  if (pipeline_running(name)) return true;
  return std::any_of(queue_.begin(), queue_.end(),
                     [&](const Pending& p) { return p.spec.name == name; });
}

void Scheduler::start_ready(TimePoint now, std::vector<JobRecord>* take_overs) {
  const int64_t now_ms = to_unix_ms(now);
  const int64_t lease_ms = opt_.lease.count();
  std::vector<std::string> let_go;  // claimed but not started here: their leases end below
  std::vector<Pending> waiting;     // of those, the ones still queued, back into queue_
  while (!draining_ &&
         static_cast<int>(running_.size() + take_overs->size()) < opt_.max_concurrent) {
    auto claimed = store_.claim_queued(owner_, now_ms, lease_ms);
    if (!claimed.ok()) {
      log("queue: cannot claim a job from the store: " + claimed.error().message);
      break;
    }
    if (!claimed->has_value()) break;
    const QueuedJobRecord q = std::move(**claimed);
    if (running_.count(q.id)) continue;  // ours, renewed late: the claim renewed it
    auto job = store_.get_job(q.id);
    if (job.ok()) {
      if (job->state == JobState::kRunning) {
        take_overs->push_back(std::move(*job));  // its daemon died mid-run
      } else {
        opt_.ended(q.id);  // it ended; its daemon died before removing the row
        durable_.remove(q.id);
      }
      continue;
    }
    if (job.error().code != ErrorCode::kNotFound) {
      let_go.push_back(q.id);
      break;
    }
    Pending p;
    if (!pending_for(q, now, &p)) continue;
    const PipelineSpec& spec = p.spec;
    const bool may_overlap = spec.schedule && spec.schedule->overlap;
    if (!may_overlap && pipeline_running(spec.name)) {
      let_go.push_back(p.id);  // waits for its own previous run
      waiting.push_back(std::move(p));
      continue;
    }
    if (std::string held = opt_.admit(p.id, spec); held != p.held_by) {
      if (!held.empty()) log("job " + p.id + " waits: " + held);
      p.held_by = held;
      durable_.hold(p.id, held);
    }
    if (!p.held_by.empty()) {
      let_go.push_back(p.id);  // waits for budget; a later, smaller job may still fit
      waiting.push_back(std::move(p));
      continue;
    }
    const std::string id = p.id;
    Running& r = running_[id];
    r.job = std::move(p);
    leased_.insert(id);
    if (!next_renew_) next_renew_ = now + opt_.lease / 3;
    log("job " + id + " (" + r.job.spec.name + ") starting: " + r.job.reason);
    const PipelineSpec* spec_ptr = &r.job.spec;  // stable: the map node lives until finished()
    launch(id, r, [this, id, spec_ptr](const std::function<int()>& interrupts) {
      return launcher_.run(id, *spec_ptr, interrupts);
    });
  }
  for (const std::string& id : let_go) (void)store_.renew_lease(id, owner_, now_ms, 0);
  for (auto& p : waiting) queue_.push_back(std::move(p));
  std::stable_sort(queue_.begin(), queue_.end(),
                   [](const Pending& a, const Pending& b) { return a.queued_ms < b.queued_ms; });
}

void Scheduler::launch(const std::string& id, Running& r,
                       std::function<JobResult(const std::function<int()>&)> body) {
  auto interrupts = std::make_shared<std::atomic<int>>(0);
  r.interrupts = interrupts;
  r.thread = std::thread([this, id, interrupts, body = std::move(body)] {
    JobResult result;
    try {
      result = body([interrupts] { return interrupts->load(); });
    } catch (const std::exception& e) {
      result.state = JobState::kFailed;
      result.error = std::string("internal error: ") + e.what();
    }
    finished(id, result);
  });
}

void Scheduler::adopt(const std::string& job_id, PipelineSpec spec, const std::string& why,
                      bool restart) {
  std::lock_guard<std::mutex> lock(mu_);
  Running& r = running_[job_id];
  r.job.id = job_id;
  r.job.spec = std::move(spec);
  r.job.reason =
      restart ? "run again: its daemon died before its step" : "reattached after a restart";
  r.job.queued_ms = to_unix_ms(clock_.now());
  if (auto rows = store_.queued_jobs(); rows.ok())
    for (const QueuedJobRecord& q : *rows)
      if (q.id == job_id && q.lease_owner == owner_) leased_.insert(job_id);  // a take-over
  if (!next_renew_ && !leased_.empty()) next_renew_ = clock_.now() + opt_.lease / 3;
  log("job " + job_id + " (" + r.job.spec.name + ") " +
      (restart ? "restarting: " : "reattaching: ") + why);
  const PipelineSpec* spec_ptr = &r.job.spec;
  launch(job_id, r, [this, job_id, spec_ptr, why, restart](const std::function<int()>& interrupts) {
    JobResult result = restart ? launcher_.restart(job_id, *spec_ptr, why, interrupts)
                               : launcher_.resume(job_id, *spec_ptr, why, interrupts);
    auto rec = store_.get_job(job_id);
    if (rec.ok() && rec->state == JobState::kRunning && opt_.resume_failed)
      opt_.resume_failed(job_id, result.error);
    return result;
  });
}

void Scheduler::finished(const std::string& id, const JobResult& result) {
  bool lost = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    lost = lost_.count(id) > 0;
  }
  // Before the thread leaves running_ (the destructor waits for that). Settled before the row
  // goes: a burstd killed in between leaves the row, and whoever claims it settles again. A job
  // another daemon took over is that daemon's to settle: its row and its reservation stay.
  if (!lost) {
    opt_.ended(id);
    durable_.remove(id);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    leased_.erase(id);
    lost_.erase(id);
    auto it = running_.find(id);
    if (it != running_.end()) {
      done_threads_.push_back(std::move(it->second.thread));
      running_.erase(it);
    }
  }
  log("job " + id + " " + to_string(result.state) +
      (result.error.empty() ? "" : ": " + result.error));
  cv_.notify_all();
  waiter_->notify();
}

void Scheduler::log(const std::string& line) {
  std::lock_guard<std::mutex> lock(log_mu_);
  opt_.log(line);
}

void Scheduler::reap_threads() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.swap(done_threads_);
  }
  for (auto& t : threads) t.join();
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

void Scheduler::wake() { waiter_->notify(); }

void Scheduler::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  waiter_->notify();
}

void Scheduler::drain() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    draining_ = true;
  }
  log("draining: no new job starts; waiting for running jobs");
  cv_.notify_all();
}

bool Scheduler::draining() const {
  std::lock_guard<std::mutex> lock(mu_);
  return draining_;
}

void Scheduler::interrupt_all() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, r] : running_) r.interrupts->fetch_add(1);
}

bool Scheduler::wait_idle(Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return running_.empty(); });
}

std::vector<JobView> Scheduler::jobs() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JobView> out;
  for (const auto& [id, r] : running_)
    out.push_back({id, r.job.spec.name, JobState::kRunning, r.job.reason, r.job.queued_ms, ""});
  for (const auto& p : queue_)
    out.push_back({p.id, p.spec.name, JobState::kQueued, p.reason, p.queued_ms, p.held_by});
  std::stable_sort(out.begin(), out.end(),
                   [](const JobView& a, const JobView& b) { return a.queued_ms < b.queued_ms; });
  return out;
}

bool Scheduler::is_running(const std::string& job_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_.count(job_id) > 0;
}

int Scheduler::running_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(running_.size());
}

std::optional<TimePoint> Scheduler::next_fire(const std::string& pipeline) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& e : pipelines_)
    if (e.p.spec.name == pipeline) return e.next;
  return std::nullopt;
}

}  // namespace burst::daemon
