#include "daemon/reconciler.h"

#include "plan/worker_shards.h"

namespace burst::daemon {

Reconciler::Reconciler(ReconcileDeps deps, Duration orphan_grace)
    : d_(std::move(deps)),
      grace_(orphan_grace),
      reaper_(ReaperDeps{d_.store, d_.clock, d_.providers, d_.make_provider, d_.runs_here,
                         d_.reports_dir, "burstd"}) {}

void Reconciler::fail_job(JobRecord job, const std::string& why) {
  (void)reaper_.fail_orphaned_job(std::move(job), why);
}

bool Reconciler::gpu_pod_running(const JobRecord& job) {
  auto pods = d_.store.pods_of_job(job.id);
  if (!pods.ok()) return false;
  for (const PodRecord& pod : *pods) {
    if (pod.role != "gpu" || pod.pod_id.empty() || !may_exist(pod.state)) continue;
    std::string cannot;
    Provider* p = reaper_.provider(pod.provider, &cannot);
    if (!p) return false;
    auto live = p->get_pod(pod.pod_id);
    return live.ok() && live->state == PodState::kRunning;
  }
  return false;
}

std::string Reconciler::why_not_restartable(const JobRecord& job) {
  auto phases = d_.store.phases(job.id);
  if (!phases.ok()) return "its phases cannot be read: " + phases.error().message;
  int restarts = 0;
  for (const PhaseRecord& p : *phases) {
    if (p.phase == Phase::kRun) return "its run step may have started";
    if (p.phase == Phase::kRecover && p.outcome == Outcome::kOk &&
        p.detail.find("running the job again") != std::string::npos)
      ++restarts;
  }
  if (restarts >= kMaxRestarts)
    return "it was run again " + std::to_string(restarts) + " times already";
  auto pods = d_.store.pods_of_job(job.id);
  if (!pods.ok()) return "its pods cannot be read: " + pods.error().message;
  for (const PodRecord& p : *pods)
    if (auto parts = parse_pod_name(p.name); parts && worker_of_role(parts->role))
      return "a job of several workers";
  return "";
}

bool Reconciler::close_pull(const JobRecord& job) {
  auto phases = d_.store.phases(job.id);
  if (!phases.ok()) return false;
  for (const PhaseRecord& p : *phases)
    if (p.phase == Phase::kPull && p.ended_ms == 0)
      (void)d_.store.end_phase(job.id, Phase::kPull, to_unix_ms(d_.clock.now()),
                               Outcome::kInterrupted,
                               "the process running the job stopped during this phase; the "
                               "job is reattached and pulls again");
  return true;
}

std::vector<std::string> Reconciler::recover_jobs() {
  std::vector<std::string> lines;
  auto jobs = d_.store.recent_jobs(1000);
  if (!jobs) return {"recover: cannot list jobs: " + jobs.error().message};
  for (const JobRecord& job : *jobs) {
    if (job.state != JobState::kRunning || reaper_.job_alive(job)) continue;
    lines.push_back(recover_job(job, /*take_over=*/false));
  }
  return lines;
}

std::string Reconciler::recover_job(const JobRecord& job, bool take_over) {
  const std::string stopped = reaper_.why_stopped(job);
  std::string no;  // why it is neither run again nor reattached
  const std::string open = reaper_.open_phase(job);
  const bool before_run = open != "run" && open != "pull";
  // Before its step: nothing to reattach to, and nothing runs twice if it runs again.
  if (take_over && d_.restart && before_run) {
    no = why_not_restartable(job);
    std::string detail;
    const std::string why =
        stopped + "; the lease of the burstd running it ended before its run step";
    if (no.empty() && !reaper_.clear_for_restart(job, why, &detail)) no = detail;
    if (no.empty() && !d_.restart(job, why + "; burstd took it over and runs it again"))
      no = "its spec could not be loaded";
    if (no.empty()) return "job " + job.id + " runs again: " + stopped + " (" + detail + ")";
  } else if (!d_.reattach) {
    no = "reattach is off";
  } else if (before_run) {
    no = "not in its run phase";
  } else if (!gpu_pod_running(job)) {
    no = "its GPU pod is not running";
  } else if (!close_pull(job) ||
             !d_.reattach(job, stopped + (take_over ? "; burstd took it over and reattached (the "
                                                      "lease of the burstd running it ended)"
                                                    : "; burstd restarted and reattached"))) {
    no = "its spec could not be loaded";
  }
  if (no.empty()) return "job " + job.id + " reattached: " + stopped;
  const std::string why =
      stopped +
      (take_over ? "; the lease of the burstd running it ended; burstd took it over and failed it"
                 : "; burstd failed the job on restart") +
      " (" + no + ", no reattach)";
  fail_job(job, why);
  auto after = d_.store.get_job(job.id);
  return "job " + job.id + " failed: " + (after.ok() ? after->error : why);
}

std::vector<PodAction> Reconciler::reap(std::vector<std::string>* failed_jobs) {
  ReapOptions options;
  options.orphan_grace = grace_;
  std::vector<PodAction> out;
  for (PodAction& a : reaper_.reap(options, failed_jobs))
    if (a.kind != ReapOutcome::kSkipped) out.push_back(std::move(a));
  return out;
}

}  // namespace burst::daemon
