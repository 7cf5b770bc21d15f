// `burst dashboard`: a port on 127.0.0.1 that forwards the browser's requests to burstd's Unix
// socket, so the dashboard needs no TCP listener on burstd. Raw sockets, no HTTP server library
// (burst loads none).
//
// Auth: start() makes a one-time token; url() carries it. The first request that brings it opens
// a session (client/dashboard_session.h: a secret path prefix and a cookie scoped to it) and is
// redirected to <prefix>/dashboard; the token is spent. Every other request needs a Host header
// naming this port on 127.0.0.1 or localhost (421 otherwise: a DNS-rebinding page cannot reach
// it), its path under the session's prefix with the session's cookie (401 otherwise), and a path
// of the dashboard's own (dash_session_may: pages, assets, the log stream, /metrics, the
// pod-delete form; 404 otherwise, /v1 included); a POST also needs same-origin proof
// (dash_same_origin; 403 otherwise), and burstd checks the form's CSRF token. Each connection
// carries one request (head at most 64 KiB, body at most 1 MiB, within 10 s), forwarded below the
// prefix with the cookie removed, "X-Burst-Dashboard-Base: <prefix>" (so burstd's links stay in
// the session) and "Connection: close"; the answer streams back as burstd sends it.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "burst/result.h"
#include "client/dashboard_session.h"

namespace burst::daemon {

class DashboardProxy {
 public:
  explicit DashboardProxy(std::string socket_path) : socket_(std::move(socket_path)) {}
  ~DashboardProxy();

  // Binds 127.0.0.1:port (0: a free one) and serves on a thread.
  Status start(int port = 0);
  void stop();
  int port() const { return port_; }
  std::string url() const;  // http://127.0.0.1:PORT/?token=ONE-TIME

  struct Conn;  // one client connection (dashboard_proxy.cpp)

 private:
  void accept_loop();
  void serve(int fd);

  std::string socket_;
  int listen_fd_ = -1;
  int port_ = -1;
  std::string one_time_;           // "" once spent
  DashboardSessions sessions_{1};  // the one the link opens
  mutable std::mutex mu_;          // one_time_
  std::atomic<bool> stopping_{false};
  std::atomic<int> active_{0};
  std::thread thread_;
};

}  // namespace burst::daemon
