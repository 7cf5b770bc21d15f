#include "util/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

namespace burst {

Result<int> run_and_wait(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env,
                         const std::string& log_path) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const char* out = log_path.empty() ? "/dev/null" : log_path.c_str();
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return make_error(ErrorCode::kInternal, argv[0] + ": " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return make_error(ErrorCode::kInternal, argv[0] + ": waitpid failed");
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

namespace {

#ifdef __linux__
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
#endif

}  // namespace

std::vector<int> pids_with_env(const std::string& name, const std::string& value) {
  std::vector<int> pids;
  const std::string needle = name + "=" + value;
#ifdef __linux__
  DIR* d = opendir("/proc");
  if (!d) return pids;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == getpid()) continue;
    if (environ_has(static_cast<int>(pid), needle)) pids.push_back(static_cast<int>(pid));
  }
  closedir(d);
#else
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
#endif
  return pids;
}

std::vector<ProcessInfo> list_processes() {
  std::vector<ProcessInfo> out;
#ifdef __linux__
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
#else
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
#endif
  return out;
}

std::vector<int> with_descendants(const std::vector<int>& roots,
                                  const std::vector<ProcessInfo>& table) {
  std::vector<int> out = roots;
  for (size_t i = 0; i < out.size(); ++i)  // breadth-first; `out` grows as children are found
    for (const auto& p : table)
      if (p.ppid == out[i] && std::find(out.begin(), out.end(), p.pid) == out.end())
        out.push_back(p.pid);
  return out;
}

bool process_alive(int pid) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0) return errno == EPERM;
#ifdef __linux__
  // A zombie is dead for our purposes.
  const std::string stat = read_proc("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') return false;
#endif
  return true;
}

std::vector<int> terminate_all(const std::vector<int>& pids, int grace_ms) {
  auto survivors = [&] {
    std::vector<int> alive;
    for (int pid : pids)
      if (process_alive(pid)) alive.push_back(pid);
    return alive;
  };
  auto wait_until_gone = [&](int ms) {
    for (int waited = 0; waited < ms; waited += 20) {
      if (survivors().empty()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  for (int pid : pids) kill(pid, SIGTERM);
  wait_until_gone(grace_ms);
  for (int pid : survivors()) kill(pid, SIGKILL);
  wait_until_gone(grace_ms);
  return survivors();
}

}  // namespace burst
