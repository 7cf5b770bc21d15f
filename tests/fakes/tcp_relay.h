// A TCP relay on 127.0.0.1:0 in front of a real server, for partition tests without root: it
// forwards bytes both ways until told to go silent (a partition: connections stay open, nothing
// arrives, no RST, as when a link or a NAT in between dies), or to cut (every connection closed).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace burst::testing {

class TcpRelay {
 public:
  explicit TcpRelay(int target_port) : target_port_(target_port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::listen(listen_fd_, 16) == 0) {
      socklen_t len = sizeof a;
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
      port_ = ntohs(a.sin_port);
    }
    ::pipe(wake_);
    thread_ = std::thread([this] { loop(); });
  }
  ~TcpRelay() {
    stop_ = true;
    wake();
    thread_.join();
    for (auto& [c, s] : pairs_) {
      ::close(c);
      ::close(s);
    }
    ::close(listen_fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }

  int port() const { return port_; }
  // From now on nothing is forwarded either way; connections stay open.
  void go_silent() {
    silent_ = true;
    wake();
  }
  // Closes every connection (a peer that resets).
  void cut() {
    cut_ = true;
    wake();
  }
  int connections() const { return accepted_; }

 private:
  void wake() { (void)!::write(wake_[1], "x", 1); }

  void loop() {
    std::vector<char> buf(64 * 1024);
    while (!stop_) {
      if (cut_) {
        for (auto& [c, s] : pairs_) {
          ::close(c);
          ::close(s);
        }
        pairs_.clear();
        cut_ = false;
      }
      std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      if (!silent_)
        for (auto& [c, s] : pairs_) {
          fds.push_back({c, POLLIN, 0});
          fds.push_back({s, POLLIN, 0});
        }
      if (::poll(fds.data(), fds.size(), 1000) <= 0) continue;
      if (fds[1].revents) {
        char d[64];
        (void)!::read(wake_[0], d, sizeof d);
      }
      std::vector<bool> dead(pairs_.size(), false);
      for (size_t i = 2; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)) || dead[(i - 2) / 2]) continue;
        const auto& p = pairs_[(i - 2) / 2];
        int from = fds[i].fd, to = from == p.first ? p.second : p.first;
        ssize_t n = ::read(from, buf.data(), buf.size());
        if (n <= 0) {  // one side closed: close both (ssh never half-closes its transport)
          dead[(i - 2) / 2] = true;
          continue;
        }
        for (ssize_t off = 0; off < n;) {
          ssize_t w = ::write(to, buf.data() + off, static_cast<size_t>(n - off));
          if (w <= 0) break;
          off += w;
        }
      }
      for (size_t k = dead.size(); k-- > 0;)
        if (dead[k]) {
          ::close(pairs_[k].first);
          ::close(pairs_[k].second);
          pairs_.erase(pairs_.begin() + static_cast<long>(k));
        }
      if (fds[0].revents & POLLIN) accept_one();
    }
  }

  void accept_one() {
    int c = ::accept(listen_fd_, nullptr, nullptr);
    if (c < 0) return;
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(target_port_));
    if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(c);
      ::close(s);
      return;
    }
    pairs_.emplace_back(c, s);
    ++accepted_;
  }

  int target_port_;
  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stop_{false}, silent_{false}, cut_{false};
  std::atomic<int> accepted_{0};
  std::vector<std::pair<int, int>> pairs_;  // (client, server)
  std::thread thread_;
};

}  // namespace burst::testing
