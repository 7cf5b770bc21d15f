#include "util/proc_start.h"

#include "util/process.h"

namespace burst {

bool same_process_alive(int64_t pid, const std::string& start) {
  if (pid <= 0 || !process_alive(static_cast<int>(pid))) return false;
  if (start.empty()) return true;
  const std::string now = process_start_time(pid);
  return now.empty() || now == start;
}

}  // namespace burst
