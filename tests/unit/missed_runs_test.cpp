// What the scheduler does about fire times that passed while it was down: skip or run once,
// with the on-time run kept apart from missed ones.
#include "schedule/missed_runs.h"

#include <gtest/gtest.h>

#include <string>

#include "schedule/civil.h"

namespace burst::schedule {
namespace {

TimePoint at(int y, int mo, int d, int h, int mi = 0, int s = 0) {
  return TimePoint(
      std::chrono::seconds(days_from_civil(y, mo, d) * kSecondsPerDay + h * 3600 + mi * 60 + s));
}

CronExpr cron(const std::string& text) {
  CronError error;
  std::optional<CronExpr> expr = CronExpr::parse(text, &error);
  EXPECT_TRUE(expr) << error.text();
  return expr ? *expr : *CronExpr::parse("@daily", &error);
}

MissedRunDecision decide(const std::string& text, std::optional<TimePoint> last, TimePoint now,
                         MissedPolicy policy) {
  return decide_missed_runs(cron(text), TimeZone::utc(), last, now, policy);
}

TEST(MissedRuns, DownForThreeDays) {
  TimePoint last = at(2026, 1, 1, 3), now = at(2026, 1, 4, 12);
  MissedRunDecision once = decide("0 3 * * *", last, now, MissedPolicy::kRunOnce);
  EXPECT_TRUE(once.run_now);
  EXPECT_TRUE(once.catch_up);
  EXPECT_EQ(once.missed, 3);  // Jan 2, 3 and 4 at 03:00
  EXPECT_EQ(once.latest_due, at(2026, 1, 4, 3));
  EXPECT_EQ(once.next_fire, at(2026, 1, 5, 3));
  EXPECT_TRUE(once.has_next_fire);

  MissedRunDecision skip = decide("0 3 * * *", last, now, MissedPolicy::kSkip);
  EXPECT_FALSE(skip.run_now);
  EXPECT_FALSE(skip.catch_up);
  EXPECT_EQ(skip.missed, 3);
  EXPECT_EQ(skip.latest_due, at(2026, 1, 4, 3));
  EXPECT_EQ(skip.next_fire, at(2026, 1, 5, 3));
}

TEST(MissedRuns, OnTimeRunsUnderEitherPolicy) {
  TimePoint last = at(2026, 1, 1, 3), now = at(2026, 1, 2, 3, 0, 20);
  for (MissedPolicy policy : {MissedPolicy::kSkip, MissedPolicy::kRunOnce}) {
    MissedRunDecision d = decide("0 3 * * *", last, now, policy);
    EXPECT_TRUE(d.run_now);
    EXPECT_FALSE(d.catch_up);
    EXPECT_EQ(d.missed, 0);
    EXPECT_EQ(d.latest_due, at(2026, 1, 2, 3));
  }
  // 61 s late is past the default grace of a minute: missed, not on time.
  MissedRunDecision late = decide("0 3 * * *", last, at(2026, 1, 2, 3, 1, 1), MissedPolicy::kSkip);
  EXPECT_FALSE(late.run_now);
  EXPECT_EQ(late.missed, 1);
}

TEST(MissedRuns, OnTimeAfterMissedOnes) {
  TimePoint last = at(2025, 12, 30, 3), now = at(2026, 1, 2, 3, 0, 10);
  MissedRunDecision skip = decide("0 3 * * *", last, now, MissedPolicy::kSkip);
  EXPECT_TRUE(skip.run_now);  // today's run is on time
  EXPECT_FALSE(skip.catch_up);
  EXPECT_EQ(skip.missed, 2);  // Dec 31 and Jan 1
  MissedRunDecision once = decide("0 3 * * *", last, now, MissedPolicy::kRunOnce);
  EXPECT_TRUE(once.run_now);  // one run stands for all three
  EXPECT_TRUE(once.catch_up);
  EXPECT_EQ(once.latest_due, at(2026, 1, 2, 3));
}

TEST(MissedRuns, NothingDue) {
  MissedRunDecision d =
      decide("0 3 * * *", at(2026, 1, 2, 3), at(2026, 1, 2, 12), MissedPolicy::kRunOnce);
  EXPECT_FALSE(d.run_now);
  EXPECT_EQ(d.missed, 0);
  EXPECT_FALSE(d.latest_due);
  EXPECT_EQ(d.next_fire, at(2026, 1, 3, 3));
  // A schedule that never ran has nothing to catch up on.
  MissedRunDecision never =
      decide("0 3 * * *", std::nullopt, at(2026, 1, 2, 12), MissedPolicy::kRunOnce);
  EXPECT_FALSE(never.run_now);
  EXPECT_FALSE(never.latest_due);
  EXPECT_EQ(never.next_fire, at(2026, 1, 3, 3));
}

TEST(MissedRuns, LongOutageOfADenseSchedule) {
  // Every minute, down for 30 days: the count stops at kMaxCounted, the latest is exact.
  MissedRunDecision d =
      decide("* * * * *", at(2026, 1, 1, 0), at(2026, 1, 31, 0, 0, 30), MissedPolicy::kRunOnce);
  EXPECT_EQ(d.missed, kMaxCounted);
  EXPECT_EQ(d.latest_due, at(2026, 1, 31, 0));
  EXPECT_TRUE(d.run_now);
  EXPECT_EQ(d.next_fire, at(2026, 1, 31, 0, 1));
  // A yearly schedule down for three years.
  MissedRunDecision yearly =
      decide("@yearly", at(2023, 1, 1, 0), at(2026, 6, 1, 0), MissedPolicy::kSkip);
  EXPECT_EQ(yearly.missed, 3);
  EXPECT_EQ(yearly.latest_due, at(2026, 1, 1, 0));
  EXPECT_FALSE(yearly.run_now);
}

TEST(MissedRuns, PolicyNames) {
  EXPECT_EQ(parse_missed_policy("skip"), MissedPolicy::kSkip);
  EXPECT_EQ(parse_missed_policy("run-once"), MissedPolicy::kRunOnce);
  EXPECT_FALSE(parse_missed_policy("always"));
}

}  // namespace
}  // namespace burst::schedule
