// next_fire against tests/data/cron_reference.tsv: expressions with their next fire times (UTC)
// as computed by a reference cron library. Each line: expression, start, then the fire times
// after it, tab-separated, minute precision. The table's lines agree with croniter 1.3.5
// (Debian's python3-croniter); where croniter departs from cronie, burst follows cronie and the
// line is listed below with the reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "schedule/civil.h"
#include "schedule/cron.h"

namespace burst::schedule {
namespace {

const std::string kTable = std::string(BURST_SOURCE_DIR) + "/tests/data/cron_reference.tsv";

// "2026-11-22T08:30" as a TimePoint.
TimePoint minute_at(const std::string& s) {
  int64_t days = days_from_civil(std::stoi(s.substr(0, 4)), std::stoi(s.substr(5, 2)),
                                 std::stoi(s.substr(8, 2)));
  return TimePoint(std::chrono::seconds(days * kSecondsPerDay + std::stoi(s.substr(11, 2)) * 3600 +
                                        std::stoi(s.substr(14, 2)) * 60));
}

// "expression<TAB>start" -> what cronie (and burst) does instead of croniter.
const std::map<std::string, std::string> kCronieDiffers = {
    // cronie ORs the day fields unless one *begins with* '*'; croniter also treats a range that
    // covers every weekday ("0-6") as '*', so it ANDs. cronie fires every day of November.
    {"16 17 10 11 0-6\t2026-11-22T08:30", "2026-11-22T17:16\t2026-11-23T17:16\t2026-11-24T17:16"},
    {"16 17 10 11 0-6\t2028-02-28T23:59", "2028-11-01T17:16\t2028-11-02T17:16\t2028-11-03T17:16"},
    // "*/6" in day-of-month is 1,7,13,19,25,31 (the step starts at the field's first value);
    // croniter skips March 1 here.
    {"53-54 */7 */6 * *\t2028-02-28T23:59", "2028-03-01T00:53\t2028-03-01T00:54\t2028-03-01T07:53"},
};

TEST(CronReference, MatchesTheReferenceTable) {
  std::ifstream in(kTable);
  if (!in) GTEST_SKIP() << "no reference table at " << kTable;
  std::string line;
  int lines = 0, differ = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream split(line);
    for (std::string x; std::getline(split, x, '\t');) f.push_back(x);
    ASSERT_GE(f.size(), 3u) << line;
    CronError error;
    std::optional<CronExpr> cron = CronExpr::parse(f[0], &error);
    ASSERT_TRUE(cron) << f[0] << ": " << error.text();
    std::string want, got;
    TimePoint t = minute_at(f[1]);
    for (size_t i = 2; i < f.size(); ++i) {
      std::optional<TimePoint> next = cron->next_fire(t, TimeZone::utc());
      ASSERT_TRUE(next) << f[0];
      t = *next;
      got += (i > 2 ? "\t" : "") + format_utc(t, "%Y-%m-%dT%H:%M");
      want += (i > 2 ? "\t" : "") + f[i];
    }
    auto exception = kCronieDiffers.find(f[0] + "\t" + f[1]);
    if (exception != kCronieDiffers.end()) {
      want = exception->second;
      ++differ;
    }
    EXPECT_EQ(got, want) << f[0] << " after " << f[1];
    ++lines;
  }
  EXPECT_GE(lines, 400);
  EXPECT_EQ(differ, static_cast<int>(kCronieDiffers.size()));
}

}  // namespace
}  // namespace burst::schedule
