// The `burst` side of the local API: HTTP/1.1 over burstd's Unix socket (cpp-httplib).
#pragma once

#include <functional>
#include <string>

#include "burst/result.h"

namespace burst::daemon {

struct ClientResponse {
  int status = 0;
  std::string body;
};

class DaemonClient {
 public:
  explicit DaemonClient(std::string socket_path) : path_(std::move(socket_path)) {}

  // kConnection, naming the socket, when no burstd answers there.
  Result<ClientResponse> get(const std::string& target);
  Result<ClientResponse> post(const std::string& target, const std::string& json_body);
  // Streams a GET's body to `on_data` as it arrives (a followed log); returns the status.
  Result<int> stream(const std::string& target,
                     const std::function<void(const std::string&)>& on_data);

 private:
  std::string path_;
};

// Where burstd listens: `flag` if given, else $BURSTD_SOCKET, else burstd.yaml's socket
// (default <state dir>/burstd.sock).
std::string resolve_socket(const std::string& flag);

}  // namespace burst::daemon
