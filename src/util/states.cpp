#include "burst/states.h"

#include <array>
#include <ostream>
#include <utility>

namespace burst {

namespace {

constexpr std::array<std::pair<JobState, const char*>, 5> kJobStates{{
    {JobState::kQueued, "queued"},
    {JobState::kRunning, "running"},
    {JobState::kSucceeded, "succeeded"},
    {JobState::kFailed, "failed"},
    {JobState::kInterrupted, "interrupted"},
}};

constexpr std::array<std::pair<PodRecordState, const char*>, 5> kPodStates{{
    {PodRecordState::kCreating, "creating"},
    {PodRecordState::kAlive, "alive"},
    {PodRecordState::kDeleting, "deleting"},
    {PodRecordState::kDeleted, "deleted"},
    {PodRecordState::kCreateFailed, "create-failed"},
}};

constexpr std::array<std::pair<Phase, const char*>, 22> kPhases{{
    {Phase::kPlan, "plan"},
    {Phase::kProvision, "provision"},
    {Phase::kWaitSsh, "wait-for-ssh"},
    {Phase::kSync, "sync"},
    {Phase::kSetup, "setup"},
    {Phase::kRun, "run"},
    {Phase::kPull, "pull"},
    {Phase::kDeleteGpu, "delete-gpu-pod"},
    {Phase::kCpuProvision, "cpu-provision"},
    {Phase::kUpload, "upload"},
    {Phase::kDeleteCpu, "delete-cpu-pod"},
    {Phase::kUploadOnGpu, "upload-on-gpu-pod"},
    {Phase::kUploadLocal, "upload-local"},
    {Phase::kReport, "report"},
    {Phase::kDone, "done"},
    {Phase::kReattach, "reattach"},
    {Phase::kRecover, "recover"},
    {Phase::kPrepareCpu, "prepare-cpu-provision"},
    {Phase::kPrepare, "prepare"},
    {Phase::kDeletePrepareCpu, "delete-prepare-cpu-pod"},
    {Phase::kQueued, "queued"},
    {Phase::kReap, "reap"},
}};

constexpr std::array<std::pair<Outcome, const char*>, 5> kOutcomes{{
    {Outcome::kOk, "ok"},
    {Outcome::kFailed, "failed"},
    {Outcome::kInterrupted, "interrupted"},
    {Outcome::kConnectionLost, "connection-lost"},
    {Outcome::kSkipped, "skipped"},
}};

constexpr std::array<std::pair<JobStop, const char*>, 5> kJobStops{{
    {JobStop::kNone, "none"},
    {JobStop::kMaxRuntime, "max-runtime"},
    {JobStop::kDeadline, "deadline"},
    {JobStop::kMoneyCap, "money-cap"},
    {JobStop::kNoProgress, "no-progress"},
}};

template <typename E, size_t N>
const char* name_of(const std::array<std::pair<E, const char*>, N>& table, E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "?";
}

template <typename E, size_t N>
std::optional<E> value_of(const std::array<std::pair<E, const char*>, N>& table,
                          std::string_view s) {
  for (const auto& [e, name] : table)
    if (s == name) return e;
  return std::nullopt;
}

}  // namespace

const char* to_string(JobState s) { return name_of(kJobStates, s); }
const char* to_string(PodRecordState s) { return name_of(kPodStates, s); }
const char* to_string(Phase p) { return name_of(kPhases, p); }
const char* to_string(Outcome o) { return name_of(kOutcomes, o); }
const char* to_string(JobStop s) { return name_of(kJobStops, s); }

std::ostream& operator<<(std::ostream& os, JobState s) { return os << to_string(s); }
std::ostream& operator<<(std::ostream& os, PodRecordState s) { return os << to_string(s); }
std::ostream& operator<<(std::ostream& os, Phase p) { return os << to_string(p); }
std::ostream& operator<<(std::ostream& os, Outcome o) { return os << to_string(o); }
std::ostream& operator<<(std::ostream& os, JobStop s) { return os << to_string(s); }

std::optional<JobState> job_state_from_string(std::string_view s) {
  return value_of(kJobStates, s);
}

std::optional<PodRecordState> pod_record_state_from_string(std::string_view s) {
  return value_of(kPodStates, s);
}

std::optional<Phase> phase_from_string(std::string_view s) { return value_of(kPhases, s); }
std::optional<Outcome> outcome_from_string(std::string_view s) { return value_of(kOutcomes, s); }
std::optional<JobStop> job_stop_from_string(std::string_view s) { return value_of(kJobStops, s); }

}  // namespace burst
