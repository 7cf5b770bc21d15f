// The body of each job phase; JobRunner (and each worker of a fleet, job/worker_fleet.h) drives
// them in the order phase_machine.h decides. A short sequence over the engine's parts, each with
// one job:
//   JobContext     (job_context.h)     what is said and logged, the first failure, stops, faults
//   Provisioner    (provisioner.h)     pods and the volume at the providers; the fallback policy
//   PodConnection  (pod_connection.h)  a created pod made reachable over SSH, set up for steps
//   StepRunner     (step_runner.h)     the spec's steps, their offsets and budgets
//   Transfers      (transfers.h)       code sync and artefact pull
// Internal to src/job.
#pragma once

#include <functional>
#include <string>

#include "job/job_context.h"
#include "job/job_types.h"
#include "job/job_watchdog.h"
#include "job/phase_machine.h"
#include "job/pod_connection.h"
#include "job/provisioner.h"
#include "job/step_runner.h"
#include "job/transfers.h"
#include "util/redactor.h"

namespace burst {

class JobPhases {
 public:
  JobPhases(JobDeps& deps, JobInput& input, Redactor& redact);
  ~JobPhases();  // closes every session the job still holds
  // The job's deadlines (job/job_watchdog.h): sessions are attached to it while they live, the
  // run step sets its runtime limit, and a failure caused by its abort names the deadline.
  void set_watchdog(JobWatchdog* watchdog) { ctx_.set_watchdog(watchdog); }
  // One worker of several (JobInput::worker.count > 1, job/worker_fleet.h): `stop_reason` says
  // why the fleet stops ("" while it runs on), `provision` serialises the volume binding.
  // Then the budget counts every pod of the job, the watchdog's runtime limit is the fleet's,
  // and every line is prefixed "[w<i>] ".
  void set_fleet(std::function<std::string()> stop_reason, FleetProvision* provision) {
    ctx_.set_fleet(std::move(stop_reason), provision);
  }
  // The run step was stopped by budget.max_runtime, budget.deadline or a money cap (not retried).
  bool stopped_by_deadline() const { return ctx_.stopped_by_limit(); }
  // The GPU pod's row exists and was not confirmed deleted.
  bool gpu_pod_left() const { return pods_.gpu.needs_delete(); }
  const std::string& gpu_pod_id() const { return pods_.gpu.record.pod_id; }
  const std::string& gpu_pod_provider() const { return pods_.gpu.record.provider; }
  // Asked of the GPU pod's provider now: whether it took the pod back (Pod::preempted, a spot
  // pod outbid or reclaimed), with the provider's words in *words. False for a pod the provider
  // still runs or cannot describe: a failure there is a crash, not a preemption.
  bool gpu_preempted(std::string* words);
  // The worker's items: how many of its shard its done records showed finished before this pod
  // (JobPods::items_kept), and how many this pod was given.
  long items_kept() const { return pods_.items_kept; }
  int64_t artefacts_since() const { return pods_.artefacts_since; }
  long items_given() const {
    return static_cast<long>(pods_.items_left ? pods_.items_left->size() : 0);
  }

  // Runs one phase. `detail` gets a short redacted note for the phase's row; a failure's reason
  // also becomes the job's error (the first one wins).
  Outcome execute(Phase phase, std::string* detail);

  const std::string& error() const { return ctx_.error(); }
  void fail(const std::string& why, JobStop stop = JobStop::kNone) { ctx_.fail(why, stop); }
  JobStop stop() const { return ctx_.stop(); }  // the limit behind error(), if one
  // What a fleet fallback changed from the plan (Provisioner::deviation), redacted; "" if nothing.
  std::string deviation() const { return ctx_.redact()(provisioner_.deviation()); }
  void say(const std::string& text) { ctx_.say(text); }
  void phase_started(Phase phase) { ctx_.phase_started(phase); }
  // Reattach (JobInput::reattach): loads the GPU pod from the store, reconnects with its pinned
  // host key and checks the run step's supervisor files. kConnectionLost when it cannot. A run
  // step whose files are not there never started: the run phase then starts it (once-only).
  Outcome reattach_gpu(std::string* detail);

 private:
  Outcome plan_note(std::string* detail);
  // A pod the provisioner created, connected; the connection's note appended to *detail.
  Outcome connect_new(Outcome created, PodHandle& pod, std::string* detail);
  // The GPU pod's wait-for-ssh phase. A pod whose container the provider reports unable to start
  // is deleted (verified) and replaced on another machine, within the job's caps, at most
  // Provisioner::kMaxStartRetries times; a wide job's fleet retries instead.
  Outcome wait_gpu_pod(std::string* detail);
  Outcome delete_gpu_pod(std::string* detail);

  JobContext ctx_;
  JobPods pods_;
  Provisioner provisioner_;
  PodConnection connection_;
  StepRunner steps_;
  Transfers transfers_;
};

}  // namespace burst
