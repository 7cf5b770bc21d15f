// A real burstd in a BurstHome (tests/e2e/burst_harness.h) for the dashboard and /metrics tests,
// and plain HTTP to its Unix socket.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>

#include "e2e/burst_harness.h"

namespace burst::testing {

class BurstdProcess {
 public:
  BurstdProcess(const BurstHome& home, const std::string& burstd_yaml,
                const std::map<std::string, std::string>& extra_env = {});
  ~BurstdProcess();  // SIGKILL if still running
  BurstdProcess(const BurstdProcess&) = delete;
  BurstdProcess& operator=(const BurstdProcess&) = delete;

  bool ready();                       // waits (10 s at most) until the socket answers /v1/health
  int stop_term(int timeout_s = 30);  // SIGTERM, waits; the exit code, or -1
  pid_t pid() const { return pid_; }
  std::string socket() const;
  std::string log() const;

 private:
  const BurstHome& home_;
  pid_t pid_ = -1;
  std::string log_;
};

struct HttpReply {
  int status = -1;  // -1: no answer
  std::string body;
  std::map<std::string, std::string> headers;
};

// One request to burstd's Unix socket. `form` sends an url-encoded POST body.
HttpReply unix_http(const std::string& socket, const std::string& method, const std::string& path,
                    const std::string& body = "", const std::string& content_type = "");

// Sends `raw` to 127.0.0.1:port and returns everything read until the server closes (5 s).
std::string tcp_request(int port, const std::string& raw);

// Polls `pred` every 50 ms until it is true or `timeout_s` pass.
bool wait_until(int timeout_s, const std::function<bool()>& pred);

}  // namespace burst::testing
