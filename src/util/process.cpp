#include "util/process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "util/process_table.h"

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

std::vector<int> with_descendants(const std::vector<int>& roots,
                                  const std::vector<ProcessInfo>& table) {
  std::vector<int> out = roots;
  for (size_t i = 0; i < out.size(); ++i)  // breadth-first; `out` grows as children are found
    for (const auto& p : table)
      if (p.ppid == out[i] && std::find(out.begin(), out.end(), p.pid) == out.end())
        out.push_back(p.pid);
  return out;
}

std::vector<int> pids_with_env(const std::string& name, const std::string& value) {
#ifdef __linux__
  return linux_proc::pids_with_env(name, value);
#else
  return posix_ps::pids_with_env(name, value);
#endif
}

std::vector<ProcessInfo> list_processes() {
#ifdef __linux__
  return linux_proc::list_processes();
#else
  return posix_ps::list_processes();
#endif
}

bool process_alive(int pid) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0) return errno == EPERM;
#ifdef __linux__
  if (linux_proc::is_zombie(pid)) return false;  // a zombie is dead for our purposes
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

namespace {

// Until each pid is stopped or gone (Linux reads its state; elsewhere a short pause), at most
// `ms`: a signal is delivered when its target next runs, so a busy one may fork once more.
void wait_stopped(const std::vector<int>& pids, int ms) {
#ifdef __linux__
  for (int waited = 0; waited < ms; waited += 2) {
    bool all = true;
    for (int pid : pids) {
      const char st = linux_proc::state_of(pid);
      all = all && (st == '\0' || st == 'T' || st == 't' || st == 'Z' || st == 'X');
    }
    if (all) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
#else
  (void)pids;
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(ms, 20)));
#endif
}

}  // namespace

std::vector<int> freeze_and_kill(const std::function<std::vector<int>()>& scan, int grace_ms) {
  std::vector<int> frozen;
  // A tree that keeps forking faster than it is stopped is bounded by the rounds; the SIGKILL
  // below reaches every process seen, and a last scan reports any it did not.
  for (int round = 0; round < 64; ++round) {
    std::vector<int> fresh;
    for (int pid : scan())
      if (pid > 0 && pid != getpid() &&
          std::find(frozen.begin(), frozen.end(), pid) == frozen.end())
        fresh.push_back(pid);
    if (fresh.empty()) break;
    for (int pid : fresh) kill(pid, SIGSTOP);
    wait_stopped(fresh, 200);
    frozen.insert(frozen.end(), fresh.begin(), fresh.end());
  }
  for (int pid : frozen) kill(pid, SIGKILL);
  std::vector<int> alive;
  for (int waited = 0;; waited += 20) {
    alive.clear();
    for (int pid : frozen)
      if (process_alive(pid)) alive.push_back(pid);
    if (alive.empty() || waited >= grace_ms) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int pid : scan())
    if (pid > 0 && pid != getpid() && process_alive(pid) &&
        std::find(alive.begin(), alive.end(), pid) == alive.end())
      alive.push_back(pid);
  return alive;
}

}  // namespace burst
