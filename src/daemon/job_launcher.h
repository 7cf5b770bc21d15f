// How burstd runs one job: the seam between the scheduler and the job runner, so scheduler tests
// swap in a fake that finishes (or blocks) on command. The real one (real_job_launcher.h) plans
// and runs the job exactly as `burst run` does.
#pragma once

#include <functional>
#include <string>

#include "burst/spec.h"
#include "job/job_runner.h"

namespace burst::daemon {

class JobLauncher {
 public:
  virtual ~JobLauncher() = default;
  // Runs the job to its end: the store has its record, phases and pods; every pod it made is
  // deleted. Called on a worker thread. `interrupts` counts cancel requests (as the runner's
  // SIGINT count: one stops it gracefully, two skip the pull). A job that cannot even start
  // (no capacity, a missing secret) is recorded as failed and returned so.
  virtual JobResult run(const std::string& job_id, const PipelineSpec& spec,
                        const std::function<int()>& interrupts) = 0;
  // Reattaches to a job a dead burstd left in its run phase with its GPU pod alive (JobInput::
  // reattach): follows the run step to its end, then pull, delete, upload and report as usual.
  // `why` is recorded in the job's reattach phase. A launcher that cannot reattach says so.
  virtual JobResult resume(const std::string& job_id, const PipelineSpec& spec,
                           const std::string& why, const std::function<int()>& interrupts) {
    (void)job_id, (void)spec, (void)why, (void)interrupts;
    return JobResult{JobState::kFailed, "this launcher cannot reattach"};
  }
  // Runs again, from a fresh plan, a job a dead burstd left before its run step (JobInput::
  // restart): its record is in the store, its pods deleted and verified. A job that cannot even
  // start again is returned failed with its record still `running` (the caller fails it).
  virtual JobResult restart(const std::string& job_id, const PipelineSpec& spec,
                            const std::string& why, const std::function<int()>& interrupts) {
    (void)job_id, (void)spec, (void)why, (void)interrupts;
    return JobResult{JobState::kFailed, "this launcher cannot restart a job"};
  }
};

}  // namespace burst::daemon
