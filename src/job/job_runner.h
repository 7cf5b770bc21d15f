// Runs one job through its phases (job/phase_machine.h), recording each transition in the store.
// The GPU pod is deleted on every path out: a failing step, a lost connection, an interrupt or an
// exception all lead through the delete phase. If even that fails, the pod row stays open and
// the job's error tells the user to run `burst reap`.
#pragma once

#include <string>

#include "job/job_types.h"
#include "util/redactor.h"

namespace burst {

// What the runner returns: the job's end state. Its reports, calibration sample and notification
// come after, from the store (app/finish.h).
struct JobResult {
  JobState state = JobState::kFailed;  // kSucceeded | kFailed | kInterrupted
  std::string error;                   // redacted
};

class JobRunner {
 public:
  JobRunner(JobDeps deps, JobInput input);
  ~JobRunner();
  JobResult run();

 private:
  struct LivePod;
  class Phases;
  bool had_workers(const std::string& job_id);
  JobDeps d_;
  JobInput in_;
  Redactor redact_;
};

// A fresh id: "20261122-071500-3fa9".
std::string new_job_id(TimePoint now);

}  // namespace burst
