#include "schedule/missed_runs.h"

#include <algorithm>

namespace burst::schedule {
namespace {

// The latest fire time in (from, now], searching backwards from now in growing windows so a
// dense schedule (every minute) after a long outage does not walk every minute since.
std::optional<TimePoint> latest_in(const CronExpr& cron, const TimeZone& zone, TimePoint from,
                                   TimePoint now) {
  auto span = std::chrono::duration_cast<TimePoint::duration>(std::chrono::hours(1));
  while (true) {
    TimePoint start = std::max(from, now - span);
    std::optional<TimePoint> latest;
    for (std::optional<TimePoint> f = cron.next_fire(start, zone); f && *f <= now;
         f = cron.next_fire(*f, zone)) {
      latest = f;
    }
    if (latest || start == from) return latest;
    span *= 8;
  }
}

}  // namespace

std::optional<MissedPolicy> parse_missed_policy(std::string_view text) {
  if (text == "skip") return MissedPolicy::kSkip;
  if (text == "run-once") return MissedPolicy::kRunOnce;
  return std::nullopt;
}

MissedRunDecision decide_missed_runs(const CronExpr& cron, const TimeZone& zone,
                                     std::optional<TimePoint> last_fire, TimePoint now,
                                     MissedPolicy policy, Duration grace) {
  MissedRunDecision d;
  if (std::optional<TimePoint> next = cron.next_fire(now, zone)) {
    d.next_fire = *next;
    d.has_next_fire = true;
  }
  if (!last_fire || *last_fire >= now) return d;
  d.latest_due = latest_in(cron, zone, *last_fire, now);
  if (!d.latest_due) return d;
  bool on_time = now - *d.latest_due <= grace;
  // Count the late ones: every due fire time but an on-time latest.
  for (std::optional<TimePoint> f = cron.next_fire(*last_fire, zone);
       f && *f <= now && d.missed < kMaxCounted; f = cron.next_fire(*f, zone)) {
    if (!(on_time && *f == *d.latest_due)) ++d.missed;
  }
  d.catch_up = d.missed > 0 && policy == MissedPolicy::kRunOnce;
  d.run_now = on_time || d.catch_up;
  return d;
}

}  // namespace burst::schedule
