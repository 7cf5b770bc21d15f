#include "util/fault_point.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

namespace burst {
namespace {

struct FaultSpec {
  bool armed = false;
  std::string point, action, dir;
};

FaultSpec parse_env() {
  FaultSpec f;
  const char* v = std::getenv("BURST_FAULT");
  if (!v || !*v) return f;
  std::string s = v;
  size_t a = s.find(':');
  if (a == std::string::npos) return f;
  f.point = s.substr(0, a);
  size_t b = s.find(':', a + 1);
  f.action = s.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  if (b != std::string::npos) f.dir = s.substr(b + 1);
  f.armed = f.action == "kill" || (f.action == "pause" && !f.dir.empty());
  return f;
}

const FaultSpec& spec() {
  static const FaultSpec f = parse_env();
  return f;
}

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace

void fault_point(std::string_view point, std::string_view suffix) {
  const FaultSpec& f = spec();
  if (!f.armed) return;
  if (f.point.size() != point.size() + suffix.size() || f.point.compare(0, point.size(), point) ||
      f.point.compare(point.size(), suffix.size(), suffix))
    return;
  static std::atomic<bool> fired{false};
  if (fired.exchange(true)) return;
  if (f.action == "kill") ::kill(::getpid(), SIGKILL);
  const std::string base = f.dir + "/" + f.point;
  std::ofstream(base + ".reached") << ::getpid() << "\n";
  // The harness injects its fault (cuts SSH, turns on the API's errors), then lets us go on.
  for (int i = 0; i < 120 * 50 && !exists(base + ".go"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

}  // namespace burst
