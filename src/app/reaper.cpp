#include "app/reaper.h"

#include <unistd.h>

#include <algorithm>
#include <set>

#include "app/finish.h"
#include "app/unstarted_job.h"
#include "job/pod_lifecycle.h"
#include "util/proc_start.h"

namespace burst {
namespace {

bool is_live_row(const PodRecord& pod) { return may_exist(pod.state); }

std::string pod_key(const PodRecord& pod) { return pod.pod_id.empty() ? pod.name : pod.pod_id; }

// The report of a job the reaper failed, rewritten from the store so it says what happened.
std::string installation_note(const PodNameParts& parts, const std::string& self) {
  return (parts.installation.empty()
              ? "untagged (made before installation ids, or by another tool)"
              : "of installation " + parts.installation + ", not this one (" + self + ")") +
         ": left alone; `burst reap --all-installations` deletes it";
}

}  // namespace

Reaper::Reaper(ReaperDeps deps) : d_(std::move(deps)) {}

Provider* Reaper::provider(const std::string& name, std::string* why) {
  if (auto it = providers_.find(name); it != providers_.end()) return it->second.get();
  auto made = d_.make_provider(name);
  if (!made) {
    *why = made.error().message;
    return nullptr;
  }
  return (providers_[name] = std::move(*made)).get();
}

bool Reaper::job_alive(const JobRecord& job) {
  if (d_.runs_here && d_.runs_here(job)) return true;
  if (auto queue = d_.store.queued_jobs(); queue.ok()) {
    for (const QueuedJobRecord& q : *queue) {
      if (q.id != job.id) continue;
      const int64_t now = to_unix_ms(d_.clock.now());
      const int64_t grace =
          std::chrono::duration_cast<std::chrono::milliseconds>(kTakeoverGrace).count();
      return q.lease_expires_ms + grace > now;  // its daemon, or the one taking it over
    }
  } else {
    return true;  // cannot tell whether a daemon holds it: leave it alone
  }
  if (job.owner_pid == getpid()) return false;  // recorded by this process, which no longer runs it
  return same_process_alive(job.owner_pid, job.owner_start);
}

std::string Reaper::open_phase(const JobRecord& job) {
  std::string open =
      to_string(job.phase);  // the runner records a phase in the job once it has ended
  if (auto phases = d_.store.phases(job.id); phases.ok())
    for (const auto& p : *phases)
      if (p.ended_ms == 0) open = to_string(p.phase);
  return open;
}

std::string Reaper::why_stopped(const JobRecord& job) {
  return "the process running it (pid " + std::to_string(job.owner_pid) +
         ") stopped during phase " + open_phase(job);
}

PodAction Reaper::delete_row(PodRecord pod) {
  PodAction a{pod.provider, pod_key(pod), pod.job_id, "", ReapOutcome::kDeleted};
  std::string cannot;
  Provider* p = provider(pod.provider, &cannot);
  if (!p) {
    a.kind = ReapOutcome::kFailed;
    a.outcome = "NOT deleted (it may still be billing): " + cannot;
    return a;
  }
  Status st = delete_and_verify(d_.store, *p, d_.clock, &pod);
  a.kind = st.ok() ? ReapOutcome::kDeleted : ReapOutcome::kFailed;
  a.outcome = st.ok() ? "deleted (confirmed)" : "FAILED: " + st.error().message;
  return a;
}

bool Reaper::close_and_delete(const JobRecord& job, std::vector<PodAction>* actions,
                              std::string* detail) {
  const int64_t now = to_unix_ms(d_.clock.now());
  if (auto phases = d_.store.phases(job.id); phases.ok())
    for (const auto& p : *phases)
      if (p.ended_ms == 0)
        (void)d_.store.end_phase(job.id, p.phase, now, Outcome::kInterrupted,
                                 "the process running the job stopped during this phase");
  (void)d_.store.begin_phase(job.id, Phase::kRecover, now);
  bool all_deleted = true;
  if (auto pods = d_.store.pods_of_job(job.id); pods.ok()) {
    for (const PodRecord& pod : *pods) {
      if (!is_live_row(pod)) continue;
      PodAction a = delete_row(pod);
      if (!detail->empty()) *detail += "; ";
      *detail += pod.role + " pod " + a.pod + " " +
                 (a.kind == ReapOutcome::kDeleted ? a.outcome : "NOT deleted: " + a.outcome);
      all_deleted = all_deleted && a.kind == ReapOutcome::kDeleted;
      actions->push_back(std::move(a));
    }
  }
  if (detail->empty()) *detail = "no pod was alive";
  return all_deleted;
}

bool Reaper::clear_for_restart(JobRecord job, const std::string& why, std::string* detail) {
  std::vector<PodAction> actions;
  const bool all_deleted = close_and_delete(job, &actions, detail);
  (void)d_.store.end_phase(job.id, Phase::kRecover, to_unix_ms(d_.clock.now()),
                           all_deleted ? Outcome::kOk : Outcome::kFailed,
                           why + "; " + *detail + (all_deleted ? "; running the job again" : ""));
  if (!all_deleted) return false;
  job.phase = Phase::kRecover;
  (void)d_.store.update_job(job);
  return true;
}

std::vector<PodAction> Reaper::fail_orphaned_job(JobRecord job, const std::string& why) {
  std::vector<PodAction> actions;
  std::string detail;
  const bool all_deleted = close_and_delete(job, &actions, &detail);
  (void)d_.store.end_phase(job.id, Phase::kRecover, to_unix_ms(d_.clock.now()),
                           all_deleted ? Outcome::kOk : Outcome::kFailed, detail);
  job.state = JobState::kFailed;
  job.phase = Phase::kRecover;
  job.error = why + "; " + detail + (all_deleted ? "" : " (run `burst reap` again)");
  job.finished_ms = to_unix_ms(d_.clock.now());
  (void)d_.store.update_job(job);
  (void)write_job_reports(d_.store, d_.reports_dir, job.id, d_.clock.now());  // app/finish.h
  return actions;
}

std::vector<PodAction> Reaper::reap(const ReapOptions& o, std::vector<std::string>* failed_jobs) {
  std::vector<PodAction> out;
  auto self = d_.store.installation_id();
  if (!self) return {{"", "", "", "FAILED: " + self.error().message, ReapOutcome::kFailed}};
  auto known = d_.store.live_pods();  // before any deletion: what the providers may still list
  if (!known) return {{"", "", "", "FAILED: " + known.error().message, ReapOutcome::kFailed}};

  // 1. Jobs whose runner is gone.
  std::set<int64_t> handled;  // pod rows already dealt with
  auto jobs = d_.store.recent_jobs(1000);
  for (const JobRecord& job : jobs.ok() ? *jobs : std::vector<JobRecord>{}) {
    if (job.state != JobState::kRunning || job_alive(job)) continue;
    if (o.dry_run) {
      for (const PodRecord& pod : *known)
        if (pod.job_id == job.id) {
          out.push_back(
              {pod.provider, pod_key(pod), job.id, "would delete", ReapOutcome::kWouldDelete});
          handled.insert(pod.row_id);
        }
      continue;
    }
    auto acted = fail_orphaned_job(job, why_stopped(job) + "; " + d_.actor + " failed the job");
    out.insert(out.end(), acted.begin(), acted.end());
    if (failed_jobs)
      if (auto after = d_.store.get_job(job.id); after.ok())
        failed_jobs->push_back("job " + job.id + ": recorded as failed: " + after->error);
  }

  // 2. Pod rows no live job owns.
  auto live = d_.store.live_pods();
  for (const PodRecord& pod : live.ok() ? *live : std::vector<PodRecord>{}) {
    if (handled.count(pod.row_id)) continue;
    auto job = d_.store.get_job(pod.job_id);
    if (job.ok() && job->state == JobState::kRunning && job_alive(*job)) {
      out.push_back({pod.provider, pod_key(pod), pod.job_id,
                     "skipped: job " + pod.job_id + " is still running in another burst process",
                     ReapOutcome::kSkipped});
    } else if (o.dry_run) {
      out.push_back(
          {pod.provider, pod_key(pod), pod.job_id, "would delete", ReapOutcome::kWouldDelete});
    } else {
      out.push_back(delete_row(pod));
    }
  }

  // 3. Pods the providers list that the store does not know.
  unknown_pods(o, *self, *known, &out);
  return out;
}

void Reaper::unknown_pods(const ReapOptions& o, const std::string& self,
                          const std::vector<PodRecord>& known_rows, std::vector<PodAction>* out) {
  std::set<std::string> known;
  for (const PodRecord& pod : known_rows) known.insert(pod.provider + "/" + pod_key(pod));
  const TimePoint now = d_.clock.now();
  for (const std::string& name : d_.providers) {
    std::string cannot;
    Provider* p = provider(name, &cannot);
    if (!p) continue;  // a cloud without credentials has no pods of ours to list
    auto pods = p->list_pods();
    if (!pods.ok()) {
      out->push_back(
          {name, "", "", "FAILED: list pods: " + pods.error().message, ReapOutcome::kFailed});
      continue;
    }
    std::vector<std::string> still_listed;  // unknown pods of ours left for a later pass
    for (const Pod& pod : *pods) {
      if (known.count(name + "/" + pod.id) || known.count(name + "/" + pod.name)) continue;
      auto parts = parse_pod_name(pod.name);
      if (!parts) continue;  // not burst's: providers list only burst-* pods, but be sure
      const bool ours = parts->installation == self;
      if (!ours && !o.all_installations) {
        out->push_back(
            {name, pod.id, parts->job_id, installation_note(*parts, self), ReapOutcome::kForeign});
        continue;
      }
      TimePoint first_seen = now;
      if (ours && o.orphan_grace > Duration::zero() && !o.dry_run) {
        auto first = d_.store.pod_first_seen(name, pod.id, to_unix_ms(now));
        if (!first) {
          out->push_back({name, pod.id, parts->job_id, "FAILED: " + first.error().message,
                          ReapOutcome::kFailed});
          continue;
        }
        first_seen = from_unix_ms(*first);
        if (now - first_seen < o.orphan_grace) {
          still_listed.push_back(pod.id);
          out->push_back({name, pod.id, parts->job_id,
                          "unknown to the store: deleted if still there after " +
                              format_utc(first_seen + o.orphan_grace),
                          ReapOutcome::kWaiting});
          continue;
        }
      }
      if (o.dry_run) {
        out->push_back({name, pod.id, parts->job_id, "would delete", ReapOutcome::kWouldDelete});
        continue;
      }
      PodAction a = adopt_and_delete(*p, pod, *parts, first_seen);
      if (a.kind != ReapOutcome::kDeleted) still_listed.push_back(pod.id);
      if (a.kind != ReapOutcome::kSkipped) out->push_back(std::move(a));
    }
    if (!o.dry_run && o.orphan_grace > Duration::zero())
      (void)d_.store.forget_pods_seen(name, still_listed);  // gone, deleted, or not ours
  }
}

// Records a pod found only in the provider's list (and its job, if the store lost that too), so
// its deletion and cost are on record like any other pod's, then deletes it.
PodAction Reaper::adopt_and_delete(Provider& p, const Pod& pod, const PodNameParts& parts,
                                   TimePoint first_seen) {
  const TimePoint now = d_.clock.now();
  PodAction a{p.name(), pod.id, parts.job_id, "", ReapOutcome::kDeleted};
  // A job starting at this moment writes its pod row before asking the provider: look again.
  if (auto rows = d_.store.pods_of_job(parts.job_id); rows.ok())
    for (const PodRecord& row : *rows)
      if (row.name == pod.name || row.pod_id == pod.id) {
        a.kind = ReapOutcome::kSkipped;
        return a;
      }
  if (!d_.store.get_job(parts.job_id).ok()) {
    UnstartedJob job;
    job.id = parts.job_id;
    job.pipeline = "(unknown)";
    job.phase = Phase::kReap;
    job.provider = p.name();
    job.error = "adopted by " + d_.actor + ": a burst-* pod the store had no record of";
    job.finished_ms = to_unix_ms(now);
    (void)record_unstarted(d_.store, job);
  }
  PodRecord rec;
  rec.job_id = parts.job_id;
  rec.provider = p.name();
  rec.role = parts.role;
  rec.name = pod.name;
  rec.pod_id = pod.id;
  rec.gpu_type = pod.gpu_type;
  rec.usd_per_hour = pod.usd_per_hour;
  rec.price_source = "adopted by " + d_.actor;
  rec.state = PodRecordState::kAlive;
  rec.created_ms = to_unix_ms(first_seen);
  if (auto row = d_.store.add_pod(rec); row.ok()) rec.row_id = *row;
  Status st = delete_and_verify(d_.store, p, d_.clock, &rec);
  a.kind = st.ok() ? ReapOutcome::kDeleted : ReapOutcome::kFailed;
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - first_seen).count();
  a.outcome = !st.ok()      ? "FAILED: " + st.error().message
              : seconds > 0 ? "unknown to the store for " + std::to_string(seconds) +
                                  " s: deleted (confirmed)"
                            : "deleted (confirmed)";
  return a;
}

std::vector<PodAction> Reaper::foreign_pods() {
  std::vector<PodAction> out;
  auto self = d_.store.installation_id();
  auto live = d_.store.live_pods();
  if (!self || !live) return out;
  std::set<std::string> known;  // the store's pods are this installation's, whatever their name
  for (const PodRecord& pod : *live) known.insert(pod.provider + "/" + pod_key(pod));
  for (const std::string& name : d_.providers) {
    std::string cannot;
    Provider* p = provider(name, &cannot);
    if (!p) continue;
    auto pods = p->list_pods();
    if (!pods.ok()) continue;
    for (const Pod& pod : *pods)
      if (auto parts = parse_pod_name(pod.name); parts && parts->installation != *self &&
                                                 !known.count(name + "/" + pod.id) &&
                                                 !known.count(name + "/" + pod.name))
        out.push_back(
            {name, pod.id, parts->job_id, installation_note(*parts, *self), ReapOutcome::kForeign});
  }
  return out;
}

}  // namespace burst
