// Serves the Api over HTTP/1.1 on a Unix domain socket (cpp-httplib's AF_UNIX support; the only
// file of burstd that includes httplib). The socket is mode 0600: only its owner can talk to
// burstd. No TCP listener exists.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "daemon/api.h"

namespace burst::daemon {

class SocketServer {
 public:
  explicit SocketServer(Api& api);
  ~SocketServer();  // stops and removes the socket file

  // Binds `path` (replacing a stale socket file no one answers on) and serves on a thread.
  // kInvalid when another burstd answers there; kInternal when the bind fails.
  Status start(const std::string& path);
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace burst::daemon
