#include "client/dashboard_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>

namespace burst::daemon {
namespace {

constexpr size_t kProxyMaxHead = 64 * 1024;
constexpr size_t kProxyMaxBody = 1024 * 1024;
constexpr int kProxyDeadlineMs = 10000;
constexpr int kProxyMaxConnections = 32;

bool proxy_wait(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  int rc;
  do rc = ::poll(&p, 1, timeout_ms);
  while (rc < 0 && errno == EINTR);
  return rc > 0;
}

bool proxy_send_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    if (!proxy_wait(fd, POLLOUT, kProxyDeadlineMs)) return false;
    ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void proxy_answer(int fd, const std::string& status, const std::string& extra_headers,
                  const std::string& body) {
  std::string r = "HTTP/1.1 " + status + "\r\nContent-Type: text/plain; charset=utf-8\r\n" +
                  "Content-Length: " + std::to_string(body.size()) +
                  "\r\nCache-Control: no-store\r\nConnection: close\r\n" + extra_headers + "\r\n" +
                  body;
  proxy_send_all(fd, r.data(), r.size());
}

std::string proxy_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

DashboardProxy::~DashboardProxy() { stop(); }

Status DashboardProxy::start(int port) {
  one_time_ = dash_random_hex(24);
  if (one_time_.empty())
    return make_error(ErrorCode::kInternal, "dashboard: cannot read /dev/urandom");
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0)
    return make_error(ErrorCode::kInternal, std::string("dashboard: socket: ") + strerror(errno));
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(listen_fd_, SOMAXCONN) != 0) {
    std::string why = strerror(errno);
    ::close(listen_fd_);
    listen_fd_ = -1;
    return make_error(ErrorCode::kInternal,
                      "dashboard: cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + why);
  }
  socklen_t len = sizeof a;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  thread_ = std::thread([this] { accept_loop(); });
  return Status::Ok();
}

std::string DashboardProxy::url() const {
  std::lock_guard<std::mutex> lock(mu_);
  return "http://127.0.0.1:" + std::to_string(port_) + "/?token=" + one_time_;
}

void DashboardProxy::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
  // Connections end within their deadlines; wait for them (they use this object).
  for (int i = 0; i < 2 * kProxyDeadlineMs / 50 && active_ > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

void DashboardProxy::accept_loop() {
  while (!stopping_) {
    if (!proxy_wait(listen_fd_, POLLIN, 250)) continue;  // wakes 4 times a second to see stop()
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    if (active_ >= kProxyMaxConnections) {
      proxy_answer(fd, "503 Service Unavailable", "", "too many connections\n");
      ::close(fd);
      continue;
    }
    ++active_;
    std::thread([this, fd] {
      serve(fd);
      ::shutdown(fd, SHUT_RDWR);
      ::close(fd);
      --active_;
    }).detach();
  }
}

void DashboardProxy::serve(int fd) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kProxyDeadlineMs);
  auto left_ms = [&] {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - std::chrono::steady_clock::now())
                  .count();
    return ms > 0 ? static_cast<int>(ms) : 0;
  };
  std::string buf;
  size_t head_end = std::string::npos;
  char chunk[8192];
  while (head_end == std::string::npos) {
    if (buf.size() > kProxyMaxHead)
      return proxy_answer(fd, "431 Request Header Fields Too Large", "", "");
    if (!proxy_wait(fd, POLLIN, left_ms())) return;
    ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return;
    buf.append(chunk, static_cast<size_t>(n));
    head_end = buf.find("\r\n\r\n");
  }
  std::string head = buf.substr(0, head_end);
  std::string body = buf.substr(head_end + 4);
  std::istringstream lines(head);
  std::string request_line;
  std::getline(lines, request_line);
  if (!request_line.empty() && request_line.back() == '\r') request_line.pop_back();
  std::istringstream rl(request_line);
  std::string method, target, version;
  rl >> method >> target >> version;
  if (method.empty() || target.empty() || target[0] != '/' || version.rfind("HTTP/1.", 0) != 0)
    return proxy_answer(fd, "400 Bad Request", "", "bad request line\n");
  std::string cookie, forwarded;
  std::map<std::string, std::string> headers;  // lower-case names: Host, Origin, Sec-Fetch-Site
  size_t content_length = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t colon = line.find(':');
    if (colon == std::string::npos) return proxy_answer(fd, "400 Bad Request", "", "bad header\n");
    const std::string name = proxy_lower(line.substr(0, colon));
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    headers[name] = value;
    if (name == "x-burst-dashboard-base") continue;  // the proxy says which session, not the page
    if (name == "cookie") {
      cookie = value;
      continue;  // burstd never sees the session
    }
    if (name == "transfer-encoding")
      return proxy_answer(fd, "411 Length Required", "", "send a Content-Length\n");
    if (name == "content-length") {
      char* end = nullptr;
      unsigned long long n = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end || n > kProxyMaxBody)
        return proxy_answer(fd, "413 Payload Too Large", "", "body too large\n");
      content_length = static_cast<size_t>(n);
    }
    if (name == "connection" || name == "keep-alive" || name == "proxy-connection") continue;
    forwarded += line + "\r\n";
  }
  const std::string port = std::to_string(port_);
  const std::string host = headers["host"];
  if (host != "127.0.0.1:" + port && host != "localhost:" + port)
    return proxy_answer(fd, "421 Misdirected Request", "", "wrong Host\n");
  const size_t q = target.find('?');
  const std::string path = target.substr(0, q);
  const std::string query = q == std::string::npos ? "" : target.substr(q);
  // Browsers ask for it at the root of every origin: nothing (no session needed, nothing said).
  if (method == "GET" && path == "/favicon.ico") return proxy_answer(fd, "204 No Content", "", "");

  // The one-time token: spent on first use, exchanged for a session (client/dashboard_session.h).
  if (path == "/" && query.rfind("?token=", 0) == 0) {
    std::string token = query.substr(7);
    token = token.substr(0, token.find('&'));
    bool fresh = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      fresh = dash_secret_equal(token, one_time_);
      if (fresh) one_time_.clear();
    }
    if (!fresh)
      return proxy_answer(fd, "401 Unauthorized", "",
                          "this link was used already: run `burst dashboard` again\n");
    std::optional<DashSession> s = sessions_.open();
    if (!s) return proxy_answer(fd, "500 Internal Server Error", "", "no randomness\n");
    return proxy_answer(fd, "303 See Other",
                        "Location: " + s->prefix + "/dashboard\r\nSet-Cookie: " +
                            dash_set_cookie(*s) + "\r\nReferrer-Policy: same-origin\r\n",
                        "");
  }
  const std::optional<DashMatch> session = sessions_.match(path, cookie);
  if (!session)
    return proxy_answer(fd, "401 Unauthorized", "",
                        "open the link `burst dashboard` printed (it works once)\n");
  // The dashboard's own paths only: never /v1, whatever the session.
  if (!dash_session_may(method, session->path))
    return proxy_answer(fd, "404 Not Found", "", "not a dashboard page\n");
  if (method == "POST" && !dash_same_origin(headers))
    return proxy_answer(fd, "403 Forbidden", "", "a page of another origin may not do this\n");
  if (session->path == "/")
    return proxy_answer(fd, "303 See Other", "Location: " + session->prefix + "/dashboard\r\n", "");

  while (body.size() < content_length) {
    if (!proxy_wait(fd, POLLIN, left_ms())) return;
    ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return;
    body.append(chunk, static_cast<size_t>(n));
  }
  body.resize(content_length);

  int up = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un ua{};
  ua.sun_family = AF_UNIX;
  if (up < 0 || socket_.size() >= sizeof ua.sun_path) {
    if (up >= 0) ::close(up);
    return proxy_answer(fd, "502 Bad Gateway", "", "burstd's socket path is unusable\n");
  }
  std::memcpy(ua.sun_path, socket_.c_str(), socket_.size() + 1);
  if (::connect(up, reinterpret_cast<sockaddr*>(&ua), sizeof ua) != 0) {
    ::close(up);
    return proxy_answer(fd, "502 Bad Gateway", "", "burstd does not answer on " + socket_ + "\n");
  }
  std::string request = method + " " + session->path + query + " HTTP/1.1\r\n" + forwarded +
                        "X-Burst-Dashboard-Base: " + session->prefix +
                        "\r\nConnection: close\r\n\r\n" + body;
  if (proxy_send_all(up, request.data(), request.size())) {
    // burstd's answer as it comes (a long poll waits up to 8 s for its first byte).
    while (!stopping_ && proxy_wait(up, POLLIN, 30000)) {
      ssize_t n = ::recv(up, chunk, sizeof chunk, 0);
      if (n <= 0 || !proxy_send_all(fd, chunk, static_cast<size_t>(n))) break;
    }
  }
  ::close(up);
}

}  // namespace burst::daemon
