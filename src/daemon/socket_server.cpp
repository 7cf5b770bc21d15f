#include "daemon/socket_server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "client/dashboard_session.h"
#include "daemon/peer_count.h"

namespace burst::daemon {

namespace {

// Limits on what a client may make burstd read or wait for (docs/daemon.md, SECURITY.md).
constexpr size_t kMaxHeaderBytes = 64 * 1024;             // request line and headers together
constexpr size_t kMaxBodyBytes = 1024 * 1024;             // a request body: more than any spec
constexpr auto kReadDeadline = std::chrono::seconds(10);  // the whole request, from accept
constexpr int kWriteTimeoutMs = 10000;                    // per write without progress
constexpr size_t kTcpWorkers = 64;                        // connections served at once on TCP
constexpr size_t kUnixWorkers = 16;                       // and on the Unix socket
constexpr int kTcpPerPeer = 16;  // TCP connections one peer address may hold at once
// TCP: a connection that has sent neither an Authorization header nor the end of its headers
// this long after the connect is closed (a browser's dashboard request sends its headers at once).
constexpr auto kAuthWindow = std::chrono::seconds(2);

// httplib's Stream over one accepted socket, with the limits httplib 0.11 lacks: the request
// (headers and body) must arrive within kReadDeadline of the accept however slowly it trickles,
// the headers may not exceed kMaxHeaderBytes, and nothing past the headers and a kMaxBodyBytes
// body is read. A slow or silent client so holds a worker for at most kReadDeadline; with an
// `auth_window` (TCP), one whose headers neither ended nor named Authorization within it, for at
// most that long.
class BoundedStream : public httplib::Stream {
 public:
  BoundedStream(int fd, std::chrono::milliseconds read_deadline,
                std::chrono::milliseconds auth_window = std::chrono::milliseconds(0))
      : fd_(fd),
        deadline_(std::chrono::steady_clock::now() + read_deadline),
        auth_deadline_(auth_window.count() > 0 ? std::chrono::steady_clock::now() + auth_window
                                               : deadline_) {}

  bool is_readable() const override { return pos_ < len_ || wait(POLLIN, remaining_ms()); }
  bool is_writable() const override { return wait(POLLOUT, kWriteTimeoutMs); }

