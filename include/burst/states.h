// The typed states of the records in the Store (burst/store.h): a job's state, a pod row's state,
// and a phase row's phase and outcome. Callers compare these enums, never strings. The strings
// exist in two places only: the store adapter (src/store/), whose SQLite text columns hold exactly
// the strings to_string gives (the same ones burst always wrote, so stored data needs no
// migration), and JSON/report output, which users and tests read. from_string returns nullopt for a
// string it does not know; the store adapter turns that into an error naming the row, never a
// silent default.
#pragma once

#include <iosfwd>
#include <optional>
#include <string_view>

namespace burst {

enum class JobState {
  kQueued,   // accepted by burstd, not started (burstd's queue; never a jobs-table row)
  kRunning,  // started and not finished, or its owner died before finishing (reap fails it)
  kSucceeded,
  kFailed,
  kInterrupted,  // stopped by a signal, a cancel or the runtime budget
};

// A pod row's lifecycle (PodRecord). Not the provider's view of a pod (burst/provider.h PodState).
enum class PodRecordState {
  kCreating,      // written before the provider's create call; the id may still be unknown
  kAlive,         // create returned an id
  kDeleting,      // delete asked, not yet confirmed
  kDeleted,       // deletion confirmed
  kCreateFailed,  // create surely made no pod
};

// The job's phases, in the order the phase machine (job/phase_machine.h) runs them, then the
// rows recorded outside it, then the two values only a job row's phase takes (JobRecord::phase:
// the phase in progress or the last one, typed end to end; text only in the store and output).
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
  kReattach,  // burstd took a running job over after a restart (not a machine phase)
  kRecover,   // reap or burstd failed an orphaned job and deleted its pods (not a machine phase)
  // The spec's prepare step (plan/prepare.h), before the GPU work:
  kPrepareCpu,        // a CPU pod on the volume, before the GPU pod exists, reachable over SSH
  kPrepare,           // the step, on that CPU pod or on the GPU pod (after wait-for-ssh)
  kDeletePrepareCpu,  // delete and verify the prepare CPU pod
  // A job row's phase only, never a phase row nor a phase the machine runs:
  kQueued,  // "queued": burstd recorded a job that ended in its queue (cancelled, spec unloadable)
  kReap,    // "reap": reap adopted a burst pod the store had no job for, and recorded one
};

// Which limit stopped a job before its work was done (JobRecord::stop), as the runner knew it
// when the limit fired; the report reads this, never the error's words.
enum class JobStop {
  kNone,        // no limit: it succeeded, failed on its own, or a stop request ended it
  kMaxRuntime,  // budget.max_runtime
  kDeadline,    // budget.deadline
  kMoneyCap,    // budget.max_usd or a daemon's cap ("stopped by budget: ...")
  kNoProgress,  // config's no_progress_seconds: no byte from the pod for that long
};

// How a phase ended.
enum class Outcome {
  kOk,
  kFailed,          // the step ran and failed (or could not run)
  kInterrupted,     // SIGINT/SIGTERM, or the runtime budget ran out
  kConnectionLost,  // the pod stopped answering
  kSkipped,
};

const char* to_string(Phase p);    // "plan", "wait-for-ssh", "delete-gpu-pod", ...
const char* to_string(Outcome o);  // "ok", "failed", "interrupted", "connection-lost", "skipped"
// A phase row's outcome: "" while the phase is in progress (nullopt).
inline const char* to_string(const std::optional<Outcome>& o) { return o ? to_string(*o) : ""; }
std::optional<Phase> phase_from_string(std::string_view s);
std::optional<Outcome> outcome_from_string(std::string_view s);

// "none", "max-runtime", "deadline", "money-cap", "no-progress"
const char* to_string(JobStop s);
std::optional<JobStop> job_stop_from_string(std::string_view s);

const char* to_string(JobState s);        // "queued", "running", "succeeded", ...
const char* to_string(PodRecordState s);  // "creating", "alive", ..., "create-failed"
std::optional<JobState> job_state_from_string(std::string_view s);
std::optional<PodRecordState> pod_record_state_from_string(std::string_view s);

// Prints to_string (test failure messages, logs).
std::ostream& operator<<(std::ostream& os, JobState s);
std::ostream& operator<<(std::ostream& os, PodRecordState s);
std::ostream& operator<<(std::ostream& os, Phase p);
std::ostream& operator<<(std::ostream& os, Outcome o);
std::ostream& operator<<(std::ostream& os, JobStop s);

// The pod may exist at the provider (may bill): anything but deleted or create-failed.
inline bool may_exist(PodRecordState s) {
  return s != PodRecordState::kDeleted && s != PodRecordState::kCreateFailed;
}

}  // namespace burst
