// The process table from ps(1): the path for macOS and other POSIX systems without /proc.
#include <stdio.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <sstream>

#include "util/process_table.h"

namespace burst::posix_ps {

namespace {

// Calls `each` with every line `command` prints, however long: a line is one process, and a
// command line with its environment can run past any fixed buffer (macOS allows 1 MiB of
// arguments and environment). Read in pieces, its tail would parse as a process of its own and
// its head would lack what the tail holds. Its length is bounded by the kernel's own limit.
void each_line(const char* command, const std::function<void(const std::string&)>& each) {
  FILE* p = popen(command, "r");
  if (!p) return;
  char* buf = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&buf, &cap, p)) >= 0) each(std::string(buf, static_cast<size_t>(n)));
  free(buf);
  pclose(p);
}

}  // namespace

std::vector<int> pids_with_env(const std::string& name, const std::string& value) {
  std::vector<int> pids;
  const std::string needle = name + "=" + value;
  // macOS: `ps -E` appends each process's environment to its command line.
  each_line("/bin/ps -E -ww -ax -o pid= -o command=", [&](const std::string& s) {
    size_t at = s.find(" " + needle);
    if (at == std::string::npos) return;
    size_t after = at + 1 + needle.size();
    if (after < s.size() && s[after] != ' ' && s[after] != '\n') return;
    int pid = std::atoi(s.c_str());
    if (pid > 0 && pid != getpid()) pids.push_back(pid);
  });
  return pids;
}

std::vector<ProcessInfo> list_processes() {
  std::vector<ProcessInfo> out;
  each_line("/bin/ps -ww -ax -o pid= -o ppid= -o command=", [&](const std::string& s) {
    std::istringstream in(s);
    ProcessInfo info;
    if (!(in >> info.pid >> info.ppid)) return;
    std::getline(in, info.cmdline);
    out.push_back(info);
  });
  return out;
}

}  // namespace burst::posix_ps
