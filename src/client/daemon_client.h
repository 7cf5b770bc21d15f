// The `burst` side of burstd's API: HTTP/1.1 over its Unix socket, or over its TCP listener when
// the address is `http://HOST:PORT` (a team's daemon on another machine; docs/daemon.md "TCP").
// Over TCP every request carries `Authorization: Bearer <token>`, the token read from the file
// $BURSTD_TOKEN_FILE names (never from the command line: `ps` shows that); no error names it.
#pragma once

#include <functional>
#include <string>

#include "burst/result.h"

namespace burst::daemon {

struct ClientResponse {
  int status = 0;
  std::string body;
};

// The token in the file $BURSTD_TOKEN_FILE names, trailing whitespace trimmed; "" when unset or
// unreadable (burstd then answers 401, and the error says to set it).
std::string daemon_token_from_env();

class DaemonClient {
 public:
  // `where`: a socket path, or http://HOST:PORT. `token`: sent only over TCP.
  explicit DaemonClient(std::string where, std::string token = daemon_token_from_env())
      : path_(std::move(where)), token_(std::move(token)) {}

  // kConnection, naming the socket, when no burstd answers there.
  Result<ClientResponse> get(const std::string& target);
  Result<ClientResponse> post(const std::string& target, const std::string& json_body);
  // Streams a GET's body to `on_data` as it arrives (a followed log); returns the status.
  Result<int> stream(const std::string& target,
                     const std::function<void(const std::string&)>& on_data);

 private:
  std::string path_;
  std::string token_;
};

// Where burstd listens: `flag` if given, else $BURSTD_SOCKET (either may be http://HOST:PORT),
// else burstd.yaml's socket (default <state dir>/burstd.sock).
std::string resolve_socket(const std::string& flag);

}  // namespace burst::daemon
