#include "daemon/job_queue.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "app/unstarted_job.h"
#include "registry.h"

namespace burst::daemon {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "";
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

Status JobQueue::add(const std::string& id, const PipelineSpec& spec, const std::string& spec_text,
                     const std::string& reason, int64_t queued_ms, const std::string& user) {
  QueuedJobRecord q;
  q.id = id;
  q.pipeline = spec.name;
  q.spec_path = spec.path;
  q.spec_text = spec_text.empty() ? read_file(spec.path) : spec_text;
  q.reason = reason;
  q.queued_ms = queued_ms;
  q.user = user;
  return store_.add_queued(q);
}

void JobQueue::hold(const std::string& id, const std::string& held_by) {
  (void)store_.set_queued_hold(id, held_by);
}

void JobQueue::remove(const std::string& id) { (void)store_.remove_queued(id); }

void JobQueue::record_cancelled(const QueuedJob& job, int64_t now_ms) {
  UnstartedJob rec{job.id, job.spec.name, job.spec.path, JobState::kInterrupted, Phase::kQueued};
  rec.error = "cancelled while queued; nothing was created";
  rec.created_ms = job.queued_ms;
  rec.finished_ms = now_ms;
  (void)record_unstarted(store_, rec);
  remove(job.id);
}

bool JobQueue::contains(const std::string& id) const {
  auto rows = store_.queued_jobs();
  if (!rows.ok()) return false;
  return std::any_of(rows->begin(), rows->end(),
                     [&](const QueuedJobRecord& q) { return q.id == id; });
}

std::vector<RestoredJob> JobQueue::restore(const std::function<void(const std::string&)>& log,
                                           int64_t now_ms) {
  std::vector<RestoredJob> out;
  auto rows = store_.queued_jobs();
  if (!rows.ok()) {
    log("queue: cannot read the queue from the store: " + rows.error().message);
    return out;
  }
  for (const QueuedJobRecord& q : *rows) {
    // Started (by a daemon that died, or one still running it: the scheduler's claim tells them
    // apart and takes the job over when its lease ends), or held by another daemon's live lease.
    if (store_.get_job(q.id).ok()) continue;
    if (!q.lease_owner.empty() && q.lease_expires_ms > now_ms) continue;
    std::optional<QueuedJob> job =
        load(q, "queued before burstd restarted; its spec no longer loads", now_ms, log);
    if (job) out.push_back(std::move(*job));
  }
  return out;
}

std::optional<QueuedJob> JobQueue::load(const QueuedJobRecord& q, const std::string& why,
                                        int64_t now_ms,
                                        const std::function<void(const std::string&)>& log) {
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = q.spec_text.empty()
                                  ? load_spec_file(q.spec_path, &errors, provider_names())
                                  : parse_spec(q.spec_text, q.spec_path, &errors, provider_names());
  if (!spec.ok()) {
    UnstartedJob rec{q.id, q.pipeline, q.spec_path, JobState::kFailed, Phase::kQueued};
    rec.error = why + ": " + (errors.empty() ? spec.error().message : errors.front().text);
    rec.created_ms = q.queued_ms;
    rec.finished_ms = now_ms;
    (void)record_unstarted(store_, rec);
    remove(q.id);
    log("job " + q.id + ": " + rec.error);
    return std::nullopt;
  }
  return QueuedJob{q.id, std::move(*spec), q.reason, q.queued_ms, q.held_by};
}

void RunQueue::push(QueuedJob job) {
  auto at = std::upper_bound(jobs_.begin(), jobs_.end(), job.queued_ms,
                             [](int64_t ms, const QueuedJob& j) { return ms < j.queued_ms; });
  jobs_.insert(at, std::move(job));
}

std::optional<QueuedJob> RunQueue::take(const std::string& id) {
  auto it =
      std::find_if(jobs_.begin(), jobs_.end(), [&](const QueuedJob& j) { return j.id == id; });
  if (it == jobs_.end()) return std::nullopt;
  QueuedJob job = std::move(*it);
  jobs_.erase(it);
  return job;
}

const QueuedJob* RunQueue::find(const std::string& id) const {
  for (const QueuedJob& j : jobs_)
    if (j.id == id) return &j;
  return nullptr;
}

QueuedJob* RunQueue::find(const std::string& id) {
  for (QueuedJob& j : jobs_)
    if (j.id == id) return &j;
  return nullptr;
}

bool RunQueue::has_pipeline(const std::string& name) const {
  return std::any_of(jobs_.begin(), jobs_.end(),
                     [&](const QueuedJob& j) { return j.spec.name == name; });
}

bool RunQueue::any_held() const {
  return std::any_of(jobs_.begin(), jobs_.end(),
                     [](const QueuedJob& j) { return !j.held_by.empty(); });
}

void RunQueue::keep_only(const std::set<std::string>& ids) {
  jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(),
                             [&](const QueuedJob& j) { return !ids.count(j.id); }),
              jobs_.end());
}

}  // namespace burst::daemon
