#include "util/fault_point.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

namespace burst {
namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

class EnvFaultHook : public FaultObserver {
 public:
  EnvFaultHook(std::string point, std::string action, std::string dir)
      : point_(std::move(point)), action_(std::move(action)), dir_(std::move(dir)) {}

  void reached(std::string_view point) override {
    if (point != point_ || fired_.exchange(true)) return;
    if (action_ == "kill") ::kill(::getpid(), SIGKILL);
    const std::string base = dir_ + "/" + point_;
    std::ofstream(base + ".reached") << ::getpid() << "\n";
    // The harness injects its fault (cuts SSH, turns on the API's errors), then lets us go on.
    for (int i = 0; i < 120 * 50 && !exists(base + ".go"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

 private:
  const std::string point_, action_, dir_;
  std::atomic<bool> fired_{false};
};

}  // namespace

std::unique_ptr<FaultObserver> make_env_fault_hook(const std::string& s) {
  const size_t a = s.find(':');
  if (a == std::string::npos) return nullptr;
  const size_t b = s.find(':', a + 1);
  std::string action = s.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  std::string dir = b == std::string::npos ? "" : s.substr(b + 1);
  if (action != "kill" && !(action == "pause" && !dir.empty())) return nullptr;
  return std::make_unique<EnvFaultHook>(s.substr(0, a), std::move(action), std::move(dir));
}

}  // namespace burst
