// Time zones from TZif files and POSIX TZ strings: offsets at instants, the local-to-UTC mapping
// with its gaps and overlaps, and the errors for unknown zones and broken files. Expected offsets
// were cross-checked with Python's zoneinfo.
#include "schedule/tz.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fakes/temp_dir.h"
#include "schedule/civil.h"

namespace burst::schedule {
namespace {

int64_t utc(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  return days_from_civil(y, mo, d) * kSecondsPerDay + h * 3600 + mi * 60 + s;
}

bool have(const std::string& name) {
  return std::filesystem::exists(std::string(kZoneinfoDir) + "/" + name);
}

#define REQUIRE_ZONE(name) \
  if (!have(name))         \
  GTEST_SKIP() << "no " << name << " in " << kZoneinfoDir << " (scripts/setup installs tzdata)"

TimeZone load(const std::string& name) {
  Result<TimeZone> z = load_time_zone(name);
  EXPECT_TRUE(z.ok()) << (z.ok() ? "" : z.error().message);
  return z.ok() ? *z : TimeZone::utc();
}

// Big-endian bytes of `v`, `n` wide.
std::string be(int64_t v, int n) {
  std::string out;
  for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// A TZif file: `version` '\0' (v1) or '2'; transitions at `times` to the offsets `types`.
std::string tzif(char version, const std::vector<int64_t>& times, const std::vector<int>& type_of,
                 const std::vector<int>& utoffs, const std::string& footer = "") {
  auto block = [&](int time_size) {
    std::string b = "TZif";
    b.push_back(version);
    b += std::string(15, '\0');
    for (int64_t count :
         {0, 0, 0, static_cast<int>(times.size()), static_cast<int>(utoffs.size()), 4}) {
      b += be(count, 4);
    }
    for (int64_t t : times) b += be(t, time_size);
    for (int t : type_of) b.push_back(static_cast<char>(t));
    for (int off : utoffs) b += be(off, 4) + std::string(1, '\0') + std::string(1, '\0');
    b += std::string("ABC") + '\0';
    return b;
  };
  std::string bytes = block(4);
  if (version >= '2') bytes += block(8) + "\n" + footer + "\n";
  return bytes;
}

TEST(TimeZone, Utc) {
  TimeZone z = TimeZone::utc();
  EXPECT_EQ(z.name(), "UTC");
  EXPECT_EQ(z.offset_at(utc(2026, 7, 1)), 0);
  EXPECT_FALSE(z.next_transition(0));
  LocalMapping m = z.to_utc(utc(2026, 3, 8, 2, 30));
  EXPECT_EQ(m.kind, LocalMapping::Kind::kUnique);
  EXPECT_EQ(m.first, utc(2026, 3, 8, 2, 30));
  EXPECT_TRUE(load_time_zone("UTC").ok());
}

TEST(TimeZone, NewYorkOffsets) {
  REQUIRE_ZONE("America/New_York");
  TimeZone ny = load("America/New_York");
  EXPECT_EQ(ny.name(), "America/New_York");
  EXPECT_EQ(ny.offset_at(utc(2026, 3, 8, 6, 59, 59)), -5 * 3600);
  EXPECT_EQ(ny.offset_at(utc(2026, 3, 8, 7)), -4 * 3600);
  EXPECT_EQ(ny.offset_at(utc(2026, 11, 1, 5, 59, 59)), -4 * 3600);
  EXPECT_EQ(ny.offset_at(utc(2026, 11, 1, 6)), -5 * 3600);
  EXPECT_EQ(ny.next_transition(utc(2026, 1, 1)), utc(2026, 3, 8, 7));
  EXPECT_EQ(ny.next_transition(utc(2026, 3, 8, 7)), utc(2026, 11, 1, 6));
  // Past the file's table the footer's rule (EST5EDT,M3.2.0,M11.1.0) answers.
  EXPECT_EQ(ny.offset_at(utc(2100, 7, 1)), -4 * 3600);
  EXPECT_EQ(ny.offset_at(utc(2100, 1, 1)), -5 * 3600);
  EXPECT_EQ(ny.next_transition(utc(2100, 1, 1)), utc(2100, 3, 14, 7));
  // History: local mean time before 1883, and war time.
  EXPECT_EQ(ny.offset_at(utc(1850, 1, 1)), -17762);
  EXPECT_EQ(ny.offset_at(utc(1943, 1, 1)), -4 * 3600);
}

TEST(TimeZone, NewYorkGapAndOverlap) {
  REQUIRE_ZONE("America/New_York");
  TimeZone ny = load("America/New_York");
  LocalMapping gap = ny.to_utc(utc(2026, 3, 8, 2, 30));
  EXPECT_EQ(gap.kind, LocalMapping::Kind::kGap);
  EXPECT_EQ(gap.first, utc(2026, 3, 8, 7));  // 03:00 EDT
  LocalMapping overlap = ny.to_utc(utc(2026, 11, 1, 1, 30));
  EXPECT_EQ(overlap.kind, LocalMapping::Kind::kOverlap);
  EXPECT_EQ(overlap.first, utc(2026, 11, 1, 5, 30));   // EDT
  EXPECT_EQ(overlap.second, utc(2026, 11, 1, 6, 30));  // EST
  LocalMapping before = ny.to_utc(utc(2026, 11, 1, 0, 59));
  EXPECT_EQ(before.kind, LocalMapping::Kind::kUnique);
  EXPECT_EQ(before.first, utc(2026, 11, 1, 4, 59));
  LocalMapping after = ny.to_utc(utc(2026, 11, 1, 2));
  EXPECT_EQ(after.kind, LocalMapping::Kind::kUnique);
  EXPECT_EQ(after.first, utc(2026, 11, 1, 7));
  EXPECT_EQ(ny.to_utc(utc(2026, 3, 8, 3)).kind, LocalMapping::Kind::kUnique);
  EXPECT_EQ(ny.to_utc(utc(2026, 3, 8, 1, 59)).first, utc(2026, 3, 8, 6, 59));
}

TEST(TimeZone, LondonAndSydney) {
  REQUIRE_ZONE("Europe/London");
  REQUIRE_ZONE("Australia/Sydney");
  TimeZone london = load("Europe/London");
  EXPECT_EQ(london.offset_at(utc(2026, 3, 29, 0, 59)), 0);
  EXPECT_EQ(london.offset_at(utc(2026, 3, 29, 1)), 3600);
  EXPECT_EQ(london.to_utc(utc(2026, 3, 29, 1, 30)).kind, LocalMapping::Kind::kGap);
  EXPECT_EQ(london.to_utc(utc(2026, 3, 29, 1, 30)).first, utc(2026, 3, 29, 1));
  LocalMapping overlap = london.to_utc(utc(2026, 10, 25, 1, 15));
  EXPECT_EQ(overlap.kind, LocalMapping::Kind::kOverlap);
  EXPECT_EQ(overlap.first, utc(2026, 10, 25, 0, 15));
  EXPECT_EQ(overlap.second, utc(2026, 10, 25, 1, 15));
  // Southern hemisphere: summer time across the new year.
  TimeZone sydney = load("Australia/Sydney");
  EXPECT_EQ(sydney.offset_at(utc(2026, 1, 15)), 11 * 3600);
  EXPECT_EQ(sydney.offset_at(utc(2026, 7, 1)), 10 * 3600);
  EXPECT_EQ(sydney.offset_at(utc(2090, 1, 15)), 11 * 3600);
  EXPECT_EQ(sydney.offset_at(utc(2090, 7, 1)), 10 * 3600);
}

TEST(TimeZone, PosixStrings) {
  std::optional<TimeZone> london = TimeZone::from_posix("London", "GMT0BST,M3.5.0/1,M10.5.0");
  ASSERT_TRUE(london);
  EXPECT_EQ(london->next_transition(utc(2026, 1, 1)), utc(2026, 3, 29, 1));
  EXPECT_EQ(london->next_transition(utc(2026, 3, 29, 1)), utc(2026, 10, 25, 1));
  std::optional<TimeZone> tehran = TimeZone::from_posix("x", "<+0330>-3:30");
  ASSERT_TRUE(tehran);
  EXPECT_EQ(tehran->offset_at(utc(2026, 7, 1)), 3 * 3600 + 1800);
  EXPECT_FALSE(tehran->next_transition(0));
  // Julian days: J60 is Mar 1 even in a leap year; 59 (zero-based) is Feb 29 in one.
  std::optional<TimeZone> julian = TimeZone::from_posix("x", "AAA-1BBB,J60/0,300/0");
  ASSERT_TRUE(julian);
  EXPECT_EQ(julian->next_transition(utc(2028, 1, 1)), utc(2028, 3, 1) - 3600);
  std::optional<TimeZone> zero_based = TimeZone::from_posix("x", "AAA-1BBB,59/0,300/0");
  ASSERT_TRUE(zero_based);
  EXPECT_EQ(zero_based->next_transition(utc(2028, 1, 1)), utc(2028, 2, 29) - 3600);
  for (const char* bad : {"", "5", "EST", "E5", "EST5EDT,M13.1.0,M11.1.0", "EST5EDT,M3.2.0",
                          "EST5EDT,M3.2.0,M11.1.0x", "<+03", "EST5EDT,M3.0.0,M11.1.0"}) {
    EXPECT_FALSE(TimeZone::from_posix("x", bad)) << bad;
  }
}

TEST(TimeZone, ReadsVersion1Files) {
  // +1h until 2000-01-01, then +2h: local 01:00-01:59 that night does not exist.
  std::string bytes = tzif('\0', {utc(2000, 1, 1)}, {1}, {3600, 7200});
  Result<TimeZone> z = TimeZone::from_tzif("Test/V1", bytes);
  ASSERT_TRUE(z.ok()) << z.error().message;
  EXPECT_EQ(z->offset_at(utc(1999, 12, 31, 22, 59)), 3600);
  EXPECT_EQ(z->offset_at(utc(2000, 1, 1)), 7200);
  EXPECT_EQ(z->offset_at(utc(2030, 1, 1)), 7200);  // no footer in v1: the last offset stays
  EXPECT_EQ(z->to_utc(utc(2000, 1, 1, 1, 30)).kind, LocalMapping::Kind::kGap);
  EXPECT_EQ(z->to_utc(utc(2000, 1, 1, 1, 30)).first, utc(2000, 1, 1));
}

TEST(TimeZone, ReadsVersion2FilesAndTheirFooter) {
  // One 64-bit transition before 1901 (beyond 32 bits), then the footer's rules.
  std::string bytes = tzif('2', {-5000000000}, {1}, {-17762, -18000}, "EST5EDT,M3.2.0,M11.1.0");
  Result<TimeZone> z = TimeZone::from_tzif("Test/V2", bytes);
  ASSERT_TRUE(z.ok()) << z.error().message;
  EXPECT_EQ(z->offset_at(-5000000001), -17762);
  EXPECT_EQ(z->offset_at(utc(2026, 7, 1)), -4 * 3600);
  EXPECT_EQ(z->offset_at(utc(2026, 12, 1)), -5 * 3600);
  EXPECT_EQ(z->to_utc(utc(2026, 11, 1, 1, 30)).kind, LocalMapping::Kind::kOverlap);
}

TEST(TimeZone, RejectsBrokenFiles) {
  auto message = [](const std::string& bytes) {
    Result<TimeZone> z = TimeZone::from_tzif("Bad/Zone", bytes);
    EXPECT_FALSE(z.ok());
    return z.ok() ? std::string() : z.error().message;
  };
  EXPECT_EQ(message("hello"), "time zone Bad/Zone: not a TZif file: bad header");
  std::string good = tzif('2', {0}, {0}, {3600}, "CET-1");
  EXPECT_EQ(message(good.substr(0, good.size() - 10)),
            "time zone Bad/Zone: not a TZif file: truncated");
  EXPECT_EQ(message(tzif('2', {0}, {0}, {3600}, "nonsense")),
            "time zone Bad/Zone: not a TZif file: bad TZ string \"nonsense\"");
  EXPECT_EQ(message(tzif('\0', {10, 5}, {0, 0}, {0})),
            "time zone Bad/Zone: not a TZif file: bad transition table");
}

// Every cut of a file is rejected, except the one that drops just the footer, and huge counts
// in a short file are caught before anything is allocated for them.
TEST(TimeZone, TruncatedFiles) {
  const std::string footer = "EST5EDT,M3.2.0,M11.1.0";
  std::string full = tzif('2', {-5000000000, 0}, {1, 0}, {-17762, -18000}, footer);
  size_t data_end = full.size() - footer.size() - 2;
  for (size_t n = 0; n < full.size(); ++n) {
    EXPECT_EQ(TimeZone::from_tzif("Cut", full.substr(0, n)).ok(), n == data_end) << n;
  }
  std::string huge = tzif('\0', {0}, {0}, {0}).substr(0, 44);
  huge.replace(32, 4, be(0x7fffffff, 4));  // timecnt
  EXPECT_EQ(TimeZone::from_tzif("Huge", huge).error().message,
            "time zone Huge: not a TZif file: truncated");
}

TEST(TimeZone, UnknownNames) {
  TempDir tmp;
  std::filesystem::create_directories(tmp.path() + "/Fake");
  tmp.write("Fake/Zone", "not tzif\n");
  tmp.write("Good", tzif('\0', {}, {}, {3600}));
  auto message = [&](const std::string& name, const std::string& dir) {
    Result<TimeZone> z = load_time_zone(name, dir);
    EXPECT_FALSE(z.ok()) << name;
    return z.ok() ? std::string() : z.error().message;
  };
  EXPECT_EQ(message("Mars/Olympus", tmp.path()),
            "unknown time zone \"Mars/Olympus\" (expected an IANA name such as Europe/London)");
  std::filesystem::create_directories(tmp.path() + "/Europe");
  tmp.write("Europe/London", tzif('\0', {}, {}, {0}));
  EXPECT_EQ(message("Europe/Londn", tmp.path()),
            "unknown time zone \"Europe/Londn\" (did you mean Europe/London?)");
  EXPECT_EQ(message("europe/london", tmp.path()),
            "unknown time zone \"europe/london\" (did you mean Europe/London?)");
  EXPECT_EQ(message("Europa/Paris", tmp.path()),
            "unknown time zone \"Europa/Paris\" (expected an IANA name such as Europe/London)");
  EXPECT_EQ(message("Fake", tmp.path()),
            "unknown time zone \"Fake\" (expected an IANA name such as Europe/London)");
  EXPECT_EQ(message("Fake/Zone", tmp.path()),
            "unknown time zone \"Fake/Zone\" (time zone Fake/Zone: not a TZif file: bad header)");
  EXPECT_EQ(message("Europe/London", tmp.path() + "/none"),
            "unknown time zone \"Europe/London\" (no time zone database at " + tmp.path() +
                "/none; install tzdata)");
  for (const char* bad : {"../etc/passwd", "/etc/localtime", "", "Europe//London", "Europe/",
                          "A/./B", "Europe/Lon don"}) {
    Result<TimeZone> z = load_time_zone(bad, tmp.path());
    ASSERT_FALSE(z.ok()) << bad;
    EXPECT_EQ(z.error().code, ErrorCode::kInvalid) << bad;
    EXPECT_EQ(z.error().message, std::string("not a time zone name: \"") + bad + "\"");
  }
  Result<TimeZone> good = load_time_zone("Good", tmp.path());
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good->offset_at(0), 3600);
  EXPECT_EQ(load_time_zone("Mars/Olympus", tmp.path()).error().code, ErrorCode::kNotFound);
  // UTC needs no database.
  EXPECT_TRUE(load_time_zone("UTC", tmp.path() + "/none").ok());
}

}  // namespace
}  // namespace burst::schedule
