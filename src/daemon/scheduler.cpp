#include "daemon/scheduler.h"

#include <algorithm>

#include "daemon/lease_owner.h"

namespace burst::daemon {

Scheduler::Scheduler(Clock& clock, Store& store, JobLauncher& launcher, SchedulerOptions options)
    : clock_(clock),
      store_(store),
      launcher_(launcher),
      opt_(std::move(options)),
      durable_(store),
      leases_(store, opt_.lease_owner.empty() ? make_lease_owner() : opt_.lease_owner, opt_.lease),
      waiter_(clock.make_waiter()),
      pool_(
          clock, [this](const std::string& id, const JobResult&) { job_ended(id); },
          [this](const std::string& id, const JobResult& result) {
            log("job " + id + " " + to_string(result.state) +
                (result.error.empty() ? "" : ": " + result.error));
            waiter_->notify();
          }) {}

Scheduler::~Scheduler() { stop(); }

void Scheduler::set_pipelines(std::vector<ScheduledPipeline> pipelines, bool apply_missed) {
  {
    std::lock_guard<std::mutex> policy(policy_mu_);
    StartPlan plan = plan_start(store_, std::move(pipelines), apply_missed, clock_.now(), log_fn());
    {
      std::lock_guard<std::mutex> lock(mu_);
      pipelines_ = std::move(plan.entries);
    }
    for (auto& [spec, why] : plan.catch_up) {
      log(spec.name + ": " + why);
      enqueue(spec, why);
    }
  }
  wake();
}

std::string Scheduler::submit(PipelineSpec spec, const std::string& reason,
                              const std::string& spec_text, const std::string& user) {
  std::string id;
  {
    std::lock_guard<std::mutex> policy(policy_mu_);
    id = enqueue(std::move(spec), reason, spec_text, user);
  }
  wake();
  return id;
}

void Scheduler::restore_queue() {
  {
    std::lock_guard<std::mutex> policy(policy_mu_);
    auto restored = durable_.restore(log_fn(), to_unix_ms(clock_.now()));
    for (auto& r : restored) {
      log("job " + r.id + " (" + r.spec.name + ") queued again after a restart: " + r.reason);
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push(std::move(r));
    }
  }
  wake();
}

std::string Scheduler::enqueue(PipelineSpec spec, const std::string& reason,
                               const std::string& spec_text, const std::string& user) {
  QueuedJob p;
  {
    std::lock_guard<std::mutex> lock(mu_);
    p.id = new_job_id(clock_.now());
    while (queue_.find(p.id) || pool_.contains(p.id)) p.id = new_job_id(clock_.now());
    // Strictly increasing: the store's queue is taken oldest first (queued_ms, then id), so jobs
    // submitted in one millisecond keep their order.
    p.queued_ms = std::max(to_unix_ms(clock_.now()), last_queued_ms_ + 1);
    last_queued_ms_ = p.queued_ms;
  }
  p.spec = std::move(spec);
  p.reason = reason;
  if (Status st = durable_.add(p.id, p.spec, spec_text, reason, p.queued_ms, user); !st.ok()) {
    log(p.spec.name + ": not queued: " + st.error().message);
    return "";
  }
  const std::string id = p.id;
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push(std::move(p));
  return id;
}

Status Scheduler::cancel(const std::string& job_id) {
  std::optional<QueuedJob> p;
  bool running = false;
  {
    std::lock_guard<std::mutex> lock(mu_);  // a job moves from queue_ to pool_ under it
    running = pool_.interrupt(job_id);
    if (!running) p = queue_.take(job_id);
  }
  if (running) {
    log("job " + job_id + ": cancel requested; stopping it and deleting its pods");
    return Status::Ok();
  }
  if (!p) return make_error(ErrorCode::kNotFound, "no queued or running job " + job_id);
  durable_.record_cancelled(*p, to_unix_ms(clock_.now()));
  log("job " + job_id + ": cancelled while queued");
  return Status::Ok();
}

void Scheduler::adopt(const std::string& job_id, PipelineSpec spec, const std::string& why,
                      bool restart) {
  QueuedJob job{
      job_id, std::move(spec),
      restart ? "run again: its daemon died before its step" : "reattached after a restart",
      to_unix_ms(clock_.now()), ""};
  leases_.hold_if_ours(job_id, clock_.now());  // a take-over
  log("job " + job_id + " (" + job.spec.name + ") " + (restart ? "restarting: " : "reattaching: ") +
      why);
  auto body = [this, job_id, spec = job.spec, why,
               restart](const std::function<int()>& interrupts) {
    JobResult result = restart ? launcher_.restart(job_id, spec, why, interrupts)
                               : launcher_.resume(job_id, spec, why, interrupts);
    auto rec = store_.get_job(job_id);
    if (rec.ok() && rec->state == JobState::kRunning && opt_.resume_failed)
      opt_.resume_failed(job_id, result.error);
    return result;
  };
  std::lock_guard<std::mutex> lock(mu_);
  pool_.start(std::move(job), std::move(body));
}

void Scheduler::job_ended(const std::string& id) {
  // Settled before the row goes: a burstd killed in between leaves the row, and whoever claims it
  // settles again. A job another daemon took over is that daemon's to settle: its row and its
  // reservation stay.
  if (!leases_.lost(id)) {
    opt_.ended(id);
    durable_.remove(id);
  }
  leases_.forget(id);
}

void Scheduler::log(const std::string& line) {
  std::lock_guard<std::mutex> lock(log_mu_);
  opt_.log(line);
}

void Scheduler::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  waiter_->notify();
}

void Scheduler::drain() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    draining_ = true;
  }
  log("draining: no new job starts; waiting for running jobs");
}

bool Scheduler::draining() const {
  std::lock_guard<std::mutex> lock(mu_);
  return draining_;
}

std::vector<JobView> Scheduler::jobs() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JobView> out;
  for (const QueuedJob& r : pool_.jobs())
    out.push_back({r.id, r.spec.name, JobState::kRunning, r.reason, r.queued_ms, ""});
  for (const QueuedJob& p : queue_.jobs())
    out.push_back({p.id, p.spec.name, JobState::kQueued, p.reason, p.queued_ms, p.held_by});
  std::stable_sort(out.begin(), out.end(),
                   [](const JobView& a, const JobView& b) { return a.queued_ms < b.queued_ms; });
  return out;
}

std::optional<TimePoint> Scheduler::next_fire(const std::string& pipeline) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& e : pipelines_)
    if (e.p.spec.name == pipeline) return e.next;
  return std::nullopt;
}

}  // namespace burst::daemon
