// `burst dashboard`: a port on 127.0.0.1 that forwards the browser's requests to burstd's Unix
// socket, so the dashboard needs no TCP listener on burstd. Raw sockets, no HTTP server library
// (burst loads none).
//
// Auth: start() makes a one-time token; url() carries it. The first request that brings it is
// answered with a session cookie (HttpOnly, SameSite=Strict) and a redirect to /dashboard, and the
// token is spent; every other request needs the cookie (401 otherwise) and a Host header naming
// this port on 127.0.0.1 or localhost (so a DNS-rebinding page cannot reach it). Each connection
// carries one request (head at most 64 KiB, body at most 1 MiB, within 10 s), forwarded with
// the session cookie removed and "Connection: close"; the answer streams back as burstd sends it.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "burst/result.h"

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
  std::string one_time_;  // "" once spent
  std::string session_;
  mutable std::mutex mu_;  // one_time_
  std::atomic<bool> stopping_{false};
  std::atomic<int> active_{0};
  std::thread thread_;
};

}  // namespace burst::daemon
