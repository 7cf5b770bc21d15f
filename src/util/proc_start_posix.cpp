// process_start_time where there is no /proc (macOS): what `ps -o lstart=` prints, to the second.
// Weaker than Linux's clock ticks (util/proc_start.h).
#ifndef __linux__
#include <cstdio>

#include "util/proc_start.h"

namespace burst {

std::string process_start_time(int64_t pid) {
  if (pid <= 0) return "";
  // The command holds only this integer: nothing from outside reaches the shell.
  const std::string cmd = "/bin/ps -o lstart= -p " + std::to_string(pid) + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return "";
  char line[128] = {0};
  std::string out = std::fgets(line, sizeof line, p) ? line : "";
  ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out.empty() ? "" : this_host() + "@lstart/" + out;
}

}  // namespace burst
#endif  // !__linux__
