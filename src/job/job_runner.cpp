#include "job/job_runner.h"

#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <random>

#include "job/budget_guard.h"
#include "job/job_phases.h"
#include "job/worker_fleet.h"
#include "plan/worker_shards.h"
#include "util/proc_start.h"
#include "util/ssh_hosts_file.h"

namespace burst {

std::string new_job_id(TimePoint now) {
  std::random_device rd;
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "-%04x", static_cast<unsigned>(rd() & 0xffff));
  return format_utc(now, "%Y%m%d-%H%M%S") + suffix;
}

JobRunner::JobRunner(JobDeps deps, JobInput input) : d_(std::move(deps)), in_(std::move(input)) {
  for (const auto& [name, value] : in_.secrets) redact_.add(name, value);
}

JobRunner::~JobRunner() = default;

namespace {

int64_t now_ms(Clock& c) { return to_unix_ms(c.now()); }

}  // namespace

// Whether the job in the store ran on several workers (its GPU pods' names carry an index).
bool JobRunner::had_workers(const std::string& job_id) {
  auto pods = d_.store.pods_of_job(job_id);
  if (!pods.ok()) return false;
  for (const PodRecord& p : *pods) {
    auto parts = parse_pod_name(p.name);
    if (parts && worker_of_role(parts->role)) return true;
  }
  return false;
}

