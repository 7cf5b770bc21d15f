// Network partitions between burst and a pod's real sshd (issue 8). A partition is silence: the
// socket stays open and nothing arrives, so only a keepalive can notice it. Two ways to make one:
// - everywhere: a TCP relay in front of the pod that stops forwarding (tests/fakes/tcp_relay.h);
// - Linux as root: the sshd in its own network namespace behind a veth pair, and the link set
//   down mid-run and mid-transfer, so the kernel itself drops the packets.
// Each asserts that the session reports the lost connection (kConnection) within the keepalive
// bound, which is what lets the runner go on to delete the pod.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "burst/remote.h"
#include "burst/ssh_keys.h"
#include "fakes/tcp_relay.h"
#include "integration/loopback_pod.h"

namespace burst {
namespace {

using Steady = std::chrono::steady_clock;
constexpr int kIdleS = 1;
constexpr int kProbeS = 2;
// Detection must come within idle + probe timeout; the slack is for a loaded 2-core CI machine.
constexpr double kBoundS = kIdleS + kProbeS + 5;

double seconds_since(Steady::time_point t) {
  return std::chrono::duration<double>(Steady::now() - t).count();
}

void expect_lost(const Error& e, Steady::time_point silent_since) {
  EXPECT_EQ(e.code, ErrorCode::kConnection) << e.message;
  EXPECT_NE(e.message.find("connection lost"), std::string::npos) << e.message;
  EXPECT_LT(seconds_since(silent_since), kBoundS) << "noticed too late: " << e.message;
}

class RelayPartition : public LoopbackPodTest {
 protected:
  void SetUp() override {
    LoopbackPodTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    relay_ = std::make_unique<testing::TcpRelay>(pod_.ssh.port);
    SshTarget via = target_;
    via.port = relay_->port();
    via.keepalive_idle_s = kIdleS;
    via.io_timeout_s = kProbeS;
    auto s = connector_->connect(via);
    ASSERT_TRUE(s.ok()) << s.error().message;
    partitioned_ = std::move(*s);
  }
  void TearDown() override {
    partitioned_.reset();
    relay_.reset();
    LoopbackPodTest::TearDown();
  }

