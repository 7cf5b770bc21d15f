// The process table, read two ways: from /proc on Linux (process_table_linux.cpp, compiled on
// Linux only) and by asking ps(1) elsewhere (process_table_posix.cpp, compiled everywhere so the
// Mac's path is built and tested on Linux too). util/process.h picks one; these are its parts.
#pragma once

#include <string>
#include <vector>

#include "util/process.h"

namespace burst {

#ifdef __linux__
namespace linux_proc {
std::vector<int> pids_with_env(const std::string& name, const std::string& value);
std::vector<ProcessInfo> list_processes();
bool is_zombie(int pid);
// The state letter of /proc/<pid>/stat ('R', 'S', 'T' stopped, 'Z', ...); '\0' when it is gone.
char state_of(int pid);
}  // namespace linux_proc
#endif

namespace posix_ps {
// macOS's `ps -E` (the environment after the command); procps's ps has no such flag.
std::vector<int> pids_with_env(const std::string& name, const std::string& value);
std::vector<ProcessInfo> list_processes();
}  // namespace posix_ps

}  // namespace burst
