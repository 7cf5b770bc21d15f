// Who owns a job: a process is recognised by its pid plus the time it started, so a pid the kernel
// has since given to another process never passes for a dead job's owner (docs/daemon.md,
// "Ownership"). The start time is an opaque token, compared only for equality:
//   - Linux (proc_start_linux.cpp): the boot id and field 22 of /proc/<pid>/stat (start time in
//     clock ticks since boot): exact, and a reboot changes it.
//   - elsewhere (proc_start_posix.cpp): `ps -o lstart= -p <pid>`, to the second: weaker, since a
//     pid reused within the same second of its first owner's start would pass.
// Each token starts with the host it was read on ("<host>@..."): a team shares one store across
// hosts (docs/daemon.md), and a pid means nothing on another host.
#pragma once

#include <cstdint>
#include <string>

namespace burst {

// This host's name for owner tokens: $BURST_HOST_ID when set (tests that play several hosts on
// one machine; containers that share a host name), else gethostname(2).
std::string this_host();

// The start-time token of process `pid` on this host, "<this_host()>@<os token>"; "" when there
// is no such process or it cannot be read.
std::string process_start_time(int64_t pid);

// The one owner-liveness rule: `pid` is alive (not a zombie) and is the same process that
// recorded `start` (process_start_time at the time). Where either token is unknown (a job
// recorded before start times were kept, or a start time that cannot be read now) it falls back to
// the pid alone: it errs towards "alive", so a live job's pods are never deleted. A token read on
// another host is not judged here: alive (its own host, or the lease of a daemon's job, decides).
bool same_process_alive(int64_t pid, const std::string& start);

}  // namespace burst
