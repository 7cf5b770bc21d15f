// The process table from /proc (Linux only; process_table_posix.cpp is the other path).
#ifdef __linux__
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "util/process_table.h"

namespace burst::linux_proc {
namespace {

// The whole of a /proc file, or what could be read before the process went away. Plain read(2):
// a process that exits while we read makes read fail with ESRCH, which libstdc++'s filebuf
// throws as std::ios_base::failure through istreambuf_iterator; that crashed `burst reap` (chaos
// matrix, docs/chaos.md) and would crash any pod delete on the local cloud.
std::string read_proc(const std::string& path) {
  std::string out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

bool environ_has(int pid, const std::string& needle) {
  const std::string data = read_proc("/proc/" + std::to_string(pid) + "/environ");
  size_t start = 0;
  while (start < data.size()) {
    size_t end = data.find('\0', start);
    if (end == std::string::npos) end = data.size();
    if (data.compare(start, end - start, needle) == 0) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

std::vector<int> pids_with_env(const std::string& name, const std::string& value) {
  std::vector<int> pids;
  const std::string needle = name + "=" + value;
  DIR* d = opendir("/proc");
  if (!d) return pids;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == getpid()) continue;
    if (environ_has(static_cast<int>(pid), needle)) pids.push_back(static_cast<int>(pid));
  }
  closedir(d);
  return pids;
}

std::vector<ProcessInfo> list_processes() {
  std::vector<ProcessInfo> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    std::string line = read_proc("/proc/" + std::string(e->d_name) + "/stat");
    line = line.substr(0, line.find('\n'));
    size_t paren = line.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(line.substr(paren + 2));
    std::string state;
    ProcessInfo info;
    info.pid = static_cast<int>(pid);
    rest >> state >> info.ppid;
    std::string args = read_proc("/proc/" + std::string(e->d_name) + "/cmdline");
    for (char& c : args)
      if (c == '\0') c = ' ';
    info.cmdline = args;
    out.push_back(info);
  }
  closedir(d);
  return out;
}

char state_of(int pid) {
  const std::string stat = read_proc("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() ? stat[paren + 2] : '\0';
}

bool is_zombie(int pid) { return state_of(pid) == 'Z'; }

}  // namespace burst::linux_proc
#endif  // __linux__
