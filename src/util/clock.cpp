#include "burst/clock.h"

#include <ctime>
#include <thread>

namespace burst {

void SystemClock::sleep_for(Duration d) { std::this_thread::sleep_for(d); }

namespace {

class SystemWaiter : public Waiter {
 public:
  bool wait_until(MonoTime deadline) override {
    std::unique_lock<std::mutex> lock(mu_);
    const bool notified = cv_.wait_until(lock, deadline, [&] { return notified_; });
    notified_ = false;
    return notified;
  }
  void wait() override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return notified_; });
    notified_ = false;
  }
  void notify() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      notified_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool notified_ = false;
};

}  // namespace

std::unique_ptr<Waiter> SystemClock::make_waiter() { return std::make_unique<SystemWaiter>(); }

std::string format_utc(TimePoint t, const char* strftime_format) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, strftime_format, &tm);
  return buf;
}

std::string format_utc(TimePoint t) { return format_utc(t, "%Y-%m-%dT%H:%M:%SZ"); }

}  // namespace burst
