#include "daemon/socket_server.h"

#include <httplib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace burst::daemon {

struct SocketServer::Impl {
  Api& api;
  httplib::Server server;
  std::thread thread;
  std::string path;
  std::string token;  // TCP only: the bearer token every request must send
  int port = -1;
  std::atomic<bool> stopping{false};
  explicit Impl(Api& a) : api(a) {}
};

namespace {

ApiRequest to_api(const httplib::Request& req) {
  ApiRequest r;
  r.method = req.method;
  r.path = req.path;
  for (const auto& [k, v] : req.params) r.query[k] = v;
  r.body = req.body;
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

bool authorized(const httplib::Request& req, const std::string& token) {
  if (token.empty()) return true;  // the Unix socket: its mode is the access check
  return same_secret(req.get_header_value("Authorization"), "Bearer " + token);
}

void register_routes(SocketServer::Impl& m);

// Whether something answers on the socket (another burstd).
bool answering(const std::string& path) {
  httplib::Client c(path);
  c.set_address_family(AF_UNIX);
  c.set_connection_timeout(1);
  return static_cast<bool>(c.Get("/v1/health"));
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
  register_routes(m);
  m.server.set_address_family(AF_UNIX);
  // Owner-only from the moment it exists: the umask covers the bind, chmod makes sure.
  mode_t old = ::umask(077);
  bool bound = m.server.bind_to_port(path.c_str(), 80);
  ::umask(old);
  if (!bound)
    return make_error(ErrorCode::kInternal,
                      "cannot listen on " + path + ": " + std::strerror(errno));
  ::chmod(path.c_str(), 0600);
  m.path = path;
  m.thread = std::thread([&m] { m.server.listen_after_bind(); });
  return Status::Ok();
}

Status SocketServer::start_tcp(const std::string& host, int port, const std::string& token) {
  Impl& m = *impl_;
  if (token.empty()) return make_error(ErrorCode::kInvalid, "a TCP listener needs a token");
  m.token = token;
  register_routes(m);
  const int bound = port == 0 ? m.server.bind_to_any_port(host.c_str())
                              : (m.server.bind_to_port(host.c_str(), port) ? port : -1);
  if (bound < 0)
    return make_error(ErrorCode::kInternal, "cannot listen on " + host + ":" +
                                                std::to_string(port) + ": " + std::strerror(errno));
  m.port = bound;
  m.thread = std::thread([&m] { m.server.listen_after_bind(); });
  return Status::Ok();
}

int SocketServer::port() const { return impl_->port; }

size_t httplib_client_size() { return sizeof(httplib::Client); }

namespace {

void register_routes(SocketServer::Impl& m) {
  auto handler = [&m](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, m.token)) {
      res.status = 401;
      res.set_header("WWW-Authenticate", "Bearer");
      res.set_content("{\"error\": \"unauthorized: send Authorization: Bearer <token>\"}",
                      "application/json");
      return;
    }
    // Follow a log: stream chunks until the job ends and nothing new is left.
    if (req.method == "GET" && req.has_param("follow") && req.path.size() > 4 &&
        req.path.compare(req.path.size() - 4, 4, "/log") == 0) {
      std::string id = req.path.substr(0, req.path.size() - 4);
      id = id.substr(id.rfind('/') + 1);
      int64_t offset = std::atoll(req.get_param_value("offset").c_str());
      if (!m.api.read_log(id, offset).found) {
        to_http(m.api.handle(to_api(req)), res);
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
    to_http(m.api.handle(to_api(req)), res);
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
