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

std::ostream& operator<<(std::ostream& os, JobState s) { return os << to_string(s); }
std::ostream& operator<<(std::ostream& os, PodRecordState s) { return os << to_string(s); }

std::optional<JobState> job_state_from_string(std::string_view s) {
  return value_of(kJobStates, s);
}

std::optional<PodRecordState> pod_record_state_from_string(std::string_view s) {
  return value_of(kPodStates, s);
}

}  // namespace burst
