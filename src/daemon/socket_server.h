// Serves the Api over HTTP/1.1 on a Unix domain socket (cpp-httplib's AF_UNIX support; the only
// file of burstd that includes httplib). The socket is mode 0600: only its owner can talk to
// burstd. A TCP listener (start_tcp) exists only when burstd.yaml configures api.tcp, and then
// every request must carry "Authorization: Bearer <token>" (compared in constant time; 401
// otherwise), except that a browser may sign in at /dashboard/login (its Host an address, its
// POST same-origin) and then use a dashboard session (client/dashboard_session.h: a random path
// prefix and a random cookie scoped to it, never the token) for the dashboard's pages, /metrics and
// the pod delete, never for /v1. The Unix socket needs no token.
//
// Both refuse from the headers alone, before reading any body byte: a wrong or missing token
// (401), a body announced over 1 MiB (413) or sent chunked (411). Each connection serves one
// request, which must arrive whole (headers at most 64 KiB, body at most 1 MiB) within 10 s of
// the connect; a write that makes no progress for 10 s ends the connection. TCP serves 64
// connections at once (the Unix socket 16), so a few slow or silent clients cannot keep a
// well-behaved one waiting for long. Jobs submitted over TCP may not use the `local` provider
// unless start_tcp is told so (api.tcp_allow_local_provider; Api::handle enforces it).
#pragma once

#include <atomic>
#include <chrono>
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
  // Listens on host:port (port 0: a free one, see port()) and serves only requests with the
  // token. kInvalid for an empty token; kInternal when the bind fails. `allow_local_provider`:
  // whether jobs submitted here may use the built-in `local` provider.
  Status start_tcp(const std::string& host, int port, const std::string& token,
                   bool allow_local_provider = false);
  int port() const;  // the TCP port bound, or -1
  // How long a whole request may take to arrive (default 10 s); before start. Tests shorten it.
  void set_read_deadline(std::chrono::milliseconds deadline);
  void stop();

  struct Impl;  // httplib's server, defined in socket_server.cpp only

 private:
  std::unique_ptr<Impl> impl_;
};

// sizeof(httplib::Client) as socket_server.cpp sees it. Debian's cpp-httplib is a compiled
// library whose -D flags (pkg-config) change its classes' layout, so this file must be compiled
// with them; a test compares this with a view compiled with them (CMakeLists.txt says why).
size_t httplib_client_size();

}  // namespace burst::daemon
