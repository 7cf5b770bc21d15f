#include "dashboard/burstd_process.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace burst::testing {

BurstdProcess::BurstdProcess(const BurstHome& home, const std::string& burstd_yaml,
                             const std::map<std::string, std::string>& extra_env)
    : home_(home) {
  std::filesystem::create_directories(home.root() + "/config");
  std::ofstream(home.root() + "/config/burstd.yaml") << burstd_yaml;
  log_ = home.root() + "/burstd.err";
  auto env = home.env();
  for (const auto& [k, v] : extra_env) env[k] = v;
  pid_ = spawn_logged({BURSTD_BINARY}, env, log_, log_);
}

BurstdProcess::~BurstdProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::string BurstdProcess::socket() const { return home_.state() + "/burstd.sock"; }
std::string BurstdProcess::log() const { return read_file(log_); }

bool BurstdProcess::ready() {
  return wait_until(10, [&] { return unix_http(socket(), "GET", "/v1/health").status == 200; });
}

int BurstdProcess::stop_term(int timeout_s) {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int code = -1;
  wait_until(timeout_s, [&] {
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) != pid_) return false;
    code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    pid_ = -1;
    return true;
  });
  return code;
}

HttpReply unix_http(const std::string& socket, const std::string& method, const std::string& path,
                    const std::string& body, const std::string& content_type) {
  httplib::Client c(socket);
  c.set_address_family(AF_UNIX);
  c.set_connection_timeout(2);
  c.set_read_timeout(20);
  httplib::Result r = method == "POST"
                          ? c.Post(path.c_str(), body,
                                   content_type.empty() ? "application/json" : content_type.c_str())
                          : c.Get(path.c_str());
  HttpReply out;
  if (!r) return out;
  out.status = r->status;
  out.body = r->body;
  for (const auto& [k, v] : r->headers) out.headers[k] = v;
  return out;
}

std::string tcp_request(int port, const std::string& raw) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    (void)::send(fd, raw.data(), raw.size(), MSG_NOSIGNAL);
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
      out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

bool wait_until(int timeout_s, const std::function<bool()>& pred) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

}  // namespace burst::testing
