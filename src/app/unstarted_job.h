// The record of a job that ended before the job runner started it, so that no job burst accepted
// is forgotten (the runner records every job it starts itself, job/job_runner.h). Both front ends'
// cases go through here: burstd refusing a plan (kPlan), a queued job cancelled or whose spec no
// longer loads (kQueued), and reap adopting a pod of a job the store never saw (kReap).
#pragma once

#include <cstdint>
#include <string>

#include "burst/states.h"
#include "burst/store.h"

namespace burst {

struct UnstartedJob {
  std::string id;
  std::string pipeline;
  std::string spec_path;
  JobState state = JobState::kFailed;  // kFailed or kInterrupted; never running or succeeded
  Phase phase = Phase::kPlan;          // where it stopped: kPlan, kQueued or kReap
  std::string provider = {};           // "" unless a pod of a provider was involved (kReap)
  std::string error = {};              // why, for the user (redacted by the caller)
  int64_t created_ms = 0;              // when it was accepted (queued); 0: finished_ms
  int64_t finished_ms = 0;
  int64_t owner_pid = 0;  // the process that refused it, for reap's owner check; 0: none
};

// Writes the finished record. kInvalid for a state other than failed or interrupted (a bug in
// the caller), else the store's error (kInvalid when the id exists: the job was recorded).
Status record_unstarted(JobStore& store, const UnstartedJob& job);

}  // namespace burst
