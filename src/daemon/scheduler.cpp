#include "daemon/scheduler.h"

#include <algorithm>

namespace burst::daemon {

Scheduler::Scheduler(Clock& clock, Store& store, JobLauncher& launcher, SchedulerOptions options)
    : clock_(clock),
      store_(store),
      launcher_(launcher),
      opt_(std::move(options)),
      durable_(store),
      waiter_(clock.make_waiter()) {}

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
      if (d.latest_due) (void)store_.set_last_fire(name, to_unix_ms(*d.latest_due));
      if (!last.ok() || !last->has_value()) (void)store_.set_last_fire(name, to_unix_ms(now));
      if (d.run_now) {
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
                              const std::string& spec_text) {
  std::string id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = enqueue(std::move(spec), reason, spec_text);
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
                               const std::string& spec_text) {
  Pending p;
  p.id = new_job_id(clock_.now());
  auto taken = [&](const std::string& id) {
    if (running_.count(id)) return true;
    return std::any_of(queue_.begin(), queue_.end(), [&](const Pending& q) { return q.id == id; });
  };
  while (taken(p.id)) p.id = new_job_id(clock_.now());
  p.spec = std::move(spec);
  p.reason = reason;
  p.queued_ms = to_unix_ms(clock_.now());
  if (Status st = durable_.add(p.id, p.spec, spec_text, reason, p.queued_ms); !st.ok()) {
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
  std::lock_guard<std::mutex> lock(mu_);
  fire_due(now);
  start_ready();
  std::optional<TimePoint> next;
  for (const auto& e : pipelines_)
    if (e.next && (!next || *e.next < *next)) next = e.next;
  // A job held by a budget cap is asked again within a minute (a new UTC day frees the cap).
  const bool held = std::any_of(queue_.begin(), queue_.end(),
                                [](const Pending& p) { return !p.held_by.empty(); });
  if (held && !draining_ && (!next || *next > now + std::chrono::minutes(1)))
    next = now + std::chrono::minutes(1);
  return next;
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
    (void)store_.set_last_fire(name, to_unix_ms(fire));
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

void Scheduler::start_ready() {
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (draining_ || static_cast<int>(running_.size()) >= opt_.max_concurrent) return;
    const PipelineSpec& spec = it->spec;
    const bool may_overlap = spec.schedule && spec.schedule->overlap;
    if (!may_overlap && pipeline_running(spec.name)) {
      ++it;  // waits for its own previous run
      continue;
    }
    if (std::string held = opt_.admit(it->id, spec); held != it->held_by) {
      if (!held.empty()) log("job " + it->id + " waits: " + held);
      it->held_by = held;
      durable_.hold(it->id, held);
    }
    if (!it->held_by.empty()) {
      ++it;  // waits for budget; a later, smaller job may still fit
      continue;
    }
    Pending p = std::move(*it);
    it = queue_.erase(it);
    const std::string id = p.id;
    Running& r = running_[id];
    r.job = std::move(p);
    log("job " + id + " (" + r.job.spec.name + ") starting: " + r.job.reason);
    const PipelineSpec* spec_ptr = &r.job.spec;  // stable: the map node lives until finished()
    launch(id, r, [this, id, spec_ptr](const std::function<int()>& interrupts) {
      return launcher_.run(id, *spec_ptr, interrupts);
    });
  }
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

void Scheduler::adopt(const std::string& job_id, PipelineSpec spec, const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  Running& r = running_[job_id];
  r.job.id = job_id;
  r.job.spec = std::move(spec);
  r.job.reason = "reattached after a restart";
  r.job.queued_ms = to_unix_ms(clock_.now());
  log("job " + job_id + " (" + r.job.spec.name + ") reattaching: " + why);
  const PipelineSpec* spec_ptr = &r.job.spec;
  launch(job_id, r, [this, job_id, spec_ptr, why](const std::function<int()>& interrupts) {
    JobResult result = launcher_.resume(job_id, *spec_ptr, why, interrupts);
    auto rec = store_.get_job(job_id);
    if (rec.ok() && rec->state == JobState::kRunning && opt_.resume_failed)
      opt_.resume_failed(job_id, result.error);
    return result;
  });
}

void Scheduler::finished(const std::string& id, const JobResult& result) {
  durable_.remove(id);  // before the thread leaves running_: the destructor waits for that
  opt_.ended(id);
  {
    std::lock_guard<std::mutex> lock(mu_);
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
