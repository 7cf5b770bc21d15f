#include "util/proc_start.h"

#include <unistd.h>

#include <cstdlib>

#include "util/process.h"

namespace burst {

std::string this_host() {
  if (const char* id = std::getenv("BURST_HOST_ID"); id && *id) return id;
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "unknown-host";
  return buf;
}

bool same_process_alive(int64_t pid, const std::string& start) {
  const size_t at = start.find('@');
  // Recorded on another host: this host's process table says nothing about it.
  if (at != std::string::npos && start.substr(0, at) != this_host()) return true;
  if (pid <= 0 || !process_alive(static_cast<int>(pid))) return false;
  if (start.empty()) return true;
  std::string now = process_start_time(pid);
  // A token recorded before tokens named their host (no '@') is compared without the host.
  if (at == std::string::npos) now = now.substr(now.find('@') + 1);
  return now.empty() || now == start;
}

}  // namespace burst
