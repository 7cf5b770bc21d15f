// Cron expressions: next fire times (cronie's rules, in UTC and across the 2026 DST changes of
// New York and London), and the exact text and column of every parse error. Expected times were
// cross-checked with an independent minute-by-minute scan in Python's zoneinfo
// (docs/schedules.md, "How the tests were checked").
#include "schedule/cron.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "schedule/civil.h"
#include "schedule/tz.h"

namespace burst::schedule {
namespace {

// "2026-03-08T07:00:00Z" as a TimePoint.
TimePoint at(const std::string& iso) {
  int y = std::stoi(iso.substr(0, 4)), mo = std::stoi(iso.substr(5, 2));
  int d = std::stoi(iso.substr(8, 2)), h = std::stoi(iso.substr(11, 2));
  int mi = std::stoi(iso.substr(14, 2)), s = std::stoi(iso.substr(17, 2));
  int64_t secs = days_from_civil(y, mo, d) * kSecondsPerDay + h * 3600 + mi * 60 + s;
  return TimePoint(std::chrono::seconds(secs));
}

TimeZone zone(const std::string& name) {
  Result<TimeZone> z = load_time_zone(name);
  EXPECT_TRUE(z.ok()) << (z.ok() ? "" : z.error().message);
  return z.ok() ? *z : TimeZone::utc();
}

bool have_tzdata() {
  return std::filesystem::exists(std::string(kZoneinfoDir) + "/America/New_York") &&
         std::filesystem::exists(std::string(kZoneinfoDir) + "/Europe/London");
}

// The next `n` fire times after `after`, in UTC.
std::vector<std::string> fires(const std::string& expr, const std::string& after, int n,
                               const TimeZone& z = TimeZone::utc()) {
  CronError error;
  std::optional<CronExpr> cron = CronExpr::parse(expr, &error);
  EXPECT_TRUE(cron) << expr << ": " << error.text();
  std::vector<std::string> out;
  TimePoint t = at(after);
  for (int i = 0; cron && i < n; ++i) {
    std::optional<TimePoint> next = cron->next_fire(t, z);
    if (!next) break;
    out.push_back(format_utc(*next));
    t = *next;
  }
  return out;
}

using Times = std::vector<std::string>;

struct Case {
  const char* expr;
  const char* after;
  Times expected;
};

// UTC cases. 2026-01-01 is a Thursday.
const Case kUtcCases[] = {
    {"* * * * *", "2026-01-01T00:00:00Z", {"2026-01-01T00:01:00Z", "2026-01-01T00:02:00Z"}},
    {"* * * * *", "2026-01-01T00:00:30Z", {"2026-01-01T00:01:00Z"}},  // strictly after
    {"0 * * * *", "2026-01-01T00:00:00Z", {"2026-01-01T01:00:00Z", "2026-01-01T02:00:00Z"}},
    {"*/15 * * * *", "2026-01-01T00:07:00Z", {"2026-01-01T00:15:00Z", "2026-01-01T00:30:00Z"}},
    {"1-30/5 * * * *", "2026-01-01T00:27:00Z", {"2026-01-01T01:01:00Z", "2026-01-01T01:06:00Z"}},
    {"5/10 * * * *", "2026-01-01T00:56:00Z", {"2026-01-01T01:05:00Z", "2026-01-01T01:15:00Z"}},
    {"0 9-17/4 * * *", "2026-01-01T13:00:00Z", {"2026-01-01T17:00:00Z", "2026-01-02T09:00:00Z"}},
    {"0,30 8,20 * * *",
     "2026-01-01T08:30:00Z",
     {"2026-01-01T20:00:00Z", "2026-01-01T20:30:00Z", "2026-01-02T08:00:00Z"}},
    {"30 2 * * *", "2026-01-31T03:00:00Z", {"2026-02-01T02:30:00Z"}},
    // Months without the day are skipped: no Feb 30/31, no Apr 31.
    {"0 0 31 * *", "2026-01-31T00:00:00Z", {"2026-03-31T00:00:00Z", "2026-05-31T00:00:00Z"}},
    {"0 0 30 * *", "2026-01-30T00:00:00Z", {"2026-03-30T00:00:00Z"}},
    {"0 0 29 2 *", "2026-01-01T00:00:00Z", {"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"}},
    {"0 0 29 2 *", "2096-03-01T00:00:00Z", {"2104-02-29T00:00:00Z"}},  // 2100 is no leap year
    // Year rollover.
    {"59 23 31 12 *", "2026-06-01T00:00:00Z", {"2026-12-31T23:59:00Z", "2027-12-31T23:59:00Z"}},
    {"0 0 1 1 *", "2026-12-31T23:59:59Z", {"2027-01-01T00:00:00Z"}},
    {"* * * * *", "2026-12-31T23:59:00Z", {"2027-01-01T00:00:00Z"}},
    // Day of week: names in any case, 0 and 7 are Sunday, ranges through 7, "a/n".
    {"0 0 * * MON", "2026-01-01T00:00:00Z", {"2026-01-05T00:00:00Z", "2026-01-12T00:00:00Z"}},
    {"0 0 * * 7", "2026-01-01T00:00:00Z", {"2026-01-04T00:00:00Z"}},
    {"0 0 * * 0", "2026-01-01T00:00:00Z", {"2026-01-04T00:00:00Z"}},
    {"0 0 * * 5-7", "2026-01-03T00:00:00Z", {"2026-01-04T00:00:00Z", "2026-01-09T00:00:00Z"}},
    {"0 0 * * 1/2", "2026-01-02T00:00:00Z", {"2026-01-04T00:00:00Z", "2026-01-05T00:00:00Z"}},
    {"0 0 * * mon-FRI", "2026-01-02T00:00:00Z", {"2026-01-05T00:00:00Z"}},
    {"0 12 * JAN,jul sun", "2026-01-31T00:00:00Z", {"2026-07-05T12:00:00Z"}},
    {"0 0 1,15 * *", "2026-01-15T00:00:00Z", {"2026-02-01T00:00:00Z"}},
    {"0 0 * Feb-Mar/1 *", "2026-01-15T00:00:00Z", {"2026-02-01T00:00:00Z"}},
    // cronie's day rule: both restricted, so the 1st OR Mondays (Feb 1 2026 is a Sunday).
    {"0 0 1 * MON", "2026-01-01T00:00:00Z", {"2026-01-05T00:00:00Z"}},
    {"0 0 1 * MON", "2026-01-26T00:00:00Z", {"2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z"}},
    // "*/2" begins with '*', so it counts as unrestricted: odd days AND Mondays.
    {"0 0 */2 * MON",
     "2026-01-01T00:00:00Z",
     {"2026-01-05T00:00:00Z", "2026-01-19T00:00:00Z", "2026-02-09T00:00:00Z"}},
    // The same days written without '*' are restricted: odd days OR Mondays.
    {"0 0 1-31/2 * MON", "2026-01-05T00:00:00Z", {"2026-01-07T00:00:00Z"}},
    {"0 0 * * */3", "2026-01-01T00:00:00Z", {"2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z"}},
    // Feb 29 OR Mondays of February.
    {"0 0 29 2 1", "2026-01-01T00:00:00Z", {"2026-02-02T00:00:00Z"}},
    // Shorthands.
    {"@hourly", "2026-01-01T00:30:00Z", {"2026-01-01T01:00:00Z"}},
    {"@daily", "2026-01-01T00:00:00Z", {"2026-01-02T00:00:00Z"}},
    {"@midnight", "2026-01-01T12:00:00Z", {"2026-01-02T00:00:00Z"}},
    {"@weekly", "2026-01-01T00:00:00Z", {"2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"}},
    {"@monthly", "2026-01-01T00:00:00Z", {"2026-02-01T00:00:00Z"}},
    {"@yearly", "2026-01-01T00:00:00Z", {"2027-01-01T00:00:00Z"}},
    {"@annually", "2025-12-31T23:59:59Z", {"2026-01-01T00:00:00Z"}},
    {"@DAILY", "2026-01-01T00:00:00Z", {"2026-01-02T00:00:00Z"}},
    {"  0  3\t* * *  ", "2026-01-01T00:00:00Z", {"2026-01-01T03:00:00Z"}},
};

TEST(CronNextFire, Utc) {
  for (const Case& c : kUtcCases) {
    EXPECT_EQ(fires(c.expr, c.after, static_cast<int>(c.expected.size())), c.expected)
        << c.expr << " after " << c.after;
  }
}

TEST(CronNextFire, KeepsTheExpressionText) {
  CronError error;
  EXPECT_EQ(CronExpr::parse("@daily", &error)->text(), "@daily");
  EXPECT_EQ(CronExpr::parse("0 3 * * *", &error)->text(), "0 3 * * *");
}

TEST(CronNextFire, WildcardIsCroniesMinuteOrHourStar) {
  CronError error;
  EXPECT_TRUE(CronExpr::parse("*/5 1 * * *", &error)->wildcard());
  EXPECT_TRUE(CronExpr::parse("30 * * * *", &error)->wildcard());
  EXPECT_TRUE(CronExpr::parse("@hourly", &error)->wildcard());
  EXPECT_FALSE(CronExpr::parse("30 1 * * *", &error)->wildcard());
  EXPECT_FALSE(CronExpr::parse("0-59 0-23 * * *", &error)->wildcard());
  EXPECT_FALSE(CronExpr::parse("@daily", &error)->wildcard());
}

// New York 2026: 02:00 EST -> 03:00 EDT on Mar 8 (07:00Z); 02:00 EDT -> 01:00 EST on Nov 1
// (06:00Z), so 01:00-01:59 runs twice: 05:00-05:59Z (EDT) and 06:00-06:59Z (EST).
TEST(CronDst, NewYorkSpringForward) {
  if (!have_tzdata())
    GTEST_SKIP() << "no tzdata in " << kZoneinfoDir << " (scripts/setup installs it)";
  TimeZone ny = zone("America/New_York");
  // A time in the gap fires once, at the first instant after it (03:00 EDT).
  EXPECT_EQ(fires("30 2 * * *", "2026-03-07T12:00:00Z", 2, ny),
            (Times{"2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"}));
  EXPECT_EQ(fires("0 2 * * *", "2026-03-07T12:00:00Z", 2, ny),
            (Times{"2026-03-08T07:00:00Z", "2026-03-09T06:00:00Z"}));
  // Four gap times collapse into one fire.
  EXPECT_EQ(fires("*/15 2 * * *", "2026-03-08T05:00:00Z", 2, ny),
            (Times{"2026-03-08T07:00:00Z", "2026-03-09T06:00:00Z"}));
  // A wildcard job: 01:45 EST, then 03:00 EDT (the gap's and 03:00's fires are one), 03:15.
  EXPECT_EQ(fires("*/15 * * * *", "2026-03-08T06:30:00Z", 3, ny),
            (Times{"2026-03-08T06:45:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:15:00Z"}));
  EXPECT_EQ(fires("0 * * * *", "2026-03-08T05:30:00Z", 3, ny),
            (Times{"2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z"}));
  EXPECT_EQ(fires("0 3 * * *", "2026-03-07T12:00:00Z", 1, ny), (Times{"2026-03-08T07:00:00Z"}));
  EXPECT_EQ(fires("30 1 * * *", "2026-03-07T12:00:00Z", 2, ny),
            (Times{"2026-03-08T06:30:00Z", "2026-03-09T05:30:00Z"}));
}

TEST(CronDst, NewYorkFallBack) {
  if (!have_tzdata())
    GTEST_SKIP() << "no tzdata in " << kZoneinfoDir << " (scripts/setup installs it)";
  TimeZone ny = zone("America/New_York");
  // A fixed time fires once, at its first occurrence (01:30 EDT).
  EXPECT_EQ(fires("30 1 * * *", "2026-11-01T04:00:00Z", 2, ny),
            (Times{"2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"}));
  EXPECT_EQ(fires("0 1 * * *", "2026-11-01T04:00:00Z", 2, ny),
            (Times{"2026-11-01T05:00:00Z", "2026-11-02T06:00:00Z"}));
  // A wildcard hour fires on every real hour.
  EXPECT_EQ(fires("30 * * * *", "2026-11-01T04:00:00Z", 4, ny),
            (Times{"2026-11-01T04:30:00Z", "2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z",
                   "2026-11-01T07:30:00Z"}));
  EXPECT_EQ(fires("@hourly", "2026-11-01T04:30:00Z", 3, ny),
            (Times{"2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z"}));
  // As in cronie, a '*' minute makes a job wildcard too: both passes of 01:xx.
  EXPECT_EQ(fires("*/30 1 * * *", "2026-11-01T04:00:00Z", 5, ny),
            (Times{"2026-11-01T05:00:00Z", "2026-11-01T05:30:00Z", "2026-11-01T06:00:00Z",
                   "2026-11-01T06:30:00Z", "2026-11-02T06:00:00Z"}));
  EXPECT_EQ(fires("@daily", "2026-10-31T05:00:00Z", 2, ny),
            (Times{"2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z"}));
}

// London 2026: 01:00 GMT -> 02:00 BST on Mar 29 (01:00Z); 02:00 BST -> 01:00 GMT on Oct 25
// (01:00Z), so 01:00-01:59 runs at 00:00-00:59Z (BST) and again at 01:00-01:59Z (GMT).
TEST(CronDst, LondonSpringForward) {
  if (!have_tzdata())
    GTEST_SKIP() << "no tzdata in " << kZoneinfoDir << " (scripts/setup installs it)";
  TimeZone london = zone("Europe/London");
  EXPECT_EQ(fires("30 1 * * *", "2026-03-28T12:00:00Z", 2, london),
            (Times{"2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"}));
  EXPECT_EQ(fires("0 2 * * *", "2026-03-28T12:00:00Z", 2, london),
            (Times{"2026-03-29T01:00:00Z", "2026-03-30T01:00:00Z"}));
  EXPECT_EQ(fires("*/20 * * * *", "2026-03-29T00:30:00Z", 3, london),
            (Times{"2026-03-29T00:40:00Z", "2026-03-29T01:00:00Z", "2026-03-29T01:20:00Z"}));
}

TEST(CronDst, LondonFallBack) {
  if (!have_tzdata())
    GTEST_SKIP() << "no tzdata in " << kZoneinfoDir << " (scripts/setup installs it)";
  TimeZone london = zone("Europe/London");
  EXPECT_EQ(fires("30 1 * * *", "2026-10-24T12:00:00Z", 2, london),
            (Times{"2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"}));
  EXPECT_EQ(fires("30 * * * *", "2026-10-24T23:00:00Z", 4, london),
            (Times{"2026-10-24T23:30:00Z", "2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z",
                   "2026-10-25T02:30:00Z"}));
  EXPECT_EQ(fires("*/20 1 * * *", "2026-10-24T23:59:00Z", 7, london),
            (Times{"2026-10-25T00:00:00Z", "2026-10-25T00:20:00Z", "2026-10-25T00:40:00Z",
                   "2026-10-25T01:00:00Z", "2026-10-25T01:20:00Z", "2026-10-25T01:40:00Z",
                   "2026-10-26T01:00:00Z"}));
}

// Over all of 2026 in New York: a daily job fires exactly once a day, whatever its hour, and a
// half-hourly one fires on every real half hour but the two inside the spring gap.
TEST(CronDst, NothingFiresTwiceOrNeverOverAYear) {
  if (!have_tzdata())
    GTEST_SKIP() << "no tzdata in " << kZoneinfoDir << " (scripts/setup installs it)";
  TimeZone ny = zone("America/New_York");
  for (const char* expr : {"30 2 * * *", "30 1 * * *", "0 0 * * *", "59 23 * * *"}) {
    Times all = fires(expr, "2025-12-31T23:59:59Z", 400, ny);
    std::set<std::string> in_2026;
    for (const std::string& t : all) {
      if (t >= "2026-01-01T05:00:00Z" && t < "2027-01-01T05:00:00Z") in_2026.insert(t);
    }
    EXPECT_EQ(in_2026.size(), 365u) << expr;
  }
  Times half_hours = fires("*/30 * * * *", "2026-01-01T04:59:59Z", 17520, ny);
  ASSERT_EQ(half_hours.size(), 17520u);
  // 365 days * 48, minus 02:00 and 02:30 on Mar 8 (merged into 03:00), plus 01:00 and 01:30
  // again on Nov 1: the 17520th fire is the last half hour of the year, 23:30 EST.
  EXPECT_EQ(half_hours.back(), "2027-01-01T04:30:00Z");
  EXPECT_EQ(std::set<std::string>(half_hours.begin(), half_hours.end()).size(), 17520u);
}

// A zone made from a POSIX rule alone behaves like the file (no tzdata needed).
TEST(CronDst, PosixRuleZone) {
  std::optional<TimeZone> ny = TimeZone::from_posix("EST5EDT", "EST5EDT,M3.2.0,M11.1.0");
  ASSERT_TRUE(ny);
  EXPECT_EQ(fires("30 2 * * *", "2026-03-07T12:00:00Z", 2, *ny),
            (Times{"2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"}));
  EXPECT_EQ(fires("30 1 * * *", "2026-11-01T04:00:00Z", 2, *ny),
            (Times{"2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"}));
  EXPECT_EQ(fires("30 * * * *", "2026-11-01T05:00:00Z", 2, *ny),
            (Times{"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z"}));
}

struct ErrorCase {
  const char* expr;
  const char* text;
  int column;
};

const ErrorCase kErrors[] = {
    {"",
     "expected 5 fields (minute hour day-of-month month day-of-week) or "
     "@hourly/@daily/@weekly/@monthly/@yearly, got 0 fields",
     1},
    {"0 3 *",
     "expected 5 fields (minute hour day-of-month month day-of-week) or "
     "@hourly/@daily/@weekly/@monthly/@yearly, got 3 fields",
     1},
    {"0 3 * * * *",
     "expected 5 fields (minute hour day-of-month month day-of-week) or "
     "@hourly/@daily/@weekly/@monthly/@yearly, got 6 fields",
     11},
    {"60 * * * *", "minute: 60 is out of range 0-59", 1},
    {"0 24 * * *", "hour: 24 is out of range 0-23", 3},
    {"0 0 0 * *", "day-of-month: 0 is out of range 1-31", 5},
    {"0 0 32 * *", "day-of-month: 32 is out of range 1-31", 5},
    {"0 0 * 13 *", "month: 13 is out of range 1-12", 7},
    {"0 0 * 0 *", "month: 0 is out of range 1-12", 7},
    {"0 0 * * 8", "day-of-week: 8 is out of range 0-7 (0 and 7 are Sunday)", 9},
    {"0 0 * * 1-99999999999", "day-of-week: 99999999999 is out of range 0-7 (0 and 7 are Sunday)",
     11},
    {"0 0 * JUNE *", "month: unknown name \"JUNE\" (use JAN-DEC or 1-12)", 7},
    {"0 0 * * MOND", "day-of-week: unknown name \"MOND\" (use SUN-SAT or 0-7)", 9},
    {"x * * * *", "minute: expected a number, got \"x\"", 1},
    {"0 MON * * *", "hour: expected a number, got \"MON\"", 3},
    {"0 0 * ? *", "month: expected a number or a name, got \"?\"", 7},
    {"*/0 * * * *", "minute: step must be at least 1, got 0", 3},
    {"*/ * * * *", "minute: expected a step (a number) after '/', got \"\"", 3},
    {"5/x * * * *", "minute: expected a step (a number) after '/', got \"x\"", 3},
    {"1,,2 * * * *", "minute: empty list item", 3},
    {"1, * * * *", "minute: empty list item", 3},
    {"0 22-2 * * *", "hour: range 22-2 runs backwards; write it as two ranges (22-23,0-2)", 3},
    {"0 0 * * FRI-MON",
     "day-of-week: range FRI-MON runs backwards; write it as two ranges (5-6,0-1)", 9},
    {"1-2-3 * * * *", "minute: unexpected \"-\" after \"1-2\"", 4},
    {"*-5 * * * *", "minute: unexpected \"-\" after \"*\"", 2},
    {"0 0 31 2 *",
     "day-of-month: \"31\" never occurs in the selected months, so the schedule would never fire",
     5},
    {"0 0 30,31 FEB *",
     "day-of-month: \"30,31\" never occurs in the selected months, so the schedule would never "
     "fire",
     5},
    {"  0 3 * * 99", "day-of-week: 99 is out of range 0-7 (0 and 7 are Sunday)", 11},
    {"@reboot",
     "@reboot runs a job when cron starts, which is not a schedule; use five fields or @hourly, "
     "@daily, @weekly, @monthly or @yearly",
     1},
    {"@fortnightly",
     "unknown shorthand \"@fortnightly\"; expected @hourly, @daily, @midnight, @weekly, "
     "@monthly, @yearly or @annually",
     1},
    {"@daily 5", "expected nothing after @daily", 8},
};

TEST(CronErrors, TextAndColumn) {
  for (const ErrorCase& c : kErrors) {
    CronError error;
    EXPECT_FALSE(CronExpr::parse(c.expr, &error)) << c.expr;
    EXPECT_EQ(error.text(), c.text) << c.expr;
    EXPECT_EQ(error.column, c.column) << c.expr;
  }
}

TEST(CronErrors, NamesTheField) {
  CronError error;
  EXPECT_FALSE(CronExpr::parse("0 0 * * 8", &error));
  EXPECT_EQ(error.field, CronField::kDayOfWeek);
  EXPECT_EQ(error.message, "8 is out of range 0-7 (0 and 7 are Sunday)");
  EXPECT_FALSE(CronExpr::parse("0 0 *", &error));
  EXPECT_EQ(error.field, CronField::kExpression);
  EXPECT_STREQ(to_string(CronField::kDayOfMonth), "day-of-month");
}

// With both day fields restricted (OR), a day-of-month that never exists is fine: the
// day-of-week still fires, as in cronie.
TEST(CronErrors, ImpossibleDayWithAWeekdayIsAccepted) {
  EXPECT_EQ(fires("0 0 31 2 MON", "2026-01-01T00:00:00Z", 1), (Times{"2026-02-02T00:00:00Z"}));
}

}  // namespace
}  // namespace burst::schedule
