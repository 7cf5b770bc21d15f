// link_delay_relay: a TCP relay that adds a fixed one-way delay in each direction, for
// bench/sync_bench.py --link shaped on kernels without sch_netem (docs: bench/README.md).
//
//   link_delay_relay LISTEN_ADDR LISTEN_PORT TARGET_ADDR TARGET_PORT ONE_WAY_MS QUEUE_BYTES
//
// Accepts connections on LISTEN_ADDR:LISTEN_PORT (port 0: any; the port is printed as one line
// "port N" on stdout once listening) and connects each to TARGET_ADDR:TARGET_PORT. Every chunk
// read from one side is held until its release time (arrival + ONE_WAY_MS) and then written to
// the other side, in order. Each direction holds at most QUEUE_BYTES; when full, the relay stops
// reading that side, so TCP's flow control pushes back on the sender (the bound must exceed the
// bandwidth-delay product, or it, not the link, limits the rate). The data to a new connection's
// target is also held for one round trip (2 x ONE_WAY_MS), the time a real TCP handshake takes.
// The rate is not shaped here: tbf on the veth pair behind the relay does that.
//
// One thread, poll(). It costs CPU on the same cores as the tools it measures, so compare the
// ratio burst/reference over the same relay, not absolute times. Runs until SIGTERM/SIGINT.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using Ms = std::chrono::milliseconds;

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

struct Chunk {
  Clock::time_point release;
  std::string data;
  size_t off = 0;
};

// One direction of one connection: bytes read from `from`, held, then written to `to`.
struct Pipe {
  int from = -1, to = -1;
  std::deque<Chunk> queue;
  size_t queued = 0;
  bool eof = false;                // `from` said EOF (or failed)
  bool shut = false;               // `to` got shutdown(SHUT_WR) after the queue drained
  bool failed = false;             // a write to `to` failed: drop everything
  Clock::time_point not_before{};  // no write before this (the modelled handshake)
};

struct Conn {
  int a = -1, b = -1;  // a: the accepted client side; b: the target side
  Pipe up, down;       // up: a -> b; down: b -> a
  bool done() const { return (up.shut || up.failed) && (down.shut || down.failed); }
};

