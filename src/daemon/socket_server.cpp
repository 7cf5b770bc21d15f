#include "daemon/socket_server.h"

#include <httplib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace burst::daemon {

struct SocketServer::Impl {
  Api& api;
  httplib::Server server;
  std::thread thread;
  std::string path;
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
  auto handler = [&m](const httplib::Request& req, httplib::Response& res) {
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
