// Who holds a lease on a queued job (Store::claim_queued, docs/daemon.md "Leases"): one burstd
// process, named "<host>|<pid>|<nonce>|<start token>" (util/proc_start.h for the token). The
// nonce tells apart two daemons in one process (in-process tests). A lease ends when its time
// runs out; a daemon may end it sooner only for an owner it can prove dead: one on its own host
// whose process is gone (a restart after kill -9 then takes its jobs over at once).
#pragma once

#include <string>

namespace burst::daemon {

// This process's owner name, with a fresh nonce on each call.
std::string make_lease_owner();

// True only when `owner` was made on this host (same host name) by a process that is no longer
// running. Any owner from another host, or unparsable, is not provably dead: false.
bool lease_owner_dead_here(const std::string& owner);

}  // namespace burst::daemon
