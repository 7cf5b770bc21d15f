// Fuzzes the cron parser (src/schedule/cron_parse.cpp) and, for expressions it accepts, the
// next-fire search in UTC and in a zone with DST. Invariants (src/schedule/cron.h): a rejected
// expression names a field and a message; an accepted one always fires again, on a whole minute,
// strictly after the time asked about.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "schedule/cron.h"
#include "schedule/tz.h"

using burst::TimePoint;
using burst::schedule::CronError;
using burst::schedule::CronExpr;
using burst::schedule::TimeZone;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256) return 0;  // longer expressions only repeat list items
  std::string_view text(reinterpret_cast<const char*>(data), size);
  CronError error;
  std::optional<CronExpr> expr = CronExpr::parse(text, &error);
  if (!expr) {
    FUZZ_CHECK(!error.message.empty());
    FUZZ_CHECK(error.column >= 1);
    return 0;
  }
  static const TimeZone utc = TimeZone::utc();
  static const TimeZone new_york =
      *TimeZone::from_posix("America/New_York", "EST5EDT,M3.2.0,M11.1.0");
  // 2026-03-08T06:30Z and 2026-11-01T05:30Z (just before New York's DST changes), and
  // 2028-02-28T23:59Z (a leap day next).
  static const int64_t starts_ms[] = {1772951400000, 1793511000000, 1835395140000};
  for (const TimeZone* zone : {&utc, &new_york}) {
    for (int64_t start : starts_ms) {
      TimePoint after = burst::from_unix_ms(start);
      for (int i = 0; i < 3; ++i) {
        std::optional<TimePoint> next = expr->next_fire(after, *zone);
        FUZZ_CHECK(next.has_value());
        FUZZ_CHECK(*next > after);
        FUZZ_CHECK(burst::to_unix_ms(*next) % 60000 == 0);
        after = *next;
      }
    }
  }
  return 0;
}
