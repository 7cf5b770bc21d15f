// What a scheduler does about fire times that passed while it was not running (the daemon was
// down, the machine asleep). Pure: the caller passes the last fire time it recorded and now.
// docs/schedules.md describes the policy.
#pragma once

#include <optional>
#include <string_view>

#include "burst/clock.h"
#include "schedule/cron.h"

namespace burst::schedule {

enum class MissedPolicy {
  kSkip,     // forget missed fire times; wait for the next one
  kRunOnce,  // run once now for all of them together, then carry on with the schedule
};

// "skip" / "run-once" (the spec's schedule.missed values); nullopt for anything else.
std::optional<MissedPolicy> parse_missed_policy(std::string_view text);

struct MissedRunDecision {
  bool run_now = false;   // start one run now
  bool catch_up = false;  // the run also stands for missed fire times (run-once policy)
  // The most recent fire time at or before now that had not run, or nullopt when none. Record it
  // as the last fire time whether or not a run starts, so the next decision does not count it.
  std::optional<TimePoint> latest_due;
  int missed = 0;              // fire times missed (late by more than `grace`); see kMaxCounted
  TimePoint next_fire;         // the first fire time strictly after now
  bool has_next_fire = false;  // false only for an expression that never fires again
};

// Counting stops here; `missed == kMaxCounted` means "at least that many".
inline constexpr int kMaxCounted = 1000;

// Fire times in (last_fire, now] are due. The latest of them, when it is at most `grace` before
// now, is simply on time and runs under either policy; the others (or all of them, when even the
// latest is older than `grace`) are missed: `run-once` runs once now for them, `skip` does not.
// Without a recorded last fire time (a schedule never run) nothing is due.
MissedRunDecision decide_missed_runs(const CronExpr& cron, const TimeZone& zone,
                                     std::optional<TimePoint> last_fire, TimePoint now,
                                     MissedPolicy policy,
                                     Duration grace = std::chrono::seconds(60));

}  // namespace burst::schedule
