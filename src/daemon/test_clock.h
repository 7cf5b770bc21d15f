// TEST ONLY: an accelerated wall clock for burstd's end-to-end schedule test. burstd's main
// reads BURSTD_TEST_CLOCK="<start unix seconds>:<rate>" and, when set, runs on this clock
// instead of the system's, logging a warning that it does: time starts at <start> and runs
// <rate> times faster than the wall clock (sleeps shrink to match). Never set it in production:
// schedules, phases, reports and billing times are all read from this clock.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "burst/clock.h"

namespace burst::daemon {

class AcceleratedClock : public Clock {
 public:
  AcceleratedClock(TimePoint start, double rate)
      : start_(start), real_start_(std::chrono::steady_clock::now()), rate_(rate) {}
  TimePoint now() const override {
    auto real = std::chrono::steady_clock::now() - real_start_;
    return start_ + std::chrono::duration_cast<TimePoint::duration>(real * rate_);
  }
  void sleep_for(Duration d) override {
    std::this_thread::sleep_for(std::chrono::duration_cast<std::chrono::microseconds>(d / rate_));
  }
  double rate() const { return rate_; }

 private:
  TimePoint start_;
  std::chrono::steady_clock::time_point real_start_;
  double rate_;
};

// "<start unix seconds>:<rate>", rate > 0; nullopt when malformed.
inline std::optional<AcceleratedClock> parse_test_clock(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  try {
    size_t used = 0;
    const long long start = std::stoll(text.substr(0, colon), &used);
    if (used != colon) return std::nullopt;
    const std::string r = text.substr(colon + 1);
    const double rate = std::stod(r, &used);
    if (used != r.size() || !(rate > 0)) return std::nullopt;
    return AcceleratedClock(from_unix_ms(start * 1000), rate);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace burst::daemon
