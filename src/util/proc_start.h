// Who owns a job: a process is recognised by its pid plus the time it started, so a pid the kernel
// has since given to another process never passes for a dead job's owner (docs/daemon.md,
// "Ownership"). The start time is an opaque token, compared only for equality:
//   - Linux (proc_start_linux.cpp): the boot id and field 22 of /proc/<pid>/stat (start time in
//     clock ticks since boot): exact, and a reboot changes it.
//   - elsewhere (proc_start_posix.cpp): `ps -o lstart= -p <pid>`, to the second: weaker, since a
//     pid reused within the same second of its first owner's start would pass.
#pragma once

#include <cstdint>
#include <string>

namespace burst {

// The start-time token of process `pid`; "" when there is no such process or it cannot be read.
std::string process_start_time(int64_t pid);

// The one owner-liveness rule: `pid` is alive (not a zombie) and is the same process that
// recorded `start` (process_start_time at the time). Where either token is unknown (a job
// recorded before start times were kept, or a start time that cannot be read now) it falls back to
// the pid alone: it errs towards "alive", so a live job's pods are never deleted.
bool same_process_alive(int64_t pid, const std::string& start);

}  // namespace burst
