// The limits of burstd's TCP listener on clients that do not authenticate: one peer address holds
// at most 16 connections at once, and a connection that has sent neither Authorization nor the end
// of its headers 2 s after its connect is closed. Port 0, in-process.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "daemon/api.h"
#include "daemon/socket_server.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"

namespace burst::daemon {
namespace {

using SteadyClock = std::chrono::steady_clock;  // not Clock: burst::Clock in a unity batch

// A raw TCP client from `from` (Linux answers on all of 127/8, so a test can be another peer).
class LimitsClient {
 public:
  explicit LimitsClient(int port, const char* from = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (from) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      ::inet_pton(AF_INET, from, &local.sin_addr);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) return;
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    timeval tv{5, 0};  // no test waits longer for an answer
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~LimitsClient() { ::close(fd_); }
  LimitsClient(const LimitsClient&) = delete;
  LimitsClient& operator=(const LimitsClient&) = delete;

  bool connected() const { return connected_; }
  bool send(const std::string& s) {
    return ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
  }
  std::string read_all() {  // until the server closes (or 5 s pass)
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd_, buf, sizeof buf, 0)) > 0;) out.append(buf, n);
    return out;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

class DaemonTcpLimits : public ::testing::Test {
 protected:
  FakeClock clock_;
  Config config_;
  std::unique_ptr<Store> store_ = open_sqlite_store(":memory:").value();
  FakeJobLauncher launcher_{*store_};
  Scheduler sched_{clock_, *store_, launcher_, SchedulerOptions{}};
  Api api_{sched_, *store_, config_, [] { return std::vector<PodAction>{}; }};
};

// 300 connections from one peer that send a request line and a header but never Authorization
// (without the cap and the 2 s window they held every worker for 10 s each, and a good client
// waited 25 s): the peer holds at most 16 at once, the rest are answered 503 at once, and a
// client from another address is answered at once.
TEST_F(DaemonTcpLimits, ThreeHundredSlowUnauthenticatedConnectionsDoNotDelayAGoodClient) {
  SocketServer tcp(api_);
  ASSERT_TRUE(tcp.start_tcp("127.0.0.1", 0, "tok").ok());
  std::vector<std::unique_ptr<LimitsClient>> slow;
  for (int i = 0; i < 300; ++i) {
    slow.push_back(std::make_unique<LimitsClient>(tcp.port(), "127.0.0.2"));
    if (!slow.back()->connected()) GTEST_SKIP() << "cannot connect from 127.0.0.2";
    (void)slow.back()->send("GET /v1/health HTTP/1.1\r\nHost: x\r\n");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the server take them
  httplib::Client good("127.0.0.1", tcp.port());
  good.set_read_timeout(5, 0);
  const auto t0 = SteadyClock::now();
  auto r = good.Get("/v1/health", {{"Authorization", "Bearer tok"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_LT(SteadyClock::now() - t0, std::chrono::seconds(1));
  LimitsClient more(tcp.port(), "127.0.0.2");
  ASSERT_TRUE(more.send("GET /v1/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\n\r\n"));
  EXPECT_EQ(more.read_all().rfind("HTTP/1.1 503", 0), 0u) << "the peer's 17th connection";
  slow.clear();
  tcp.stop();
}

// A TCP connection that has sent neither an Authorization header nor the end of its headers 2 s
// after its connect is closed (it was held for the whole 10 s request deadline); one that sent
// Authorization keeps the deadline.
TEST_F(DaemonTcpLimits, AConnectionThatSendsNoAuthorizationWithinTwoSecondsIsClosed) {
  SocketServer tcp(api_);
  ASSERT_TRUE(tcp.start_tcp("127.0.0.1", 0, "tok").ok());
  LimitsClient silent(tcp.port());
  LimitsClient authed(tcp.port());
  const auto t0 = SteadyClock::now();
  ASSERT_TRUE(silent.send("GET /v1/health HTTP/1.1\r\nHost: x\r\n"));
  ASSERT_TRUE(authed.send("GET /v1/health HTTP/1.1\r\nauthorization: Bearer tok\r\n"));
  const std::string answer = silent.read_all();  // ends when the server closes
  const auto took = SteadyClock::now() - t0;
  EXPECT_EQ(answer.find("HTTP/1.1 200"), std::string::npos) << answer;
  EXPECT_GE(took, std::chrono::milliseconds(1800));
  EXPECT_LT(took, std::chrono::milliseconds(3500)) << "closed soon after 2 s, not at 10 s";
  ASSERT_TRUE(authed.send("Host: x\r\n\r\n"));
  EXPECT_EQ(authed.read_all().rfind("HTTP/1.1 200", 0), 0u) << "the authorized one was kept";
}

}  // namespace
}  // namespace burst::daemon