JobResult JobRunner::run() {
  JobRecord job;
  JobResult result;
  if (in_.reattach || in_.restart) {
    auto existing = d_.store.get_job(in_.job_id);
    if (!existing.ok()) {
      result.state = JobState::kFailed;
      result.error = std::string(in_.restart ? "cannot restart: " : "cannot reattach: ") +
                     existing.error().message;
      return result;
    }
    job = *existing;
    job.state = JobState::kRunning;
    if (in_.restart) {  // a fresh run of the same job: this plan's provider and estimate
      job.phase = Phase::kPlan;
      job.provider = in_.plan.gpu.provider;
      job.estimate_json = estimate_to_json(in_.plan.estimate);
      job.facts_json = in_.facts_json;
      job.error.clear();
      job.stop = JobStop::kNone;
      job.finished_ms = 0;
    }
    job.owner_pid = getpid();
    job.owner_start = process_start_time(job.owner_pid);
    (void)d_.store.update_job(job);
  } else {
    job.id = in_.job_id;
    job.pipeline = in_.spec.name;
    job.spec_path = in_.spec.path;
    job.state = JobState::kRunning;
    job.phase = Phase::kPlan;
    job.provider = in_.plan.gpu.provider;
    job.estimate_json = estimate_to_json(in_.plan.estimate);
    job.facts_json = in_.facts_json;
    job.stop = JobStop::kNone;  // until a limit stops it: the report reads this, not the error
    job.created_ms = now_ms(d_.clock);
    job.owner_pid = getpid();
    job.owner_start = process_start_time(job.owner_pid);
    if (Status st = d_.store.create_job(job); !st.ok()) {
      result.state = JobState::kFailed;
      result.error = "cannot record the job: " + st.error().message;
      return result;
    }
  }

  // The deadlines that hold while the job thread is blocked on a pod (job/job_watchdog.h). It
  // outlives `phases`, whose sessions detach from it as they close.
  WatchdogConfig limits;
  limits.caps =
      job_money_caps(in_.spec.budget.max_usd, d_.extra_caps, in_.plan.estimate.transfer_usd);
  limits.stop_source = d_.stop_source;
  limits.billing = billing_of_plan(in_.plan);  // each provider's rule: a fleet may use several
  JobWatchdog watchdog(
      d_.clock, d_.interrupts,
      [this, id = job.id] {
        auto pods = d_.store.pods_of_job(id);
        return pods.ok() ? *pods : std::vector<PodRecord>{};
      },
      limits);
  // budget.deadline: the whole job from its start (a reattached job's original start), every
  // phase up to the last upload; only the deletes and the report run after it.
  if (in_.spec.budget.deadline_seconds && *in_.spec.budget.deadline_seconds > 0)
    watchdog.set_deadline(from_unix_ms(job.created_ms), *in_.spec.budget.deadline_seconds);
  watchdog.start();
  JobPhases phases(d_, in_, redact_);
  phases.set_watchdog(&watchdog);
  JobFacts facts{in_.spec.upload.has_value(), in_.spec.pull_on_failure, false};
  if (in_.plan.handoff) facts.handoff = in_.plan.handoff->where;
  if (in_.plan.prepare && in_.spec.prepare) facts.prepare = in_.plan.prepare->where;
  bool interrupted = false;
  Phase phase = Phase::kPlan;
  bool run_open = false;  // reattach: the run phase's row is still open from before the restart
  // A wide job (several workers): the GPU phases run on the fleet (job/worker_fleet.h); the job's
  // own rows are the plan before it and the hand-off and report after it.
  // A spot job of one pod runs as a fleet of one: the fleet replaces a preempted pod.
  const bool wide = in_.plan.estimate.workers > 1 || plan_rents_spot(in_.plan) ||
                    (in_.reattach && had_workers(job.id));
  if (in_.reattach && !wide) {
    phase = Phase::kRun;
    // Open unless its daemon died after the step, in the pull (Reconciler): then the step is
    // followed to its recorded end in a new run row and the artefacts pulled again.
    run_open = false;
    if (auto rows = d_.store.phases(job.id); rows.ok())
      for (const PhaseRecord& p : *rows)
        if (p.phase == Phase::kRun && p.ended_ms == 0) run_open = true;
    (void)d_.store.begin_phase(job.id, Phase::kReattach, now_ms(d_.clock));
    std::string detail;
    Outcome outcome;
    try {
      outcome = phases.reattach_gpu(&detail);
    } catch (const std::exception& e) {
      outcome = Outcome::kFailed;
      detail = std::string("internal error: ") + e.what();
      phases.fail(detail);
    }
    (void)d_.store.end_phase(job.id, Phase::kReattach, now_ms(d_.clock),
                             outcome == Outcome::kOk ? Outcome::kOk : Outcome::kFailed,
                             redact_(detail));
  }
  if (wide) facts.handoff = Handoff::kLocal;  // the upload runs once, after every worker's pull
  if (wide && in_.reattach) {
    phase = Phase::kDeleteGpu;  // no reattaching to k pods: delete them all, the job fails
    run_open = false;
    facts.job_failed = true;
    phases.fail(
        "cannot reattach to a job of several workers after a restart; its pods were deleted");
  }
  std::mutex job_mu;  // the job row, from the fleet's threads
  while (phase != Phase::kDone) {
    if (wide && (phase == Phase::kProvision || phase == Phase::kDeleteGpu)) {
      Outcome outcome = Outcome::kOk;
      if (phase == Phase::kProvision) {
        FleetResult fleet = run_fleet(d_, in_, redact_, watchdog, [&](Phase p) {
          std::lock_guard<std::mutex> lock(job_mu);
          job.phase = p;
          (void)d_.store.update_job(job);
        });
        if (fleet.failed) facts.job_failed = true;
        if (fleet.interrupted) interrupted = true;
        if (!fleet.error.empty()) phases.fail(fleet.error, fleet.stop);
      }
      // Whatever the workers did, no pod of theirs outlives this (a second look, by the store).
      if (Status st = delete_job_pods(d_, job.id, in_.plan); !st.ok()) {
        facts.job_failed = true;
        phases.fail(st.error().message);
        outcome = Outcome::kFailed;
      }
      job.error = phases.error();
      job.stop = phases.stop();
      (void)d_.store.update_job(job);
      phase = next_phase(Phase::kDeleteGpu, outcome, facts);
      continue;
    }
    if (phase == Phase::kReport) {
      const bool stopped = interrupted || d_.interrupts() > 0;
      job.state = !facts.job_failed ? JobState::kSucceeded
                                    : (stopped ? JobState::kInterrupted : JobState::kFailed);
      job.error = phases.error();
      job.stop = phases.stop();
      job.finished_ms = now_ms(d_.clock);
    }
    // The phase's row first, then the job's phase column (what `burst status` shows): a reader
    // that sees the job finished also sees its report phase begun.
    if (!run_open) (void)d_.store.begin_phase(job.id, phase, now_ms(d_.clock));
    run_open = false;
    job.phase = phase;
    (void)d_.store.update_job(job);
    watchdog.progress();
    phases.phase_started(phase);
    Outcome outcome;
    std::string detail;
    try {
      outcome = phases.execute(phase, &detail);
    } catch (const std::exception& e) {
      // Whatever went wrong, the phase machine still routes us through the deletes.
      outcome = Outcome::kFailed;
      detail = std::string("internal error: ") + e.what();
      phases.fail(detail);
    }
    if (outcome == Outcome::kInterrupted) interrupted = true;
    if (outcome == Outcome::kFailed || outcome == Outcome::kInterrupted ||
        outcome == Outcome::kConnectionLost)
      facts.job_failed = true;
    (void)d_.store.end_phase(job.id, phase, now_ms(d_.clock), outcome, redact_(detail));
    if (phase != Phase::kReport) {
      job.error = phases.error();
      job.stop = phases.stop();
    }
    (void)d_.store.update_job(job);
    phase = next_phase(phase, outcome, facts);
  }
  watchdog.stop();
  // No Host entry outlives its job (each is removed with its pod; this sweeps any left).
  if (!d_.config.config_dir.empty())
    (void)remove_ssh_hosts(ssh_hosts_path(d_.config.config_dir), job.id, "");

  result.state = job.state;
  result.error = job.error;
  return result;
}

}  // namespace burst
