// Connections being served per peer address, for burstd's TCP listener (daemon/socket_server.h):
// one peer may hold at most a given number at once, so a few slow clients of one machine cannot
// take every worker. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>

namespace burst::daemon {

class PeerCount {
 public:
  // Counts one more connection of `peer` unless it holds `cap` already (then false).
  bool enter(const std::string& peer, int cap);
  void leave(const std::string& peer);  // after an enter() that returned true

 private:
  std::mutex mu_;
  std::map<std::string, int> count_;
};

// The numeric address of the socket's peer ("" for a Unix socket or on error).
std::string peer_address(int fd);

}  // namespace burst::daemon
