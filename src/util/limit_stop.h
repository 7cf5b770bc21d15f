// The words a job uses when one of its time limits stops it, and their one reader. The watchdog
// (job/job_watchdog.h) writes "stopped: budget.deadline (20 s) reached"; the runner puts the
// failing call's name before it ("sync: stopped: ..."), and the job's error keeps it. The report
// reads the limit back as a typed fact (report/job_report.h, `stopped_by`) through
// find_limit_stop, which knows every form burst writes, so the text and the fact cannot drift.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace burst {

inline constexpr std::string_view kLimitDeadline = "budget.deadline";
inline constexpr std::string_view kLimitMaxRuntime = "budget.max_runtime";
// config.yaml's no_progress_seconds: a transfer or command that got no byte from the pod for it.
inline constexpr std::string_view kLimitNoProgress = "no_progress_seconds";

// "stopped: budget.deadline (20 s) reached" (seconds rounded to a whole number).
std::string limit_stop_reason(std::string_view limit, double seconds);

struct LimitStop {
  std::string limit;  // one of the kLimit* names
  double seconds = 0;
};

// The time limit a job's error says stopped it, or nullopt when none did. Reads
// "stopped: budget.deadline (N s) reached", "stopped: budget.max_runtime (N s) reached",
// "exceeded budget.max_runtime (N s); stopped" (the run step's own check) and
// "no bytes from the pod for N s" (the adapter's no-progress timeout), anywhere in the text.
std::optional<LimitStop> find_limit_stop(std::string_view job_error);

}  // namespace burst