int set_nonblock(int fd) { return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

bool parse_addr(const char* host, int port, sockaddr_in* sa) {
  std::memset(sa, 0, sizeof(*sa));
  sa->sin_family = AF_INET;
  sa->sin_port = htons(static_cast<uint16_t>(port));
  return inet_pton(AF_INET, host, &sa->sin_addr) == 1;
}

void no_delay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// Reads what `p.from` has, up to the queue bound.
void pump_in(Pipe& p, size_t limit, Ms delay) {
  char buf[64 * 1024];
  while (!p.eof && p.queued < limit) {
    const size_t want = std::min(sizeof(buf), limit - p.queued);
    ssize_t n = ::read(p.from, buf, want);
    if (n > 0) {
      p.queue.push_back({Clock::now() + delay, std::string(buf, static_cast<size_t>(n)), 0});
      p.queued += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0 && errno == EINTR) continue;
    p.eof = true;  // EOF or error: pass the end on once the queue drained
  }
}

// Writes every released chunk `p.to` takes now.
void pump_out(Pipe& p) {
  const auto now = Clock::now();
  if (p.failed || now < p.not_before) return;
  while (!p.queue.empty() && p.queue.front().release <= now) {
    Chunk& c = p.queue.front();
    ssize_t n = ::send(p.to, c.data.data() + c.off, c.data.size() - c.off, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      if (errno == EINTR) continue;
      p.failed = true;
      p.queue.clear();
      p.queued = 0;
      return;
    }
    c.off += static_cast<size_t>(n);
    p.queued -= static_cast<size_t>(n);
    if (c.off == c.data.size()) p.queue.pop_front();
  }
  if (p.queue.empty() && p.eof && !p.shut) {
    ::shutdown(p.to, SHUT_WR);
    p.shut = true;
  }
}

// Whether `p.to` should be polled for POLLOUT: a released chunk is waiting on it.
bool wants_out(const Pipe& p, Clock::time_point now) {
  return !p.failed && now >= p.not_before && !p.queue.empty() && p.queue.front().release <= now;
}

// The next time a held chunk becomes due, for poll's timeout. One already due waits on POLLOUT
// instead (wants_out), so that a full socket buffer does not make the loop spin.
void next_due(const Pipe& p, Clock::time_point now, Clock::time_point* due) {
  if (p.failed || p.queue.empty()) return;
  auto t = std::max(p.queue.front().release, p.not_before);
  if (t > now && t < *due) *due = t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr,
                 "usage: link_delay_relay LISTEN_ADDR LISTEN_PORT TARGET_ADDR TARGET_PORT "
                 "ONE_WAY_MS QUEUE_BYTES\n");
    return 2;
  }
  sockaddr_in listen_sa{}, target_sa{};
  if (!parse_addr(argv[1], std::atoi(argv[2]), &listen_sa) ||
      !parse_addr(argv[3], std::atoi(argv[4]), &target_sa)) {
    std::fprintf(stderr, "link_delay_relay: bad IPv4 address\n");
    return 2;
  }
  const Ms delay(std::atoi(argv[5]));
  const size_t limit = static_cast<size_t>(std::strtoull(argv[6], nullptr, 10));
  if (limit == 0) {
    std::fprintf(stderr, "link_delay_relay: QUEUE_BYTES must be > 0\n");
    return 2;
  }
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  signal(SIGPIPE, SIG_IGN);

  const int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (lfd < 0 || ::bind(lfd, reinterpret_cast<sockaddr*>(&listen_sa), sizeof(listen_sa)) != 0 ||
      ::listen(lfd, 64) != 0) {
    std::fprintf(stderr, "link_delay_relay: listen on %s:%s: %s\n", argv[1], argv[2],
                 std::strerror(errno));
    return 1;
  }
  set_nonblock(lfd);
  socklen_t len = sizeof(listen_sa);
  getsockname(lfd, reinterpret_cast<sockaddr*>(&listen_sa), &len);
  std::printf("port %d\n", ntohs(listen_sa.sin_port));
  std::fflush(stdout);

  std::vector<std::unique_ptr<Conn>> conns;
  std::vector<pollfd> fds;
  while (!g_stop) {
    const auto now = Clock::now();
    auto due = now + Ms(1000);
    fds.clear();
    fds.push_back({lfd, POLLIN, 0});
    for (auto& c : conns) {
      short ea = 0, eb = 0;
      if (!c->up.eof && c->up.queued < limit) ea |= POLLIN;
      if (!c->down.eof && c->down.queued < limit) eb |= POLLIN;
      if (wants_out(c->down, now)) ea |= POLLOUT;
      if (wants_out(c->up, now)) eb |= POLLOUT;
      // A socket with nothing to wait for is left out (fd -1), or its POLLHUP would spin the loop.
      fds.push_back({ea ? c->a : -1, ea, 0});
      fds.push_back({eb ? c->b : -1, eb, 0});
      next_due(c->up, now, &due);
      next_due(c->down, now, &due);
    }
    // Round the wait up so a chunk is never polled for a few microseconds early in a busy loop.
    auto wait = std::chrono::duration_cast<std::chrono::microseconds>(due - now).count();
    int timeout = wait <= 0 ? 0 : static_cast<int>((wait + 999) / 1000);
    if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) {
      std::perror("link_delay_relay: poll");
      return 1;
    }
    if (fds[0].revents & POLLIN) {
      while (true) {
        int a = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (a < 0) break;
        int b = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        // A blocking connect: the target is one veth hop away and answers at once.
        if (b < 0 ||
            ::connect(b, reinterpret_cast<sockaddr*>(&target_sa), sizeof(target_sa)) != 0) {
          std::fprintf(stderr, "link_delay_relay: connect to %s:%s: %s\n", argv[3], argv[4],
                       std::strerror(errno));
          if (b >= 0) ::close(b);
          ::close(a);
          continue;
        }
        set_nonblock(b);
        no_delay(a);
        no_delay(b);
        auto c = std::make_unique<Conn>();
        c->a = a;
        c->b = b;
        c->up.from = a;
        c->up.to = b;
        c->down.from = b;
        c->down.to = a;
        c->up.not_before = Clock::now() + 2 * delay;  // the handshake's round trip
        conns.push_back(std::move(c));
      }
    }
    for (auto& c : conns) {
      pump_in(c->up, limit, delay);
      pump_in(c->down, limit, delay);
      pump_out(c->up);
      pump_out(c->down);
    }
    for (size_t i = 0; i < conns.size();) {
      if (conns[i]->done()) {
        ::close(conns[i]->a);
        ::close(conns[i]->b);
        conns.erase(conns.begin() + static_cast<long>(i));
      } else {
        ++i;
      }
    }
  }
  for (auto& c : conns) {
    ::close(c->a);
    ::close(c->b);
  }
  ::close(lfd);
  return 0;
}
