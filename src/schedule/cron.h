// Cron expressions as cronie (the Linux cron daemon) reads them, and when they next fire in a
// time zone. The rules (field grammar, the day-of-month/day-of-week rule, DST) are documented in
// docs/schedules.md; in short:
//   - 5 fields: minute hour day-of-month month day-of-week; numbers, ranges "a-b", steps "*/n",
//     "a-b/n" and "a/n" (= a-max/n), lists "a,b", names JAN..DEC and SUN..SAT (any case),
//     0 and 7 are both Sunday; or @hourly @daily @midnight @weekly @monthly @yearly @annually.
//   - day-of-month and day-of-week are OR-ed only when both are restricted; a field that begins
//     with '*' (even "*/2") counts as unrestricted, and then both must match.
//   - DST: a time in a spring-forward gap fires once, at the first instant after the gap; in a
//     fall-back overlap a job fires at the first occurrence only, unless its minute or hour field
//     begins with '*' (cronie's "wildcard" jobs), which fire at every real matching instant.
// Pure: no clock, no files (the TimeZone is passed in).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "burst/clock.h"
#include "schedule/tz.h"

namespace burst::schedule {

enum class CronField { kExpression, kMinute, kHour, kDayOfMonth, kMonth, kDayOfWeek };

// "minute", "hour", "day-of-month", "month", "day-of-week"; "expression" for the whole.
const char* to_string(CronField field);

// Why an expression was rejected, and where.
struct CronError {
  CronField field = CronField::kExpression;
  int column = 1;       // 1-based column within the expression text
  std::string message;  // "25 is out of range 0-23"

  // "hour: 25 is out of range 0-23"; just the message for the expression as a whole.
  std::string text() const;
};

class CronExpr {
 public:
  // nullopt after filling `error` when `text` is not a valid expression.
  static std::optional<CronExpr> parse(std::string_view text, CronError* error);

  const std::string& text() const { return text_; }

  // The first fire time strictly after `after`, with the fields read as wall-clock time in `zone`.
  // Fire times are whole minutes. nullopt only if nothing matches within 100 years, which parse()
  // rules out.
  std::optional<TimePoint> next_fire(TimePoint after, const TimeZone& zone) const;

  // The first matching wall-clock minute strictly after `local` (local seconds; see tz.h).
  std::optional<int64_t> next_local(int64_t local) const;

  // Whether a local date matches the day fields (the cronie day-of-month/day-of-week rule).
  bool matches_day(int64_t year, int month, int day, int weekday) const;

  // cronie's "wildcard" job: the minute or hour field begins with '*' (or @hourly). Such a job
  // fires in both passes of a fall-back hour.
  bool wildcard() const { return minute_star_ || hour_star_; }

 private:
  friend class CronParser;
  std::string text_;
  uint64_t minutes_ = 0;  // bit n: minute n
  uint32_t hours_ = 0;
  uint32_t days_ = 0;     // bit n: day-of-month n (1-31)
  uint16_t months_ = 0;   // bit n: month n (1-12)
  uint8_t weekdays_ = 0;  // bit n: weekday n (0 = Sunday)
  bool minute_star_ = false, hour_star_ = false, day_star_ = false, weekday_star_ = false;
};

}  // namespace burst::schedule
