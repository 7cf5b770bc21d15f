// The process table from /proc (Linux only; process_table_posix.cpp is the other path).
#ifdef __linux__
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

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

bool has_entry(const std::string& env, const std::string& needle) {
  size_t start = 0;
  while (start < env.size()) {
    size_t end = env.find('\0', start);
    if (end == std::string::npos) end = env.size();
    if (env.compare(start, end - start, needle) == 0) return true;
    start = end + 1;
  }
  return false;
}

std::string environ_of(int pid) { return read_proc("/proc/" + std::to_string(pid) + "/environ"); }

// Whether `pid` is a live process of a program: not a kernel thread (PF_KTHREAD), not a zombie.
bool user_process(int pid) {
  const std::string stat = read_proc("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return false;
  std::istringstream rest(stat.substr(paren + 1));
  std::string state, skip;
  unsigned long flags = 0;
  rest >> state;
  for (int i = 0; i < 5; ++i) rest >> skip;  // ppid pgrp session tty_nr tpgid
  rest >> flags;
  constexpr unsigned long kKernelThread = 0x00200000;  // PF_KTHREAD, include/linux/sched.h
  return rest && state != "Z" && state != "X" && (flags & kKernelThread) == 0;
}

// Whether `pid`'s environment has `needle`, or whether `pid` may be between two images: inside
// execve, after its new memory map is in place and before the kernel records where its arguments
// and environment lie, both read empty (seen here: a script that execs itself was missed by about
// one scan in twenty). So do a process whose exit has released its memory (soon a zombie) and
// one started with no arguments at all, which a caller waits out. The environment is read again
// after the arguments: an exec that finished between the reads is not taken for a process with
// arguments and no environment (env -i).
enum class Seen { kHas, kBetweenImages, kNot };
Seen look(int pid, const std::string& needle) {
  const std::string env = environ_of(pid);
  if (has_entry(env, needle)) return Seen::kHas;
  if (!env.empty() || !user_process(pid)) return Seen::kNot;
  if (read_proc("/proc/" + std::to_string(pid) + "/cmdline").empty()) return Seen::kBetweenImages;
  return has_entry(environ_of(pid), needle) ? Seen::kHas : Seen::kNot;
}

}  // namespace

std::vector<int> pids_with_env(const std::string& name, const std::string& value) {
  std::vector<int> pids, unsure;
  const std::string needle = name + "=" + value;
  DIR* d = opendir("/proc");
  if (!d) return pids;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == getpid()) continue;
    const Seen seen = look(static_cast<int>(pid), needle);
    if (seen == Seen::kHas) pids.push_back(static_cast<int>(pid));
    if (seen == Seen::kBetweenImages) unsure.push_back(static_cast<int>(pid));
  }
  closedir(d);
  // A process caught between two images is read again until it shows its environment or is no
  // longer one, for at most kBetweenImagesMs: a delete must not miss a pod's process that was
  // exec'ing as it scanned (as LocalPodDelete's detached sleep, exec'ed by bash, can be).
  constexpr int kBetweenImagesMs = 250;
  for (int waited = 0; !unsure.empty() && waited < kBetweenImagesMs; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::vector<int> still;
    for (int pid : unsure) {
      const Seen seen = look(pid, needle);
      if (seen == Seen::kHas) pids.push_back(pid);
      if (seen == Seen::kBetweenImages) still.push_back(pid);
    }
    unsure.swap(still);
  }
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
