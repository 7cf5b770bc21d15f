#include "burst/clock.h"

#include <ctime>
#include <thread>

namespace burst {

void SystemClock::sleep_for(Duration d) { std::this_thread::sleep_for(d); }

std::string format_utc(TimePoint t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace burst
