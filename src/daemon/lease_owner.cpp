#include "daemon/lease_owner.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <random>

#include "util/proc_start.h"

namespace burst::daemon {

std::string make_lease_owner() {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  const unsigned nonce = rd() ^ (counter.fetch_add(1) * 2654435761u);
  const int64_t pid = getpid();
  return this_host() + "|" + std::to_string(pid) + "|" + std::to_string(nonce) + "|" +
         process_start_time(pid);
}

bool lease_owner_dead_here(const std::string& owner) {
  const size_t a = owner.find('|');
  if (a == std::string::npos || owner.substr(0, a) != this_host()) return false;
  const size_t b = owner.find('|', a + 1);
  if (b == std::string::npos) return false;
  const size_t c = owner.find('|', b + 1);
  if (c == std::string::npos) return false;
  int64_t pid = 0;
  try {
    pid = std::stoll(owner.substr(a + 1, b - a - 1));
  } catch (...) {
    return false;
  }
  if (pid <= 0) return false;
  if (pid == getpid()) return false;  // this process: a daemon in it that stopped renewing waits
  return !same_process_alive(pid, owner.substr(c + 1));
}

}  // namespace burst::daemon