  std::unique_ptr<testing::TcpRelay> relay_;
  std::unique_ptr<RemoteSession> partitioned_;
};

TEST_F(RelayPartition, ASilentLinkMidRunIsNoticedWithinTheKeepaliveBound) {
  Steady::time_point silent_since{};
  OutputSink sink{[&](const char* d, size_t n) {
                    if (std::string(d, n).find("started") != std::string::npos &&
                        silent_since == Steady::time_point{}) {
                      relay_->go_silent();
                      silent_since = Steady::now();
                    }
                  },
                  {}};
  auto status = partitioned_->exec("echo started; sleep 60", sink, {});
  ASSERT_FALSE(status.ok()) << "the command 'finished' through a dead link: " << *status;
  ASSERT_NE(silent_since, Steady::time_point{});
  expect_lost(status.error(), silent_since);
}

TEST_F(RelayPartition, ASilentLinkMidDownloadIsNoticed) {
  auto stream = partitioned_->open_stream("head -c 200000000 /dev/zero");
  ASSERT_TRUE(stream.ok()) << stream.error().message;
  std::vector<char> buf(64 * 1024);
  size_t got = 0;
  Steady::time_point silent_since{};
  while (true) {
    auto n = (*stream)->read(buf.data(), buf.size());
    if (!n.ok()) {
      ASSERT_NE(silent_since, Steady::time_point{}) << n.error().message;
      expect_lost(n.error(), silent_since);
      break;
    }
    ASSERT_GT(*n, 0u) << "the stream ended through a dead link";
    got += *n;
    if (got > (1 << 20) && silent_since == Steady::time_point{}) {
      relay_->go_silent();
      silent_since = Steady::now();
    }
  }
}

TEST_F(RelayPartition, ASilentLinkMidUploadIsNoticed) {
  auto stream = partitioned_->open_stream("cat > /dev/null");
  ASSERT_TRUE(stream.ok()) << stream.error().message;
  std::vector<char> chunk(64 * 1024, 'x');
  size_t sent = 0;
  Steady::time_point silent_since{};
  while (true) {
    Status st = (*stream)->write(chunk.data(), chunk.size());
    if (!st.ok()) {
      ASSERT_NE(silent_since, Steady::time_point{}) << st.error().message;
      expect_lost(st.error(), silent_since);
      break;
    }
    sent += chunk.size();
    if (sent > (1 << 20) && silent_since == Steady::time_point{}) {
      relay_->go_silent();
      silent_since = Steady::now();
    }
    ASSERT_LT(sent, size_t{1} << 30) << "1 GiB written into a dead link";
  }
}

TEST_F(RelayPartition, ALinkThatIsCutFailsTheCommandAtOnce) {
  Steady::time_point cut_at{};
  OutputSink sink{[&](const char* d, size_t n) {
                    if (std::string(d, n).find("started") != std::string::npos &&
                        cut_at == Steady::time_point{}) {
                      relay_->cut();
                      cut_at = Steady::now();
                    }
                  },
                  {}};
  auto status = partitioned_->exec("echo started; sleep 60", sink, {});
  ASSERT_FALSE(status.ok());
  expect_lost(status.error(), cut_at);
}

// --- Linux, root: a real link in a network namespace ---------------------------------------

int sh(const std::string& cmd) {
  int rc = std::system((cmd + " >/dev/null 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

class NetnsPartition : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef __linux__
    GTEST_SKIP() << "SKIPPED: network namespaces are Linux only; the relay tests cover this";
#endif
    if (geteuid() != 0)
      GTEST_SKIP() << "SKIPPED: network namespaces need root; the relay tests cover partitions";
    if (find_sshd().empty()) GTEST_SKIP() << "SKIPPED: no sshd (scripts/setup installs it)";
    const std::string tag = std::to_string(getpid() % 100000);
    ns_ = "burst-pt" + tag;
    host_if_ = "bpth" + tag;
    pod_if_ = "bptp" + tag;
    const int octet = 1 + getpid() % 250;
    host_ip_ = "10.231." + std::to_string(octet) + ".1";
    pod_ip_ = "10.231." + std::to_string(octet) + ".2";
    if (sh("ip netns add " + ns_) != 0)
      GTEST_SKIP() << "SKIPPED: cannot create a network namespace here (a container without "
                      "CAP_SYS_ADMIN?); the relay tests cover partitions";
    made_ns_ = true;
    ASSERT_EQ(sh("ip link add " + host_if_ + " type veth peer name " + pod_if_), 0);
    ASSERT_EQ(sh("ip link set " + pod_if_ + " netns " + ns_), 0);
    ASSERT_EQ(sh("ip addr add " + host_ip_ + "/24 dev " + host_if_), 0);
    ASSERT_EQ(sh("ip link set " + host_if_ + " up"), 0);
    ASSERT_EQ(sh("ip netns exec " + ns_ + " ip addr add " + pod_ip_ + "/24 dev " + pod_if_), 0);
    ASSERT_EQ(sh("ip netns exec " + ns_ + " ip link set " + pod_if_ + " up"), 0);
    ASSERT_EQ(sh("ip netns exec " + ns_ + " ip link set lo up"), 0);

    char tmpl[] = "/tmp/burst-netns-XXXXXX";
    dir_ = mkdtemp(tmpl);
    auto pub = ensure_keypair(dir_ + "/id_ed25519");
    ASSERT_TRUE(pub.ok()) << pub.error().message;
    std::ofstream(dir_ + "/authorized_keys") << *pub << "\n";
    ASSERT_EQ(sh("ssh-keygen -q -t ed25519 -N '' -f " + dir_ + "/host_key"), 0);
    std::ofstream(dir_ + "/sshd_config")
        << "ListenAddress " << pod_ip_ << "\nPort 22\nHostKey " << dir_ << "/host_key\n"
        << "PidFile " << dir_ << "/sshd.pid\nAuthorizedKeysFile " << dir_
        << "/authorized_keys\nStrictModes no\nPermitRootLogin prohibit-password\n"
        << "PasswordAuthentication no\nUsePAM no\n";
    sh("mkdir -p /run/sshd");
    ASSERT_EQ(sh("ip netns exec " + ns_ + " " + find_sshd() + " -f " + dir_ + "/sshd_config"), 0);

    SshTarget t{pod_ip_, 22, "root", dir_ + "/id_ed25519", ""};
    t.keepalive_idle_s = kIdleS;
    t.io_timeout_s = kProbeS;
    auto s = connect_with_retry(*connector_, t, clock_,
                                clock_.mono_now() + std::chrono::seconds(20), {});
    ASSERT_TRUE(s.ok()) << s.error().message;
    session_ = std::move(*s);
  }

  void TearDown() override {
    session_.reset();
    if (!dir_.empty()) {
      sh("kill $(cat " + dir_ + "/sshd.pid)");
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
    if (made_ns_) {
      sh("ip link del " + host_if_);
      sh("ip netns pids " + ns_ + " | xargs -r kill -9");
      sh("ip netns del " + ns_);
    }
  }

  void link_down() { ASSERT_EQ(sh("ip link set " + host_if_ + " down"), 0); }

  SystemClock clock_;
  std::string ns_, host_if_, pod_if_, host_ip_, pod_ip_, dir_;
  bool made_ns_ = false;
  std::unique_ptr<RemoteConnector> connector_ = make_libssh_connector();
  std::unique_ptr<RemoteSession> session_;
};

TEST_F(NetnsPartition, TheLinkGoingDownMidRunIsNoticedWithinTheKeepaliveBound) {
  Steady::time_point down_at{};
  OutputSink sink{[&](const char* d, size_t n) {
                    if (std::string(d, n).find("started") != std::string::npos &&
                        down_at == Steady::time_point{}) {
                      link_down();
                      down_at = Steady::now();
                    }
                  },
                  {}};
  auto status = session_->exec("echo started; sleep 60", sink, {});
  ASSERT_FALSE(status.ok()) << "the command 'finished' through a dead link";
  ASSERT_NE(down_at, Steady::time_point{});
  expect_lost(status.error(), down_at);
}

TEST_F(NetnsPartition, TheLinkGoingDownMidTransferIsNoticed) {
  auto stream = session_->open_stream("cat > /dev/null");
  ASSERT_TRUE(stream.ok()) << stream.error().message;
  std::vector<char> chunk(64 * 1024, 'x');
  size_t sent = 0;
  Steady::time_point down_at{};
  while (true) {
    Status st = (*stream)->write(chunk.data(), chunk.size());
    if (!st.ok()) {
      ASSERT_NE(down_at, Steady::time_point{}) << st.error().message;
      expect_lost(st.error(), down_at);
      break;
    }
    sent += chunk.size();
    if (sent > (4 << 20) && down_at == Steady::time_point{}) {
      link_down();
      down_at = Steady::now();
    }
    ASSERT_LT(sent, size_t{1} << 30) << "1 GiB written into a dead link";
  }
}

}  // namespace
}  // namespace burst
