// Time as a dependency: everything that waits or timestamps takes a Clock so tests can fake it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace burst {

using TimePoint = std::chrono::system_clock::time_point;
using Duration = std::chrono::milliseconds;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  virtual void sleep_for(Duration d) = 0;
};

// The real wall clock.
class SystemClock : public Clock {
 public:
  TimePoint now() const override { return std::chrono::system_clock::now(); }
  void sleep_for(Duration d) override;
};

// Milliseconds since the Unix epoch; how the store and reports keep time.
inline int64_t to_unix_ms(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
inline TimePoint from_unix_ms(int64_t ms) { return TimePoint(std::chrono::milliseconds(ms)); }

// "2026-11-22T07:09:41Z" (UTC, second precision), or `t` in UTC with a strftime format.
std::string format_utc(TimePoint t);
std::string format_utc(TimePoint t, const char* strftime_format);

}  // namespace burst
