// The GPU part of a wide job: k workers, each its own GPU pod, run at once on threads
// (docs/architecture.md, "Workers"). Each worker is the single-pod path (job/job_phases.h) from
// provision to delete-gpu-pod with its slot (JobInput::worker): its contiguous shard of the items
// (plan/worker_shards.h), its own code dir on the volume (<code.remote_dir>-w<i>), its artefacts
// pulled into <artefact.local>/w<i>/ (with resources.merge: flat, into a staging directory moved
// up into <artefact.local>/ once every worker ended, collisions refused: job/artefact_merge.h),
// its lines prefixed "[w<i>] ". Each phase a worker finishes
// is one row in the job's phases, its detail prefixed "w<i>: ".
//
// Failure: a worker whose attempt failed (a step, a lost pod, SSH) has its pod deleted and
// verified, then its shard runs again on a new pod, up to resources.worker_retries times. A stop
// (Ctrl-C, burst cancel, budget.max_runtime from the first worker's run step, the money caps over
// every pod of the job) is never retried; neither is a delete that could not be verified (the pod
// may bill on), except on a provider whose unreachable pods bill nothing (your own hosts:
// ProviderTraits::lost_pod_bills_nothing): a host that disappears mid-job is a lost worker, its
// shard runs again whole on a new pod (what it made never came home) within the same retries, and
// its pod's record stays for `burst reap`. The first worker to fail for good stops the others.
// Every worker deletes its own pod on every path.
//
// Across providers (issue 19): a worker whose pod the chosen offer cannot give (capacity is
// learned at create) runs on the plan's first fallback with room (Plan::fallbacks, possibly another
// provider: Provisioner::provision_fallback, job/provisioner.h), after one line saying why and what
// it costs. Each provider has its own lock; each pod is deleted through its own provider
// (delete_job_pods too).
//
// Spot (plan_rents_spot): a worker whose pod the provider took back (JobPhases::gpu_preempted:
// the provider's state says preempted, and the session or step was lost) is not a crash. Its pod
// is deleted and verified as always; its finished items are kept (the done records on the volume,
// job/spot_items.h) and the rest go to a new pod: on spot while the worker has rented fewer than
// kSpotPodsPerWorker spot pods, then on-demand (the same offer at its on-demand price): a second
// preemption says the market is busy, and a third spot pod would likely lose its work too.
// Preemptions use none of resources.worker_retries; the money caps, budget.deadline and a stop
// bound them like any attempt. A spot job of one pod runs as a fleet of one (its artefacts where
// the spec says, not in w0/). docs/providers.md, "Spot pods".
//
// Fault points (burst/fault_observer.h): a worker's first attempt tells the job's observer each
// point as "<point>" and as "<point>@w<i>", so a test can stop one worker at one phase.
#pragma once

#include <mutex>
#include <string>

#include "job/job_types.h"
#include "job/job_watchdog.h"
#include "util/redactor.h"

namespace burst {

// The spot pods one worker may rent before its next pod is on-demand (header comment).
inline constexpr int kSpotPodsPerWorker = 2;

struct FleetResult {
  bool failed = false;            // some worker's shard did not complete
  int preemptions = 0;            // spot pods the provider took back (each replaced, see above)
  bool interrupted = false;       // a stop request (Ctrl-C, SIGTERM, burst cancel) ended it
  std::string error;              // the first failure, "w<i>: <phase>: <why>", redacted
  JobStop stop = JobStop::kNone;  // the limit behind `error`, if one
};

// Runs the workers of `input` (input.plan.estimate.workers of them) to their ends. `on_phase`
// is told each phase a worker enters (for the job row's phase column), from the worker threads.
FleetResult run_fleet(JobDeps& deps, const JobInput& input, Redactor& redact, JobWatchdog& watchdog,
                      const std::function<void(Phase)>& on_phase);

// Deletes and verifies every pod of the job that may still exist (a wide job cannot be
// reattached after a restart). The error names the pods left for `burst reap`; a pod of a
// provider of `plan` (its offer or a fallback's) whose unreachable pods bill nothing is left for
// reap with a line, not an error.
Status delete_job_pods(JobDeps& deps, const std::string& job_id, const Plan& plan);

}  // namespace burst
