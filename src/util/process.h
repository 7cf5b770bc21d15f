// Process-table helpers for the local cloud: start a program without a shell, find processes by
// an environment marker, and kill them. Linux reads /proc; macOS asks ps.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "burst/result.h"

namespace burst {

// Runs argv[0] (an absolute path) with exactly `env`, waits for it, returns its exit status.
// stdout/stderr go to `log_path` (appended) when given, else are discarded.
Result<int> run_and_wait(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env,
                         const std::string& log_path);

// Every process (of this user) whose environment holds `name=value`. Note: programs that rewrite
// their process title (sshd does) hide their original environment; find those by command line.
// On Linux a process caught inside execve (its environment not yet readable) is read again, for
// at most 250 ms, so a scan does not miss it (process_table_linux.cpp).
std::vector<int> pids_with_env(const std::string& name, const std::string& value);

struct ProcessInfo {
  int pid = 0;
  int ppid = 0;
  std::string cmdline;  // arguments joined by spaces (the process title, if it set one)
};
std::vector<ProcessInfo> list_processes();

// `roots` plus every process descended from them, from one snapshot of the table.
std::vector<int> with_descendants(const std::vector<int>& roots,
                                  const std::vector<ProcessInfo>& table);

bool process_alive(int pid);

// Stops (SIGSTOP) every process `scan` returns, then scans again until a scan finds nothing new,
// and only then SIGKILLs them all. A stopped process cannot fork, exit or run a handler, so a
// child forked while the tree is being killed is still a descendant when the next scan looks,
// and nothing gets to react to its signal (a TERM trap that starts a detached process without
// the pod's marker). Returns the pids still alive `grace_ms` after the SIGKILL, and any a last
// scan still finds (normally none).
std::vector<int> freeze_and_kill(const std::function<std::vector<int>()>& scan, int grace_ms);

// SIGTERM to each pid, then SIGKILL to survivors after `grace_ms`. Returns the pids still alive
// `grace_ms` after the SIGKILL (normally none).
std::vector<int> terminate_all(const std::vector<int>& pids, int grace_ms);

}  // namespace burst
