#include "daemon/reconciler.h"

#include <set>

#include "app/finish.h"
#include "job/pod_lifecycle.h"

namespace burst::daemon {

Reconciler::Reconciler(ReconcileDeps deps, Duration orphan_grace)
    : d_(std::move(deps)), grace_(orphan_grace) {}

Provider* Reconciler::provider(const std::string& name, std::string* why) {
  if (auto it = providers_.find(name); it != providers_.end()) return it->second.get();
  auto made = d_.make_provider(name);
  if (!made) {
    *why = made.error().message;
    return nullptr;
  }
  return (providers_[name] = std::move(*made)).get();
}

std::string Reconciler::open_phase(const JobRecord& job) {
  std::string open = job.phase;  // the runner records a phase in the job once it has ended
  if (auto phases = d_.store.phases(job.id); phases.ok())
    for (const auto& p : *phases)
      if (p.ended_ms == 0) open = p.phase;
  return open;
}

void Reconciler::fail_job(JobRecord job, const std::string& why) {
  const int64_t now = to_unix_ms(d_.clock.now());
  if (auto phases = d_.store.phases(job.id); phases.ok())
    for (const auto& p : *phases)
      if (p.ended_ms == 0)
        (void)d_.store.end_phase(job.id, p.phase, now, "interrupted",
                                 "burstd stopped during this phase");
  (void)d_.store.begin_phase(job.id, "recover", now);
  std::string detail;
  bool all_deleted = true;
  if (auto pods = d_.store.pods_of_job(job.id); pods.ok()) {
    for (PodRecord pod : *pods) {
      if (pod.state == "deleted" || pod.state == "create-failed") continue;
      std::string cannot;
      Provider* p = provider(pod.provider, &cannot);
      Status st = p ? delete_and_verify(d_.store, *p, d_.clock, &pod)
                    : Status(make_error(ErrorCode::kUnavailable, cannot));
      const std::string id = pod.pod_id.empty() ? pod.name : pod.pod_id;
      if (!detail.empty()) detail += "; ";
      detail += pod.role + " pod " + id +
                (st.ok() ? " deleted (confirmed)" : " NOT deleted: " + st.error().message);
      all_deleted = all_deleted && st.ok();
    }
  }
  if (detail.empty()) detail = "no pod was alive";
  (void)d_.store.end_phase(job.id, "recover", to_unix_ms(d_.clock.now()),
                           all_deleted ? "ok" : "failed", detail);
  job.state = "failed";
  job.phase = "recover";
  job.error = why + "; " + detail + (all_deleted ? "" : " (run `burst reap`)");
  job.finished_ms = to_unix_ms(d_.clock.now());
  (void)d_.store.update_job(job);
  (void)write_job_reports(d_.store, d_.reports_dir, job.id, d_.clock.now());  // app/finish.h
}

bool Reconciler::gpu_pod_running(const JobRecord& job) {
  auto pods = d_.store.pods_of_job(job.id);
  if (!pods.ok()) return false;
  for (const PodRecord& pod : *pods) {
    if (pod.role != "gpu" || pod.pod_id.empty() || pod.state == "deleted" ||
        pod.state == "create-failed")
      continue;
    std::string cannot;
    Provider* p = provider(pod.provider, &cannot);
    if (!p) return false;
    auto live = p->get_pod(pod.pod_id);
    return live.ok() && live->state == PodState::kRunning;
  }
  return false;
}

std::vector<std::string> Reconciler::recover_jobs() {
  std::vector<std::string> lines;
  auto jobs = d_.store.recent_jobs(1000);
  if (!jobs) return {"recover: cannot list jobs: " + jobs.error().message};
  for (const JobRecord& job : *jobs) {
    if (job.state != "running" || d_.job_alive(job)) continue;
    const std::string phase = open_phase(job);
    const std::string stopped = "the process running it (pid " + std::to_string(job.owner_pid) +
                                ") stopped during phase " + phase;
    std::string no;  // why it is not reattached
    if (!d_.reattach)
      no = "reattach is off";
    else if (phase != "run")
      no = "not in its run phase";
    else if (!gpu_pod_running(job))
      no = "its GPU pod is not running";
    else if (!d_.reattach(job, stopped + "; burstd restarted and reattached"))
      no = "its spec could not be loaded";
    if (no.empty()) {
      lines.push_back("job " + job.id + " reattached: " + stopped);
      continue;
    }
    const std::string why =
        stopped + "; burstd failed the job on restart (" + no + ", no reattach)";
    fail_job(job, why);
    auto after = d_.store.get_job(job.id);
    lines.push_back("job " + job.id + " failed: " + (after.ok() ? after->error : why));
  }
  return lines;
}

std::vector<PodAction> Reconciler::reap() {
  std::vector<PodAction> out;
  std::set<std::string> known;
  auto live = d_.store.live_pods();
  if (live.ok()) {
    for (PodRecord pod : *live) {
      known.insert(pod.provider + "/" + (pod.pod_id.empty() ? pod.name : pod.pod_id));
      auto job = d_.store.get_job(pod.job_id);
      if (job.ok() && job->state == "running" && d_.job_alive(*job)) continue;
      std::string cannot;
      Provider* p = provider(pod.provider, &cannot);
      Status st = p ? delete_and_verify(d_.store, *p, d_.clock, &pod)
                    : Status(make_error(ErrorCode::kUnavailable, cannot));
      out.push_back({pod.provider, pod.pod_id.empty() ? pod.name : pod.pod_id, pod.job_id,
                     st.ok() ? "deleted (confirmed)" : "FAILED: " + st.error().message});
    }
  }
  const TimePoint now = d_.clock.now();
  std::set<std::string> seen;
  for (const auto& name : d_.providers) {
    std::string cannot;
    Provider* p = provider(name, &cannot);
    if (!p) continue;  // a cloud without credentials has no pods of ours to list
    auto pods = p->list_pods();
    if (!pods.ok()) {
      out.push_back({name, "", "", "FAILED: list pods: " + pods.error().message});
      continue;
    }
    for (const Pod& pod : *pods) {
      const std::string key = name + "/" + pod.id;
      if (known.count(key) || known.count(name + "/" + pod.name)) continue;
      seen.insert(key);
      auto [it, fresh] = first_seen_.emplace(key, now);
      if (now - it->second < grace_) {
        out.push_back({name, pod.id, "",
                       "unknown to the store: deleted if still there after " +
                           format_utc(it->second + grace_)});
        continue;
      }
      // Adopt it so the deletion and its cost are on record like any other pod's.
      PodRecord rec;
      rec.provider = name;
      rec.pod_id = pod.id;
      rec.name = pod.name;
      rec.role = "unknown";
      rec.state = "alive";
      rec.price_source = "adopted by burstd";
      rec.usd_per_hour = pod.usd_per_hour;
      rec.created_ms = to_unix_ms(it->second);
      std::string rest = pod.name.substr(std::string(kPodNamePrefix).size());
      rec.job_id = rest.substr(0, rest.rfind('-'));
      if (!d_.store.get_job(rec.job_id).ok()) {
        JobRecord job;
        job.id = rec.job_id;
        job.pipeline = "(unknown)";
        job.state = "failed";
        job.phase = "reap";
        job.provider = name;
        job.error = "adopted by burstd: a burst-* pod the store had no record of";
        job.created_ms = job.finished_ms = to_unix_ms(now);
        (void)d_.store.create_job(job);
      }
      if (auto row = d_.store.add_pod(rec); row.ok()) rec.row_id = *row;
      Status st = delete_and_verify(d_.store, *p, d_.clock, &rec);
      out.push_back({name, pod.id, rec.job_id,
                     st.ok() ? "unknown to the store for " +
                                   std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                                      now - it->second)
                                                      .count()) +
                                   " s: deleted (confirmed)"
                             : "FAILED: " + st.error().message});
      if (st.ok()) first_seen_.erase(key);
    }
  }
  for (auto it = first_seen_.begin(); it != first_seen_.end();)  // gone by themselves
    it = seen.count(it->first) ? std::next(it) : first_seen_.erase(it);
  return out;
}

}  // namespace burst::daemon
