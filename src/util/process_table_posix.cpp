// The process table from ps(1): the path for macOS and other POSIX systems without /proc.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "util/process_table.h"

namespace burst::posix_ps {

std::vector<int> pids_with_env(const std::string& name, const std::string& value) {
  std::vector<int> pids;
  const std::string needle = name + "=" + value;
  // macOS: `ps -E` appends each process's environment to its command line.
  FILE* p = popen("/bin/ps -E -ww -ax -o pid= -o command=", "r");
  if (!p) return pids;
  char line[65536];
  while (fgets(line, sizeof line, p)) {
    std::string s(line);
    size_t at = s.find(" " + needle);
    if (at == std::string::npos) continue;
    size_t after = at + 1 + needle.size();
    if (after < s.size() && s[after] != ' ' && s[after] != '\n') continue;
    int pid = std::atoi(s.c_str());
    if (pid > 0 && pid != getpid()) pids.push_back(pid);
  }
  pclose(p);
  return pids;
}

std::vector<ProcessInfo> list_processes() {
  std::vector<ProcessInfo> out;
  FILE* p = popen("/bin/ps -ww -ax -o pid= -o ppid= -o command=", "r");
  if (!p) return out;
  char line[65536];
  while (fgets(line, sizeof line, p)) {
    std::istringstream in(line);
    ProcessInfo info;
    in >> info.pid >> info.ppid;
    std::getline(in, info.cmdline);
    out.push_back(info);
  }
  pclose(p);
  return out;
}

}  // namespace burst::posix_ps
