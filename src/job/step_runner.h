// The step runner: the spec's shell steps on a job's pods (job/remote_steps.h) and on this
// machine (job/local_step.h), each line shown and logged, each fault point told. A step stops on
// a stop request, budget.deadline, the money caps, and (the run step) budget.max_runtime, whose
// limit the watchdog also holds (job/job_watchdog.h). The run step's output offsets are saved
// (temp file and rename) so a restarted burstd follows it from where the last follower stopped
// (JobInput::reattach). The run step runs as one copy or as Plan::layout's replicas
// (job/replica_step.h); the prepare step is skipped when every `creates:` path is on the volume.
// Internal to src/job.
#pragma once

#include <string>

#include "job/job_context.h"
#include "job/job_types.h"

namespace burst {

class StepRunner {
 public:
  StepRunner(JobContext& ctx, JobPods& pods);

  // Runs (or, reattached, follows) one step on `pod`; kOk on exit 0. `max_seconds` > 0: the run
  // step's budget.max_runtime (0: none).
  Outcome step(const std::string& name, const std::string& script, PodHandle& pod,
               double max_seconds, std::string* detail);
  // The run phase: one copy of the run step, or Plan::layout's replicas.
  Outcome run(std::string* detail);
  // The prepare step on the prepare pod or the GPU pod (Plan::prepare), one fleet worker of a
  // volume at a time (`volume_key`, Provisioner::volume_key(); "": no lock).
  Outcome prepare(const std::string& volume_key, std::string* detail);
  // Hand-off "local": the upload step on this machine over the pulled artefacts.
  Outcome upload_local(std::string* detail);
  // Reattach found the run phase open but its step never started: the run phase starts it.
  void set_run_unstarted() { run_unstarted_ = true; }
  bool run_unstarted() const { return run_unstarted_; }

 private:
  StepOffsets load_offsets(const std::string& step) const;
  void save_offsets(const std::string& step, const StepOffsets& o) const;
  std::string offsets_path(const std::string& step) const;

  JobContext& ctx_;
  JobDeps& d_;
  JobInput& in_;
  JobPods& pods_;
  bool run_unstarted_ = false;
};

}  // namespace burst
