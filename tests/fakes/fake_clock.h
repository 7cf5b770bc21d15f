// A Clock for tests: sleep_for advances now() at once and adds to the total slept, so code that
// waits or backs off runs instantly and deterministically. Safe to share between threads (the
// scheduler's tests run jobs on their own threads).
#pragma once

#include <chrono>
#include <mutex>

#include "burst/clock.h"

namespace burst {

class FakeClock : public Clock {
 public:
  // 2026-01-01T00:00:00Z by default: far from the epoch, so times of 0 stand out as unset.
  explicit FakeClock(TimePoint start = from_unix_ms(1767225600000)) : now_(start) {}

  TimePoint now() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return now_;
  }
  void sleep_for(Duration d) override {
    std::lock_guard<std::mutex> lock(mu_);
    now_ += d;
    slept_ += d;
    ++sleeps_;
  }

  // Moves time without counting it as sleep (time spent elsewhere).
  void advance(Duration d) {
    std::lock_guard<std::mutex> lock(mu_);
    now_ += d;
  }

  Duration total_slept() const {
    std::lock_guard<std::mutex> lock(mu_);
    return slept_;
  }
  int sleep_count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return sleeps_;
  }

 private:
  mutable std::mutex mu_;
  TimePoint now_;
  Duration slept_{0};
  int sleeps_ = 0;
};

}  // namespace burst
