// Time zones read from the system's TZif files (RFC 8536), without the process TZ and without
// std::chrono::tzdb (absent from g++ 12's libstdc++). A TimeZone answers two questions: the UTC
// offset at an instant, and which instants a local wall-clock time names (none in a
// spring-forward gap, two in a fall-back overlap). Times are whole seconds since the Unix epoch;
// "local seconds" are the wall-clock fields counted as if they were UTC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "burst/result.h"
#include "schedule/posix_tz.h"

namespace burst::schedule {

// What a local wall-clock time maps to.
struct LocalMapping {
  enum class Kind {
    kUnique,   // one instant: `first`
    kGap,      // no instant; `first` is the first instant after the gap (the transition)
    kOverlap,  // two instants: `first` (the earlier offset) and `second`
  };
  Kind kind = Kind::kUnique;
  int64_t first = 0;
  int64_t second = 0;
};

class TimeZone {
 public:
  // UTC, built in (no file needed).
  static TimeZone utc();
  // A zone from a POSIX TZ string alone ("EST5EDT,M3.2.0,M11.1.0"); nullopt when malformed.
  static std::optional<TimeZone> from_posix(std::string name, std::string_view tz_string);
  // A zone from the bytes of a TZif file (version 1, 2, 3 or 4). Errors are kInvalid.
  static Result<TimeZone> from_tzif(std::string name, std::string_view bytes);

  const std::string& name() const { return name_; }

  // Seconds east of UTC in effect at `utc`.
  int offset_at(int64_t utc) const;
  // The first instant strictly after `utc` where the offset changes; nullopt if it never does.
  std::optional<int64_t> next_transition(int64_t utc) const;
  // The instants whose wall clock reads `local`.
  LocalMapping to_utc(int64_t local) const;

 private:
  TimeZone() = default;

  std::string name_;
  std::vector<int64_t> times_;     // transition instants, ascending
  std::vector<int> offsets_;       // offsets_[i] is in effect from times_[i]
  int initial_offset_ = 0;         // before the first transition (RFC 8536: time type 0)
  std::optional<PosixTz> footer_;  // after the last transition
};

// Default root of the system's time zone database (Debian's and macOS's tzdata).
inline constexpr char kZoneinfoDir[] = "/usr/share/zoneinfo";

// The zone named `name` ("Europe/London"); "UTC" always works, even without tzdata. An unknown
// or malformed name is kNotFound/kInvalid with a message that names it.
Result<TimeZone> load_time_zone(const std::string& name,
                                const std::string& zoneinfo_dir = kZoneinfoDir);

}  // namespace burst::schedule
