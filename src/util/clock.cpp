#include "burst/clock.h"

#include <ctime>
#include <thread>

namespace burst {

void SystemClock::sleep_for(Duration d) { std::this_thread::sleep_for(d); }

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
