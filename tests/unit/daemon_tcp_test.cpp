// burstd's optional TCP listener: only with a token file of mode 0600, and every request without
// the right "Authorization: Bearer <token>" is refused with 401. Port 0, in-process.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "client/daemon_client.h"
#include "client/daemon_config.h"
#include "daemon/api.h"
#include "daemon/daemon.h"
#include "daemon/socket_server.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"
#include "fakes/temp_dir.h"

namespace burst::daemon {
namespace {

using SteadyClock = std::chrono::steady_clock;  // not Clock: burst::Clock in a unity batch

// A raw TCP client, for what httplib's client will not do (a body announced but never sent).
class RawClient {
 public:
  // `from`: the loopback address to connect from (Linux answers on all of 127/8), so a test can
  // be another peer than 127.0.0.1.
  explicit RawClient(int port, const char* from = nullptr) {
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
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }
  bool send(const std::string& s) {
    return ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
  }
  // Everything until the server closes (or 5 s pass).
  std::string read_all() {
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd_, buf, sizeof buf, 0)) > 0;) out.append(buf, n);
    return out;
  }
  // Pushes up to `limit` bytes of body; returns how many the connection took before it failed.
  size_t push(size_t limit) {
    std::string chunk(1 << 20, 'x');
    size_t sent = 0;
    while (sent < limit) {
      ssize_t n = ::send(fd_, chunk.data(), chunk.size(), MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    return sent;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

long rss_kib() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

// Records the providers of each job it is given (the FakeJobLauncher runs it).
class ProvidersLauncher : public FakeJobLauncher {
 public:
  using FakeJobLauncher::FakeJobLauncher;
  JobResult run(const std::string& id, const PipelineSpec& spec,
                const std::function<int()>& interrupts) override {
    {
      std::lock_guard<std::mutex> lock(seen_mu);
      seen.push_back(spec.resources.providers);
    }
    return FakeJobLauncher::run(id, spec, interrupts);
  }
  std::mutex seen_mu;
  std::vector<std::vector<std::string>> seen;
};

class DaemonTcpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(":memory:").value();
    launcher_ = std::make_unique<ProvidersLauncher>(*store_);
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
  std::unique_ptr<ProvidersLauncher> launcher_;
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

// `burst status/submit/logs` against a team's burstd on another machine: BURSTD_SOCKET (or
// --socket) as http://HOST:PORT and the token from BURSTD_TOKEN_FILE, never named in an error.
TEST_F(DaemonTcpTest, TheCliClientReachesTheTcpListenerWithTheToken) {
  SocketServer tcp(*api_);
  ASSERT_TRUE(tcp.start_tcp("127.0.0.1", 0, "s3cret-token").ok());
  const std::string url = "http://127.0.0.1:" + std::to_string(tcp.port());
  auto ok = DaemonClient(url, "s3cret-token").get("/v1/health");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->status, 200);
  EXPECT_NE(ok->body.find("\"pid\""), std::string::npos) << ok->body;

  auto none = DaemonClient(url, "").get("/v1/health");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kAuth);
  EXPECT_NE(none.error().message.find("BURSTD_TOKEN_FILE"), std::string::npos)
      << none.error().message;
  auto wrong = DaemonClient(url, "s3cret-tokeX").get("/v1/health");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, ErrorCode::kAuth);
  EXPECT_EQ(wrong.error().message.find("s3cret"), std::string::npos) << wrong.error().message;

  auto bad = DaemonClient("http://127.0.0.1", "t").get("/v1/health");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not http://HOST:PORT"), std::string::npos);
  tcp.stop();
  auto gone = DaemonClient(url, "s3cret-token").get("/v1/health");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, ErrorCode::kConnection);
  EXPECT_NE(gone.error().message.find(url), std::string::npos) << gone.error().message;
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

// The token is checked from the headers: a wrong-token client that announces a huge body gets its
// 401 at once, without sending a byte of it, and what it then pushes is not read into memory.
TEST_F(DaemonTcpTest, AWrongTokenIsRefusedBeforeAnyBodyByteIsRead) {
  SocketServer tcp(*api_);
  ASSERT_TRUE(tcp.start_tcp("127.0.0.1", 0, "s3cret-token").ok());
  {
    RawClient c(tcp.port());
    ASSERT_TRUE(c.connected());
    const auto t0 = SteadyClock::now();
    ASSERT_TRUE(
        c.send("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\n"
               "Content-Length: 10000000000\r\n\r\n"));
    const std::string answer = c.read_all();
    EXPECT_EQ(answer.rfind("HTTP/1.1 401", 0), 0u) << answer;
    EXPECT_LT(SteadyClock::now() - t0, std::chrono::seconds(2)) << "answered without the body";
  }
  {  // curl's way: Expect: 100-continue must not invite the body either
    RawClient c(tcp.port());
    ASSERT_TRUE(
        c.send("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
               "Content-Length: 5000000\r\n\r\n"));
    const std::string answer = c.read_all();
    EXPECT_EQ(answer.rfind("HTTP/1.1 401", 0), 0u) << answer;
  }
  {  // and a client that pushes the body anyway: the server does not hold it
    const long before = rss_kib();
    RawClient c(tcp.port());
    ASSERT_TRUE(
        c.send("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\n"
               "Content-Length: 268435456\r\n\r\n"));
    const size_t taken = c.push(size_t{256} << 20);
    EXPECT_LT(taken, size_t{64} << 20) << "the server closed the connection, not read 256 MiB";
    EXPECT_LT(rss_kib() - before, 32 * 1024) << "RSS grew by more than 32 MiB";
  }
  tcp.stop();
}

