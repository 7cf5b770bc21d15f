// A Clock for tests: sleep_for advances now() and mono_now() at once and adds to the total
// slept, so code that waits or backs off runs instantly and deterministically. A Waiter's timed
// wait ends when advance() or sleep_for() moves mono_now() past its deadline (or when notified),
// never by real time passing. Safe to share between threads (the scheduler's tests run jobs and
// the scheduler loop on their own threads).
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "burst/clock.h"

namespace burst {

class FakeClock : public Clock {
 public:
  // 2026-01-01T00:00:00Z by default: far from the epoch, so times of 0 stand out as unset.
  // Monotonic time starts at an arbitrary non-zero point and moves with now().
  explicit FakeClock(TimePoint start = from_unix_ms(1767225600000)) : now_(start) {}

  TimePoint now() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return now_;
  }
  MonoTime mono_now() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return mono_;
  }
  void sleep_for(Duration d) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      now_ += d;
      mono_ += d;
      slept_ += d;
      ++sleeps_;
    }
    cv_.notify_all();
  }
  std::unique_ptr<Waiter> make_waiter() override { return std::make_unique<FakeWaiter>(*this); }

  // Moves time without counting it as sleep (time spent elsewhere); wakes timed waits it passes.
  void advance(Duration d) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      now_ += d;
      mono_ += d;
    }
    cv_.notify_all();
  }

  // Steps the wall clock alone (an NTP correction, a suspend's jump): mono_now() does not move.
  void step_wall(Duration d) {
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
  // How many threads are blocked in a Waiter of this clock now: a test advances time once the
  // code under test sleeps, so the advance is not consumed before the wait begins.
  int waiting() const {
    std::lock_guard<std::mutex> lock(mu_);
    return waiting_;
  }

 private:
  // Waits on the clock's own mutex and condition variable: advance() and notify() can never
  // slip between a waiter's check and its sleep.
  class FakeWaiter : public Waiter {
   public:
    explicit FakeWaiter(FakeClock& c) : c_(c) {}
    bool wait_until(MonoTime deadline) override {
      std::unique_lock<std::mutex> lock(c_.mu_);
      ++c_.waiting_;
      c_.cv_.wait(lock, [&] { return notified_ || c_.mono_ >= deadline; });
      --c_.waiting_;
      const bool notified = notified_;
      notified_ = false;
      return notified;
    }
    void wait() override {
      std::unique_lock<std::mutex> lock(c_.mu_);
      ++c_.waiting_;
      c_.cv_.wait(lock, [&] { return notified_; });
      --c_.waiting_;
      notified_ = false;
    }
    void notify() override {
      {
        std::lock_guard<std::mutex> lock(c_.mu_);
        notified_ = true;
      }
      c_.cv_.notify_all();
    }

   private:
    FakeClock& c_;
    bool notified_ = false;  // guarded by c_.mu_
  };

  mutable std::mutex mu_;
  std::condition_variable cv_;
  TimePoint now_;
  MonoTime mono_ = MonoTime(std::chrono::hours(1000));
  Duration slept_{0};
  int sleeps_ = 0;
  int waiting_ = 0;
};

}  // namespace burst
