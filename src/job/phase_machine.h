// The job's phases and the one table that decides which comes next. Pure logic, no I/O: the
// runner executes a phase, reports how it went, and asks here where to go. The rule that matters
// most: once a pod may exist, every path passes through its delete phase.
#pragma once

#include <string>

#include "plan/handoff.h"

namespace burst {

enum class Phase {
  kPlan,
  kProvision,  // create the volume (find-or-create) and the GPU pod
  kWaitSsh,    // pod running, sshd answering, host key pinned
  kSync,       // code up to the volume
  kSetup,
  kRun,
  kPull,          // artefacts home
  kDeleteGpu,     // delete and verify
  kCpuProvision,  // CPU pod on the same volume, reachable over SSH
  kUpload,
  kDeleteCpu,
  kUploadOnGpu,  // hand-off "gpu-pod": the upload on the GPU pod, after pull, before its delete
  kUploadLocal,  // hand-off "local": the upload on this machine, after the GPU delete
  kReport,
  kDone,
};

enum class Outcome {
  kOk,
  kFailed,          // the step ran and failed (or could not run)
  kInterrupted,     // SIGINT/SIGTERM, or the runtime budget ran out
  kConnectionLost,  // the pod stopped answering
  kSkipped,
};

struct JobFacts {
  bool has_upload = false;
  bool pull_on_failure = true;
  bool job_failed = false;             // some earlier phase failed or was interrupted
  Handoff handoff = Handoff::kCpuPod;  // where the upload runs (plan/handoff.h)
};

const char* to_string(Phase p);
const char* to_string(Outcome o);

// Where to go after `current` finished with `outcome`.
Phase next_phase(Phase current, Outcome outcome, const JobFacts& facts);

}  // namespace burst
