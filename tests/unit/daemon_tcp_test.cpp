// burstd's optional TCP listener: only with a token file of mode 0600, and every request without
// the right "Authorization: Bearer <token>" is refused with 401. Port 0, in-process.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "daemon/api.h"
#include "daemon/daemon.h"
#include "daemon/daemon_config.h"
#include "daemon/socket_server.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"
#include "fakes/temp_dir.h"

namespace burst::daemon {
namespace {

class DaemonTcpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(":memory:").value();
    launcher_ = std::make_unique<FakeJobLauncher>(*store_);
    sched_ = std::make_unique<Scheduler>(clock_, *store_, *launcher_, SchedulerOptions{});
    api_ =
        std::make_unique<Api>(*sched_, *store_, config_, [] { return std::vector<PodAction>{}; });
  }
  // Loads burstd.yaml with `yaml` in the temp dir (state under it too).
  Result<DaemonConfig> load(const std::string& yaml) {
    dir_.write("burstd.yaml", yaml);
    return load_daemon_config(dir_.path() + "/burstd.yaml",
                              {{"BURST_STATE_DIR", dir_.path() + "/state"},
                               {"BURST_CONFIG_DIR", dir_.path() + "/config"},
                               {"HOME", dir_.path()}});
  }

  TempDir dir_;
  FakeClock clock_;
  Config config_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<FakeJobLauncher> launcher_;
  std::unique_ptr<Scheduler> sched_;
  std::unique_ptr<Api> api_;
};

TEST_F(DaemonTcpTest, EveryRequestNeedsTheBearerToken) {
  SocketServer tcp(*api_);
  ASSERT_TRUE(tcp.start_tcp("127.0.0.1", 0, "s3cret-token").ok());
  ASSERT_GT(tcp.port(), 0);
  httplib::Client c("127.0.0.1", tcp.port());
  auto none = c.Get("/v1/health");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(none->body.find("s3cret"), std::string::npos);
  auto wrong = c.Get("/v1/health", {{"Authorization", "Bearer s3cret-tokeX"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto prefix = c.Get("/v1/health", {{"Authorization", "Bearer s3cret"}});
  ASSERT_TRUE(prefix);
  EXPECT_EQ(prefix->status, 401) << "a prefix of the token is not the token";
  auto post = c.Post("/v1/reap", "", "application/json");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 401) << "POSTs too";
  auto ok = c.Get("/v1/health", {{"Authorization", "Bearer s3cret-token"}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  EXPECT_EQ(nlohmann::json::parse(ok->body)["running"], 0);
  tcp.stop();
}

TEST_F(DaemonTcpTest, DaemonListensOnTcpOnlyWhenConfigured) {
  DaemonConfig dc;
  dc.burst.reports_dir = dir_.path() + "/reports";
  dc.burst.logs_dir = dir_.path() + "/logs";
  std::vector<std::string> log;
  DaemonDeps deps{clock_, *store_, *launcher_,
                  {},     nullptr, [&log](const std::string& l) { log.push_back(l); }};
  {
    Daemon plain(dc, deps);
    ASSERT_TRUE(plain.start(/*socket=*/false).ok());
    EXPECT_EQ(plain.tcp_port(), -1) << "no TCP unless configured";
    plain.stop();
  }
  dc.tcp_host = "127.0.0.1";
  dc.tcp_port = 0;
  dc.token_file = dir_.path() + "/token";
  dc.api_token = "daemon-token-42";
  Daemon d(dc, deps);
  ASSERT_TRUE(d.start(/*socket=*/false).ok());
  ASSERT_GT(d.tcp_port(), 0);
  httplib::Client c("127.0.0.1", d.tcp_port());
  auto refused = c.Get("/v1/jobs");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  auto ok = c.Get("/v1/jobs", {{"Authorization", "Bearer daemon-token-42"}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  d.stop();
  for (const auto& l : log) EXPECT_EQ(l.find("daemon-token-42"), std::string::npos) << l;
}

TEST_F(DaemonTcpTest, NoTcpWithoutAToken) {
  SocketServer tcp(*api_);
  EXPECT_EQ(tcp.start_tcp("127.0.0.1", 0, "").error().code, ErrorCode::kInvalid);
  EXPECT_EQ(tcp.port(), -1);
}

TEST_F(DaemonTcpTest, ConfigNeedsATokenFileOfMode0600) {
  auto no_token = load("api:\n  tcp: \"127.0.0.1:0\"\n");
  ASSERT_FALSE(no_token.ok());
  EXPECT_NE(no_token.error().message.find(
                "burstd.yaml:2:3: api.tcp: a TCP listener needs api.token_file"),
            std::string::npos)
      << no_token.error().message;

  dir_.write("token", "tok-123\n");
  const std::string token = dir_.path() + "/token";
  ASSERT_EQ(::chmod(token.c_str(), 0644), 0);
  auto open_mode = load("api:\n  tcp: \"127.0.0.1:8787\"\n  token_file: token\n");
  ASSERT_FALSE(open_mode.ok());
  EXPECT_NE(open_mode.error().message.find("api.token_file: " + token +
                                           " has mode 0644; a token file must be 0600"),
            std::string::npos)
      << open_mode.error().message;

  ASSERT_EQ(::chmod(token.c_str(), 0600), 0);
  auto good = load("api:\n  tcp: \"127.0.0.1:8787\"\n  token_file: token\n");
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good->tcp_host, "127.0.0.1");
  EXPECT_EQ(good->tcp_port, 8787);
  EXPECT_EQ(good->api_token, "tok-123") << "trailing newline trimmed";

  auto bad = load("api:\n  tcp: \"localhost\"\n  token_file: token\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("api.tcp: expected HOST:PORT"), std::string::npos);
  auto none = load("max_concurrent_jobs: 1\n");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->tcp_port, -1) << "no TCP unless configured";
}

}  // namespace
}  // namespace burst::daemon
