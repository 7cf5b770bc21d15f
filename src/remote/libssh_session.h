// The libssh adapter's session, behind burst/remote.h's RemoteSession (remote/libssh_session.cpp).
// Only the connector (remote/libssh_connect.cpp) makes one.
#pragma once

#include <memory>
#include <string>

#include "burst/remote.h"
#include "remote/libssh_calls.h"

namespace burst::libssh {

// Takes `s`, connected and authenticated; disconnects and frees it when destroyed. The timeouts
// (seconds, at least 1) are SshTarget's keepalive_idle_s, io_timeout_s, no_progress_timeout_s.
std::unique_ptr<RemoteSession> make_libssh_session(ssh_session s, std::string where,
                                                   int keepalive_idle_s, int io_timeout_s,
                                                   int no_progress_timeout_s);

}  // namespace burst::libssh