  ssize_t read(char* ptr, size_t size) override {
    if (pos_ == len_) {
      if (!fill()) return -1;
      if (len_ == 0) return 0;  // the client closed its side
    }
    size_t n = std::min(size, len_ - pos_);
    std::memcpy(ptr, buf_ + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address(::getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address(::getsockname, ip, port);
  }
  socket_t socket() const override { return fd_; }

 private:
  int remaining_ms() const {
    // Until the headers end or name Authorization, the earlier auth deadline counts.
    const auto end = header_end_ || saw_auth_ ? deadline_ : std::min(deadline_, auth_deadline_);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    return left.count() > 0 ? static_cast<int>(left.count()) : 0;
  }
  bool wait(short events, int timeout_ms) const {
    pollfd p{fd_, events, 0};
    int rc;
    do rc = ::poll(&p, 1, timeout_ms);
    while (rc < 0 && errno == EINTR);
    return rc > 0;
  }
  // Reads what the socket has (into buf_), within the deadline and the byte budget.
  bool fill() {
    pos_ = len_ = 0;
    const size_t budget =
        header_end_ ? kMaxHeaderBytes + kMaxBodyBytes - total_ : kMaxHeaderBytes - total_;
    const int left = remaining_ms();  // past the deadline nothing more is read, ready or not
    if (budget == 0 || left <= 0 || !wait(POLLIN, left)) return false;
    ssize_t n;
    do n = ::recv(fd_, buf_, std::min(sizeof buf_, budget), 0);
    while (n < 0 && errno == EINTR);
    if (n < 0) return false;
    len_ = static_cast<size_t>(n);
    static constexpr char kAuth[] = "authorization:";
    for (size_t i = 0; i < len_ && !header_end_; ++i) {  // the blank line ending the headers
      const unsigned char c = static_cast<unsigned char>(buf_[i]);
      tail_ = (tail_ << 8) | c;
      if (tail_ == 0x0d0a0d0au || (tail_ & 0xffffu) == 0x0a0au) header_end_ = total_ + i + 1;
      // A line that starts "Authorization:" (any case).
      if (c == '\n') {
        line_pos_ = 0;
        line_other_ = false;
      } else if (line_pos_ < sizeof kAuth - 1) {
        line_other_ = line_other_ || std::tolower(c) != kAuth[line_pos_];
        if (++line_pos_ == sizeof kAuth - 1 && !line_other_) saw_auth_ = true;
      }
    }
    total_ += len_;
    return true;
  }
  using NameFn = int (*)(int, sockaddr*, socklen_t*);
  void address(NameFn fn, std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    ip.clear();
    port = 0;
    if (fn(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) return;
    if (a.ss_family != AF_INET && a.ss_family != AF_INET6) return;  // AF_UNIX: no address
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (::getnameinfo(reinterpret_cast<sockaddr*>(&a), len, host, sizeof host, serv, sizeof serv,
                      NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
      ip = host;
      port = std::atoi(serv);
    }
  }

  int fd_;
  std::chrono::steady_clock::time_point deadline_, auth_deadline_;
  char buf_[4096];
  size_t pos_ = 0, len_ = 0, total_ = 0, header_end_ = 0;
  uint32_t tail_ = 0;
  size_t line_pos_ = 0;      // bytes of the current header line seen (up to kAuth's length)
  bool line_other_ = false;  // the current line is not Authorization
  bool saw_auth_ = false;
};

// httplib's server with one request per connection, read through BoundedStream. On TCP, a peer
// address holds at most `per_peer` connections at once: one more is answered 503 and closed
// before anything is read (it waited in the queue only behind others' work, not theirs), and each
// connection gets the Authorization window. (Overrides httplib's private virtual; it calls only
// protected members.)
class BoundedServer : public httplib::Server {
 public:
  // httplib listens with a backlog of 5 (compiled into Debian's library): a burst of connects
  // beyond it waits for SYN retransmits (1 s, 3 s, ...). Linux lets a second listen() raise it.
  void widen_backlog() { ::listen(svr_sock_, SOMAXCONN); }
  std::chrono::milliseconds read_deadline = kReadDeadline;
  std::chrono::milliseconds auth_window{0};  // TCP: kAuthWindow
  int per_peer = 0;                          // TCP: kTcpPerPeer; 0: no cap

 private:
  bool process_and_close_socket(socket_t sock) override {
    const std::string peer = per_peer > 0 ? peer_address(sock) : "";
    const bool admitted = peer.empty() || peers_.enter(peer, per_peer);
    bool ok = false;
    if (admitted) {
      BoundedStream strm(sock, read_deadline, auth_window);
      bool closed = false;
      ok = process_request(strm, /*close_connection=*/true, closed, nullptr);
    } else {
      static constexpr char kBusy[] =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      (void)::send(sock, kBusy, sizeof kBusy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    if (admitted && !peer.empty()) peers_.leave(peer);
    return ok;
  }

  PeerCount peers_;  // connections being served, by peer address
};

}  // namespace

struct SocketServer::Impl {
  Api& api;
  BoundedServer server;
  std::thread thread;
  std::string path;
  std::string host;                  // TCP: the address listened on (a name the login accepts)
  std::string token;                 // TCP only: the bearer token every request must send
  DashboardSessions sessions{64};    // TCP: the dashboard's browser sessions (/dashboard/login)
  bool allow_local_provider = true;  // TCP: api.tcp_allow_local_provider
  int port = -1;
  std::atomic<bool> stopping{false};
  explicit Impl(Api& a) : api(a) {}
};

namespace {

std::map<std::string, std::string> lower_headers(const httplib::Request& req) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : req.headers) {
    std::string name = k;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out[name] = v;
  }
  return out;
}

ApiRequest to_api(const httplib::Request& req, const SocketServer::Impl& m) {
  ApiRequest r;
  r.method = req.method;
  r.path = req.path;
  for (const auto& [k, v] : req.params) r.query[k] = v;
  r.body = req.body;
  r.headers = lower_headers(req);
  r.local_provider_allowed = m.token.empty() || m.allow_local_provider;
  if (m.token.empty()) {
    // The Unix socket: `burst dashboard`'s proxy names the session it forwards for.
    r.dashboard_base = r.headers["x-burst-dashboard-base"];
  } else if (auto s = m.sessions.match(req.path, req.get_header_value("Cookie"))) {
    // TCP: a dashboard session's request (admit() checked it), served below its prefix.
    r.path = s->path;
    r.dashboard_base = s->prefix;
  }
  return r;
}

void to_http(const ApiResponse& a, httplib::Response& res) {
  res.status = a.status;
  for (const auto& [k, v] : a.headers) res.set_header(k, v);
  res.set_content(a.body, a.content_type.c_str());
}

// Compares in time that depends only on the lengths, so a client cannot learn the token a byte at
// a time from how fast a wrong one is refused.
bool same_secret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    diff |= static_cast<unsigned char>((i < a.size() ? a[i] : 0) ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

// The dashboard in a browser over TCP (docs/dashboard.md): a browser cannot send the bearer
// header, so kLoginPath takes the token once in a form and opens a dashboard session
// (client/dashboard_session.h): a random path prefix and a random cookie scoped to it, never the
// token, and never accepted as one. A session may see the dashboard's pages and /metrics and
// post the (CSRF-protected) pod delete, with same-origin proof; never /v1.
constexpr const char* kLoginPath = "/dashboard/login";

bool authorized(const httplib::Request& req, const SocketServer::Impl& m) {
  if (m.token.empty()) return true;  // the Unix socket: its mode is the access check
  if (same_secret(req.get_header_value("Authorization"), "Bearer " + m.token)) return true;
  const auto s = m.sessions.match(req.path, req.get_header_value("Cookie"));
  if (!s || !dash_session_may(req.method, s->path)) return false;
  if (!dash_host_ok(req.get_header_value("Host"), m.host)) return false;
  return req.method != "POST" || dash_same_origin(lower_headers(req));
}

void login_page(httplib::Response& res, int status, const std::string& note) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_header("Referrer-Policy", "same-origin");
  res.set_header("Content-Security-Policy",
                 "default-src 'none'; form-action 'self'; frame-ancestors 'none'");
  res.set_content(
      "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta "
      "name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>burstd "
      "login</title></head><body><h1>burstd</h1><p>" +
          note +
          "</p><form method=\"post\" action=\"/dashboard/login\"><label>API token "
          "<input type=\"password\" name=\"token\" autocomplete=\"off\"></label> "
          "<button type=\"submit\">sign in</button></form></body></html>\n",
      "text/html; charset=utf-8");
}

// GET: the form. POST: the token, checked like the header; right, a new session. Both need a
// Host burstd answers to (421); the POST needs same-origin proof (403).
void login(SocketServer::Impl& m, const httplib::Request& req, httplib::Response& res) {
  if (m.token.empty()) {  // the Unix socket needs no login
    res.status = 303;
    res.set_header("Location", "/dashboard");
    return;
  }
  if (!dash_host_ok(req.get_header_value("Host"), m.host))
    return login_page(res, 421, "Open the dashboard by burstd's address, not by another name.");
  if (req.method != "POST")
    return login_page(res, 200,
                      "The dashboard over TCP needs burstd's API token (its token_file).");
  if (!dash_same_origin(lower_headers(req)))
    return login_page(res, 403, "Sign in from this page, not from another site.");
  if (!same_secret(req.get_param_value("token"), m.token))
    return login_page(res, 401, "Wrong token.");
  const std::optional<DashSession> s = m.sessions.open();
  if (!s) return login_page(res, 500, "burstd cannot read /dev/urandom.");
  res.status = 303;
  res.set_header("Location", s->prefix + "/dashboard");
  res.set_header("Referrer-Policy", "same-origin");
  res.set_header("Set-Cookie", dash_set_cookie(*s));
}

void refuse(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content("{\"error\": \"" + message + "\"}\n", "application/json");
}

// Runs on the headers alone, before any body byte is read (httplib's pre-routing handler, and
// its Expect: 100-continue handler so such a client is refused before it sends the body):
// the token, then the body's announced size.
bool admit(const SocketServer::Impl& m, const httplib::Request& req, httplib::Response& res) {
  if (req.path != kLoginPath && !authorized(req, m)) {
    refuse(res, 401, "unauthorized: send Authorization: Bearer <token>");
    res.set_header("WWW-Authenticate", "Bearer");
    return false;
  }
  if (req.has_header("Transfer-Encoding")) {  // httplib 0.11 bounds no chunked body
    refuse(res, 411, "send the body with a Content-Length");
    return false;
  }
  if (req.has_header("Content-Length")) {
    const std::string v = req.get_header_value("Content-Length");
    char* end = nullptr;
    errno = 0;
    unsigned long long n = std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno != 0 || v[0] == '-') {
      refuse(res, 400, "bad Content-Length");
      return false;
    }
    if (n > kMaxBodyBytes) {
      refuse(res, 413, "request body too large (" + v + " bytes; the limit is 1 MiB)");
      return false;
    }
  }
  return true;
}

void register_routes(SocketServer::Impl& m);

// Whether something answers on the socket (another burstd).
bool answering(const std::string& path) {
  httplib::Client c(path);
  c.set_address_family(AF_UNIX);
  c.set_connection_timeout(1);
  return static_cast<bool>(c.Get("/v1/health"));
}

void configure(SocketServer::Impl& m, size_t workers) {
  m.server.new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
  m.server.set_payload_max_length(kMaxBodyBytes);
  m.server.set_read_timeout(std::chrono::duration_cast<std::chrono::seconds>(kReadDeadline));
  m.server.set_write_timeout(kWriteTimeoutMs / 1000);
  m.server.set_keep_alive_max_count(1);
  m.server.set_pre_routing_handler([&m](const httplib::Request& req, httplib::Response& res) {
    return admit(m, req, res) ? httplib::Server::HandlerResponse::Unhandled
                              : httplib::Server::HandlerResponse::Handled;
  });
  m.server.set_expect_100_continue_handler(
      [&m](const httplib::Request& req, httplib::Response& res) {
        return admit(m, req, res) ? 100 : res.status;
      });
  register_routes(m);
}

}  // namespace

SocketServer::SocketServer(Api& api) : impl_(std::make_unique<Impl>(api)) {}

SocketServer::~SocketServer() { stop(); }

Status SocketServer::start(const std::string& path) {
  Impl& m = *impl_;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (std::filesystem::exists(path, ec)) {
    if (answering(path))
      return make_error(ErrorCode::kInvalid, "another burstd is serving " + path);
    ::unlink(path.c_str());  // stale: left by a burstd that was killed
  }
  configure(m, kUnixWorkers);
  m.server.set_address_family(AF_UNIX);
  // Owner-only from the moment it exists: the umask covers the bind, chmod makes sure.
  mode_t old = ::umask(077);
  bool bound = m.server.bind_to_port(path.c_str(), 80);
  ::umask(old);
  if (!bound)
    return make_error(ErrorCode::kInternal,
                      "cannot listen on " + path + ": " + std::strerror(errno));
  m.server.widen_backlog();
  ::chmod(path.c_str(), 0600);
  m.path = path;
  m.thread = std::thread([&m] { m.server.listen_after_bind(); });
  return Status::Ok();
}

Status SocketServer::start_tcp(const std::string& host, int port, const std::string& token,
                               bool allow_local_provider) {
  Impl& m = *impl_;
  if (token.empty()) return make_error(ErrorCode::kInvalid, "a TCP listener needs a token");
  m.token = token;
  m.host = host;
  m.allow_local_provider = allow_local_provider;
  m.server.auth_window = kAuthWindow;
  m.server.per_peer = kTcpPerPeer;
  configure(m, kTcpWorkers);
  const int bound = port == 0 ? m.server.bind_to_any_port(host.c_str())
                              : (m.server.bind_to_port(host.c_str(), port) ? port : -1);
  if (bound < 0)
    return make_error(ErrorCode::kInternal, "cannot listen on " + host + ":" +
                                                std::to_string(port) + ": " + std::strerror(errno));
  m.port = bound;
  m.server.widen_backlog();
  m.thread = std::thread([&m] { m.server.listen_after_bind(); });
  return Status::Ok();
}

int SocketServer::port() const { return impl_->port; }

void SocketServer::set_read_deadline(std::chrono::milliseconds deadline) {
  impl_->server.read_deadline = deadline;
}

size_t httplib_client_size() { return sizeof(httplib::Client); }

namespace {

void register_routes(SocketServer::Impl& m) {
  auto handler = [&m](const httplib::Request& req, httplib::Response& res) {
    if (!admit(m, req, res)) return;  // checked before the body too; again, to be sure
    if (req.path == kLoginPath) return login(m, req, res);
    // Follow a log: stream chunks until the job ends and nothing new is left.
    if (req.method == "GET" && req.has_param("follow") && req.path.size() > 4 &&
        req.path.compare(req.path.size() - 4, 4, "/log") == 0) {
      std::string id = req.path.substr(0, req.path.size() - 4);
      id = id.substr(id.rfind('/') + 1);
      int64_t offset = std::atoll(req.get_param_value("offset").c_str());
      if (!m.api.read_log(id, offset).found) {
        to_http(m.api.handle(to_api(req, m)), res);
        return;
      }
      res.set_chunked_content_provider(
          "text/plain", [&m, id, offset](size_t, httplib::DataSink& sink) mutable {
            while (!m.stopping) {
              LogChunk c = m.api.read_log(id, offset);
              offset = c.next_offset;
              if (!c.data.empty()) return sink.write(c.data.data(), c.data.size());
              if (c.finished) break;
              // A follower waits for the runner to write; 200 ms keeps `burst logs -f` live
              // without spinning (only while someone follows).
              std::this_thread::sleep_for(std::chrono::milliseconds(200));
            }
            sink.done();
            return true;
          });
      return;
    }
    to_http(m.api.handle(to_api(req, m)), res);
  };
  m.server.Get(R"(/.*)", handler);
  m.server.Post(R"(/.*)", handler);
}

}  // namespace

void SocketServer::stop() {
  Impl& m = *impl_;
  m.stopping = true;
  if (m.thread.joinable()) {
    // httplib ignores stop() until its loop runs: wait for that (it starts at once).
    for (int i = 0; i < 400 && !m.server.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    m.server.stop();
    m.thread.join();
  }
  if (!m.path.empty()) ::unlink(m.path.c_str());
  m.path.clear();
}

}  // namespace burst::daemon
