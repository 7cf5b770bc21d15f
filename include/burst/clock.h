// Time as a dependency: everything that waits or timestamps takes a Clock so tests can fake it.
//
// Two times: now() is the wall clock (timestamps in the store, reports, cron fire times);
// mono_now() is monotonic (elapsed time, deadlines, timeouts) and never jumps with NTP or a
// suspend. A wait that must end early when something happens goes through a Waiter made by the
// clock, so a FakeClock can wake it when the test advances time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace burst {

using TimePoint = std::chrono::system_clock::time_point;
using MonoTime = std::chrono::steady_clock::time_point;
using Duration = std::chrono::milliseconds;

// One sleeper and whoever wakes it. notify() is remembered until the next wait returns, so a
// notify that comes before the wait starts is never lost. Thread-safe; one thread waits at a time.
class Waiter {
 public:
  virtual ~Waiter() = default;
  // Blocks until notified or until the clock's mono_now() reaches `deadline`; true when notified.
  virtual bool wait_until(MonoTime deadline) = 0;
  // Blocks until notified.
  virtual void wait() = 0;
  virtual void notify() = 0;
};

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  virtual MonoTime mono_now() const = 0;
  virtual void sleep_for(Duration d) = 0;
  virtual std::unique_ptr<Waiter> make_waiter() = 0;
};

// The real clocks: system_clock for now(), steady_clock for mono_now() and waits.
class SystemClock : public Clock {
 public:
  TimePoint now() const override { return std::chrono::system_clock::now(); }
  MonoTime mono_now() const override { return std::chrono::steady_clock::now(); }
  void sleep_for(Duration d) override;
  std::unique_ptr<Waiter> make_waiter() override;
};

// Milliseconds since the Unix epoch; how the store and reports keep time.
inline int64_t to_unix_ms(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
inline TimePoint from_unix_ms(int64_t ms) { return TimePoint(std::chrono::milliseconds(ms)); }

// Whole milliseconds from `since` to `until` on the monotonic clock (negative when past).
inline Duration mono_ms(MonoTime since, MonoTime until) {
  return std::chrono::duration_cast<Duration>(until - since);
}

// "2026-11-22T07:09:41Z" (UTC, second precision), or `t` in UTC with a strftime format.
std::string format_utc(TimePoint t);
std::string format_utc(TimePoint t, const char* strftime_format);

}  // namespace burst
