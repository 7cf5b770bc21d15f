// The link under a libssh session (remote/libssh_session.cpp): noticing a dead link, tuning the
// socket, opening a channel quickly, and the names and errors every libssh file shares. Real
// (steady) time: these guard a socket, whose kernel timers run on it too.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "burst/remote.h"
#include "burst/result.h"
#include "remote/libssh_calls.h"

namespace burst::libssh {

constexpr size_t kChunk = 64 * 1024;  // one channel or file read or write
constexpr int kPollMs = 100;          // the slice every wait on the pod sleeps in

// "ssh user@host:port", the context of every error of a session.
std::string where(const SshTarget& t);
// `context`: libssh's last error on `s`.
Error ssh_error(ErrorCode code, const std::string& context, ssh_session s);

// Notices a dead link. Reads wait in 100 ms slices; after `idle_s` with nothing heard, the link is
// probed by opening a channel, which the server must answer within the session's timeout
// (io_timeout_s). A silent partition never closes the socket, so without this a read would wait for
// ever. Used by one thread at a time (the session's caller).
class LinkWatch {
 public:
  LinkWatch(ssh_session s, int idle_s) : s_(s), idle_(std::chrono::seconds(idle_s)) {}
  void heard() { last_ = Steady::now(); }
  // Call when a wait returned nothing; false once the link is known dead.
  bool alive();

 private:
  using Steady = std::chrono::steady_clock;
  ssh_session s_;
  Steady::duration idle_;
  Steady::time_point last_ = Steady::now();
};

// The kernel's share: TCP keepalives and a cap on unacknowledged data (Linux), so a link that drops
// packets fails the socket even while libssh is blocked in a write.
void tune_socket(ssh_session s, int idle_s, int io_timeout_s);

// Opens a session channel on `ch` without waiting on a delayed ACK (the .cpp says why); the libssh
// return code (SSH_OK when open).
int open_session_channel(ssh_session s, ssh_channel ch, int timeout_ms);

}  // namespace burst::libssh
