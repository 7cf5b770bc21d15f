// A minimal HTTP/1.1 client over AF_UNIX or TCP, written out rather than taken from cpp-httplib so
// the `burst` binary loads no HTTP server library (burst keeps its start-up lean); burstd's side
// uses httplib (socket_server.cpp). One request per connection ("Connection: close"); the response
// body is either Content-Length, chunked (a followed log) or read to EOF.
#include "client/daemon_client.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "client/daemon_config.h"
#include "registry.h"
#include "util/socket_calls.h"

namespace burst::daemon {
namespace {

class Conn {
 public:
  ~Conn() {
    if (fd_ >= 0) ::close(fd_);
  }
  Status open(const std::string& path) {
    if (path.rfind("http://", 0) == 0) return open_tcp(path);
    sockaddr_un addr{};
    if (path.size() >= sizeof addr.sun_path)
      return make_error(ErrorCode::kInvalid, "socket path too long: " + path);
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    fd_ = cloexec_socket(AF_UNIX, SOCK_STREAM);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
      return make_error(ErrorCode::kConnection,
                        "no burstd answers on " + path + " (" + std::strerror(errno) +
                            "); start it with `burstd`, or use `burst run`");
    return Status::Ok();
  }
  // http://HOST:PORT (no path, no TLS: burstd's TCP listener speaks plain HTTP).
  Status open_tcp(const std::string& url) {
    const std::string rest = url.substr(7);
    const size_t colon = rest.rfind(':');
    std::string host = colon == std::string::npos ? "" : rest.substr(0, colon);
    const std::string port = colon == std::string::npos ? "" : rest.substr(colon + 1);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
    if (host.empty() || port.empty() || port.find_first_not_of("0123456789") != std::string::npos)
      return make_error(ErrorCode::kInvalid, "burstd address " + url + " is not http://HOST:PORT");
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
      return make_error(ErrorCode::kConnection,
                        "cannot resolve burstd's host " + host + ": " + ::gai_strerror(rc));
    int err = 0;
    for (addrinfo* a = found; a; a = a->ai_next) {
      fd_ = cloexec_socket(a->ai_family, SOCK_STREAM);
      if (fd_ >= 0 && ::connect(fd_, a->ai_addr, a->ai_addrlen) == 0) break;
      err = errno;
      if (fd_ >= 0) ::close(fd_);
      fd_ = -1;
    }
    ::freeaddrinfo(found);
    if (fd_ < 0)
      return make_error(ErrorCode::kConnection,
                        "no burstd answers at " + url + " (" + std::strerror(err) + ")");
    return Status::Ok();
  }
  bool send_all(const std::string& s) {
    for (size_t off = 0; off < s.size();) {
      ssize_t n = send_no_sigpipe(fd_, s.data() + off, s.size() - off);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  // Fills buf_ with at least `want` bytes, or to EOF; false if nothing more can come.
  bool fill(size_t want) {
    char tmp[8192];
    while (buf_.size() < want) {
      ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buf_.append(tmp, static_cast<size_t>(n));
    }
    return true;
  }
  // One line without its CRLF; false at EOF.
  bool line(std::string* out) {
    size_t pos;
    while ((pos = buf_.find("\r\n")) == std::string::npos)
      if (!fill(buf_.size() + 1)) return false;
    *out = buf_.substr(0, pos);
    buf_.erase(0, pos + 2);
    return true;
  }
  std::string take(size_t n) {
    std::string s = buf_.substr(0, n);
    buf_.erase(0, n);
    return s;
  }
  std::string& buffer() { return buf_; }

 private:
  int fd_ = -1;
  std::string buf_;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Result<int> exchange(const std::string& path, const std::string& token, const std::string& method,
                     const std::string& target, const std::string& body,
                     const std::function<void(const std::string&)>& on_data) {
  Conn c;
  if (Status st = c.open(path); !st.ok()) return st.error();
  const bool tcp = path.rfind("http://", 0) == 0;
  std::string req = method + " " + target + " HTTP/1.1\r\nHost: burstd\r\nConnection: close\r\n";
  if (tcp && !token.empty()) req += "Authorization: Bearer " + token + "\r\n";
  if (method == "POST")
    req +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  req += "\r\n" + body;
  if (!c.send_all(req)) return make_error(ErrorCode::kConnection, "burstd closed the connection");
  std::string status_line, h;
  if (!c.line(&status_line) || status_line.size() < 12)
    return make_error(ErrorCode::kConnection, "burstd sent no response");
  int status = std::atoi(status_line.c_str() + 9);
  if (tcp && status == 401)
    return make_error(ErrorCode::kAuth,
                      "burstd at " + path + " refused the token" +
                          (token.empty() ? " (none sent: set BURSTD_TOKEN_FILE to the file that "
                                           "holds it)"
                                         : " from BURSTD_TOKEN_FILE"));
  long length = -1;
  bool chunked = false;
  while (c.line(&h) && !h.empty()) {
    std::string k = lower(h.substr(0, h.find(':')));
    std::string v = h.find(':') == std::string::npos ? "" : h.substr(h.find(':') + 1);
    if (k == "content-length") length = std::atol(v.c_str());
    if (k == "transfer-encoding" && lower(v).find("chunked") != std::string::npos) chunked = true;
  }
  if (chunked) {
    std::string size_line;
    while (c.line(&size_line)) {
      size_t n = std::strtoul(size_line.c_str(), nullptr, 16);
      if (n == 0) break;
      if (!c.fill(n + 2)) break;
      on_data(c.take(n));
      c.take(2);
    }
  } else if (length >= 0) {
    c.fill(static_cast<size_t>(length));
    on_data(c.take(static_cast<size_t>(length)));
  } else {
    while (c.fill(c.buffer().size() + 1)) {
    }
    on_data(c.take(c.buffer().size()));
  }
  return status;
}

}  // namespace

Result<ClientResponse> DaemonClient::get(const std::string& target) {
  ClientResponse r;
  auto st = exchange(path_, token_, "GET", target, "", [&](const std::string& d) { r.body += d; });
  if (!st) return st.error();
  r.status = *st;
  return r;
}

Result<ClientResponse> DaemonClient::post(const std::string& target, const std::string& body) {
  ClientResponse r;
  auto st =
      exchange(path_, token_, "POST", target, body, [&](const std::string& d) { r.body += d; });
  if (!st) return st.error();
  r.status = *st;
  return r;
}

Result<int> DaemonClient::stream(const std::string& target,
                                 const std::function<void(const std::string&)>& on_data) {
  return exchange(path_, token_, "GET", target, "", on_data);
}

std::string daemon_token_from_env() {
  const char* file = std::getenv("BURSTD_TOKEN_FILE");
  if (!file || !*file) return "";
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  std::string token((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  return token;
}

std::string resolve_socket(const std::string& flag) {
  if (!flag.empty()) return flag;
  auto env = environment_map();
  if (auto it = env.find("BURSTD_SOCKET"); it != env.end() && !it->second.empty())
    return it->second;
  auto config = load_daemon_config("", env);
  if (config) return config->socket;
  auto base = load_config(env, all_provider_traits());
  return base ? base->state_dir + "/burstd.sock" : "burstd.sock";
}

}  // namespace burst::daemon