TEST_F(DaemonTcpTest, ABodyOverOneMebibyteIs413BeforeItIsSent) {
  SocketServer tcp(*api_);
  ASSERT_TRUE(tcp.start_tcp("127.0.0.1", 0, "tok").ok());
  RawClient c(tcp.port());
  const auto t0 = SteadyClock::now();
  ASSERT_TRUE(
      c.send("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\n"
             "Content-Length: 2097152\r\n\r\n"));
  const std::string answer = c.read_all();
  EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer;
  EXPECT_NE(answer.find("the limit is 1 MiB"), std::string::npos) << answer;
  EXPECT_LT(SteadyClock::now() - t0, std::chrono::seconds(2));

  RawClient chunked(tcp.port());  // a chunked body has no size to check: refused too
  ASSERT_TRUE(
      chunked.send("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\n"
                   "Transfer-Encoding: chunked\r\n\r\n"));
  EXPECT_EQ(chunked.read_all().rfind("HTTP/1.1 411", 0), 0u);

  // Under the limit is read and handled as usual (here: not a spec).
  httplib::Client ok("127.0.0.1", tcp.port());
  auto r = ok.Post("/v1/jobs", {{"Authorization", "Bearer tok"}}, std::string(900 * 1024, ' '),
                   "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  tcp.stop();
}

TEST_F(DaemonTcpTest, HugeHeadersAreRefused) {
  SocketServer tcp(*api_);
  ASSERT_TRUE(tcp.start_tcp("127.0.0.1", 0, "tok").ok());
  RawClient c(tcp.port());
  std::string req = "GET /v1/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\n";
  for (int i = 0; i < 200; ++i)
    req += "X-Pad-" + std::to_string(i) + ": " + std::string(1000, 'a') + "\r\n";
  (void)c.send(req);  // 200 KB of headers: more than the 64 KiB allowed
  const std::string answer = c.read_all();
  EXPECT_EQ(answer.find("HTTP/1.1 200"), std::string::npos) << answer.substr(0, 200);
  tcp.stop();
}

// Slow or silent clients (a slowloris) hold a connection each; a well-behaved client is still
// answered at once. (They come from another address than the good client: one peer's
// connections beyond 16 at once are turned away: daemon_tcp_limits_test.cpp.)
TEST_F(DaemonTcpTest, ThirtyTwoSlowClientsDoNotBlockAGoodOne) {
  SocketServer tcp(*api_);
  ASSERT_TRUE(tcp.start_tcp("127.0.0.1", 0, "tok").ok());
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 32; ++i) {
    slow.push_back(std::make_unique<RawClient>(tcp.port(), i % 4 ? "127.0.0.2" : "127.0.0.3"));
    if (!slow.back()->connected()) GTEST_SKIP() << "cannot connect from 127.0.0.2 or .3";
    if (i % 2) {
      ASSERT_TRUE(slow.back()->send("GET /v1/health HTTP/1.1\r\nHost: x\r\n"));
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let the server take them all
  httplib::Client good("127.0.0.1", tcp.port());
  good.set_read_timeout(5, 0);
  const auto t0 = SteadyClock::now();
  auto r = good.Get("/v1/health", {{"Authorization", "Bearer tok"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_LT(SteadyClock::now() - t0, std::chrono::seconds(2));
  slow.clear();
  tcp.stop();
}

// A client that trickles its headers a byte at a time (each read succeeds, so a per-read timeout
// never fires) is cut off when the whole request's deadline passes.
TEST_F(DaemonTcpTest, ATricklingClientIsCutOffAtTheRequestDeadline) {
  SocketServer tcp(*api_);
  tcp.set_read_deadline(std::chrono::milliseconds(600));
  ASSERT_TRUE(tcp.start_tcp("127.0.0.1", 0, "tok").ok());
  RawClient c(tcp.port());
  const auto t0 = SteadyClock::now();
  bool open = c.send("GET /v1/health HTTP/1.1\r\nAuthorization: Bearer tok\r\n");
  for (int i = 0; i < 60 && open; ++i) {  // a header line every 50 ms, for 3 s at most
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    open = c.send("X-Slow-" + std::to_string(i) + ": a\r\n");
  }
  EXPECT_FALSE(open) << "the server closed the connection";
  const std::string answer = c.read_all();  // ends when the server closes
  EXPECT_EQ(answer.find("HTTP/1.1 200"), std::string::npos) << answer;
  EXPECT_LT(SteadyClock::now() - t0, std::chrono::milliseconds(2500))
      << "the connection ended soon after the 600 ms deadline";
  tcp.stop();
}

// A token holder may not run a job on burstd's machine (the `local` provider) unless
// burstd.yaml says so; a spec naming no provider (whose default is `local`) is refused too.
TEST_F(DaemonTcpTest, JobsOverTcpMayNotUseTheLocalProvider) {
  auto body = [](const std::string& providers) {
    std::string yaml = "name: here\nrun: echo hi\n";
    if (!providers.empty()) yaml += "resources:\n  providers: " + providers + "\n";
    return nlohmann::json{{"spec", yaml}, {"path", "/w/job.yaml"}}.dump();
  };
  SocketServer tcp(*api_);
  ASSERT_TRUE(tcp.start_tcp("127.0.0.1", 0, "tok").ok());
  httplib::Client c("127.0.0.1", tcp.port());
  httplib::Headers auth{{"Authorization", "Bearer tok"}};
  for (const std::string& providers :
       {std::string("[local]"), std::string("[runpod, local]"), std::string()}) {
    auto refused = c.Post("/v1/jobs", auth, body(providers), "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 403) << providers << ": " << refused->body;
    EXPECT_NE(refused->body.find("api.tcp_allow_local_provider"), std::string::npos);
  }
  EXPECT_TRUE(sched_->jobs().empty()) << "nothing queued";
  auto cloud = c.Post("/v1/jobs", auth, body("[runpod, vast]"), "application/json");
  ASSERT_TRUE(cloud);
  EXPECT_EQ(cloud->status, 201) << cloud->body;
  tcp.stop();

  // The Unix socket (mode 0600: burstd's own user) keeps `local`, the default included.
  const std::map<std::string, std::string> json_type = {{"content-type", "application/json"}};
  EXPECT_EQ(api_->handle({"POST", "/v1/jobs", {}, body("[local]"), json_type}).status, 201);
  EXPECT_EQ(api_->handle({"POST", "/v1/jobs", {}, body(""), json_type}).status, 201);
  // And so does TCP when burstd.yaml allows it.
  SocketServer allowed(*api_);
  ASSERT_TRUE(allowed.start_tcp("127.0.0.1", 0, "tok", /*allow_local_provider=*/true).ok());
  httplib::Client c2("127.0.0.1", allowed.port());
  auto ok = c2.Post("/v1/jobs", auth, body("[local]"), "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 201) << ok->body;
  allowed.stop();

  for (int i = 0; i < 500 && launcher_->started().size() < 4; ++i) {
    sched_->tick();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(launcher_->wait_started(4));
  std::lock_guard<std::mutex> lock(launcher_->seen_mu);
  std::multiset<std::vector<std::string>> seen(launcher_->seen.begin(), launcher_->seen.end());
  EXPECT_EQ(seen,
            (std::multiset<std::vector<std::string>>{{"runpod", "vast"}, {"local"}, {}, {"local"}}))
      << "the jobs run with the providers their specs name";
}

TEST_F(DaemonTcpTest, TheConfigSaysWhetherTcpJobsMayUseLocal) {
  dir_.write("token", "tok-123\n");
  ASSERT_EQ(::chmod((dir_.path() + "/token").c_str(), 0600), 0);
  auto dflt = load("api:\n  tcp: \"127.0.0.1:0\"\n  token_file: token\n");
  ASSERT_TRUE(dflt.ok()) << dflt.error().message;
  EXPECT_FALSE(dflt->tcp_allow_local_provider) << "off by default";
  auto on =
      load("api:\n  tcp: \"127.0.0.1:0\"\n  token_file: token\n  tcp_allow_local_provider: true\n");
  ASSERT_TRUE(on.ok()) << on.error().message;
  EXPECT_TRUE(on->tcp_allow_local_provider);
  auto bad = load("api:\n  tcp_allow_local_provider: perhaps\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("api.tcp_allow_local_provider: expected true or false"),
            std::string::npos)
      << bad.error().message;
}

TEST_F(DaemonTcpTest, BurstdYamlMustBeASmallRegularFile) {
  auto dev = load_daemon_config("/dev/zero", {{"HOME", dir_.path()}});
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.error().message, "/dev/zero: not a regular file");
  dir_.write("big.yaml", "# " + std::string(2 << 20, 'x') + "\n");
  auto big = load_daemon_config(dir_.path() + "/big.yaml", {{"HOME", dir_.path()}});
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("too large (2097155 bytes; the limit is 1 MiB)"),
            std::string::npos)
      << big.error().message;
}

}  // namespace
}  // namespace burst::daemon
