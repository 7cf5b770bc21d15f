// The libcurl adapter against a real HTTP server (cpp-httplib on 127.0.0.1:0): statuses are
// responses not errors, headers arrive lower-cased, the connection is reused, and transport
// failures get the kinds api_call's retry rules depend on.
#include "http/curl_http_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "fakes/temp_dir.h"

namespace burst {
namespace {

class CurlClient : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Post("/echo", [this](const httplib::Request& q, httplib::Response& r) {
      ports_.insert(q.remote_port);
      r.status = 201;
      r.set_header("X-Request-Method", q.method);
      r.set_header("Retry-After", "3");
      r.set_content("got " + q.body + " auth=" + q.get_header_value("Authorization"), "text/plain");
    });
    server_.Get("/fail", [this](const httplib::Request& q, httplib::Response& r) {
      ports_.insert(q.remote_port);
      r.status = 503;
      r.set_content(R"({"detail":"busy"})", "application/problem+json");
    });
    server_.Get("/huge", [](const httplib::Request&, httplib::Response& r) {
      r.set_content(std::string(3u << 20, 'x'), "application/json");
    });
    server_.Get("/slow", [](const httplib::Request&, httplib::Response& r) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      r.set_content("late", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 200 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(server_.is_running());
  }
  void TearDown() override {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::set<int> ports_;
};

TEST_F(CurlClient, SendsMethodHeadersBodyAndReadsTheResponse) {
  auto http = make_curl_http_client();
  HttpRequest r{"POST", url("/echo"), {{"Authorization", "Bearer k"}}, R"({"a":1})", false};
  auto resp = http->send(r);
  ASSERT_TRUE(resp.ok()) << resp.error().message;
  EXPECT_EQ(resp->status, 201);
  EXPECT_EQ(resp->body, R"(got {"a":1} auth=Bearer k)");
  EXPECT_EQ(resp->header("x-request-method"), "POST");
  EXPECT_EQ(resp->header("retry-after"), "3");
}

// An API (or anything claiming to be one) that answers without end cannot fill burst's memory.
TEST_F(CurlClient, AResponseOverTheBodyCapIsRefusedNotKept) {
  CurlOptions o;
  o.max_body_bytes = 1u << 20;
  auto http = make_curl_http_client(o);
  auto resp = http->send({"GET", url("/huge"), {}, "", true});
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(resp.error().message.find("response larger than 1 MiB: refused"), std::string::npos)
      << resp.error().message;
  auto small = http->send({"GET", url("/fail"), {}, "", true});
  ASSERT_TRUE(small.ok()) << "the client works on after a refused answer";
  EXPECT_EQ(small->status, 503);
}

TEST_F(CurlClient, AnErrorStatusIsAResponseNotAnError) {
  auto http = make_curl_http_client();
  auto resp = http->send({"GET", url("/fail"), {}, "", true});
  ASSERT_TRUE(resp.ok()) << resp.error().message;
  EXPECT_EQ(resp->status, 503);
  EXPECT_EQ(resp->body, R"({"detail":"busy"})");
}

TEST_F(CurlClient, ReusesOneConnectionForSeveralRequests) {
  auto http = make_curl_http_client();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(http->send({"GET", url("/fail"), {}, "", true}).ok());
  EXPECT_EQ(ports_.size(), 1u) << "each request opened a new connection";
}

TEST_F(CurlClient, ATotalTimeoutAfterSendingIsKTimeout) {
  CurlOptions o;
  o.total_timeout = Duration(300);
  auto http = make_curl_http_client(o);
  auto resp = http->send({"GET", url("/slow"), {}, "", true});
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.error().code, ErrorCode::kTimeout) << resp.error().message;
}

TEST_F(CurlClient, ARefusedConnectionIsKConnection) {
  auto http = make_curl_http_client();
  server_.stop();
  thread_.join();
  auto resp = http->send({"POST", url("/echo"), {}, "x", false});
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.error().code, ErrorCode::kConnection) << resp.error().message;
  EXPECT_EQ(resp.error().message.find("/echo"), std::string::npos) << "names the host only";
}

TEST_F(CurlClient, PlainHttpToAnotherMachineIsRefusedBeforeAnythingIsSent) {
  auto http = make_curl_http_client();
  for (const std::string url : {"http://api.runpod.io/v2/pods", "HTTP://10.1.2.3:8080/x",
                                "ftp://127.0.0.1/x", "http://127.0.0.1.evil.example/x"}) {
    auto resp = http->send({"GET", url, {{"Authorization", "Bearer k"}}, "", true});
    ASSERT_FALSE(resp.ok()) << url;
    EXPECT_EQ(resp.error().code, ErrorCode::kInvalid) << resp.error().message;
    EXPECT_NE(resp.error().message.find("refusing to send an API request to"), std::string::npos)
        << resp.error().message;
  }
  EXPECT_TRUE(ports_.empty());
  // Loopback stays allowed: that is the emulator.
  EXPECT_TRUE(
      http->send({"GET", "http://localhost:" + std::to_string(port_) + "/fail", {}, "", true})
          .ok());
}

// A TLS server whose certificate no CA vouches for: the request fails as kAuth, naming TLS. There
// is no option that turns verification off.
TEST_F(CurlClient, AServerCertificateThatDoesNotVerifyIsRefused) {
  if (std::system("command -v openssl >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "SKIPPED: no openssl binary to serve TLS (scripts/setup installs openssl)";
  TempDir dir;
  const std::string cert = dir.path() + "/cert.pem", key = dir.path() + "/key.pem";
  ASSERT_EQ(std::system(("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
                         "-keyout " +
                         key + " -out " + cert + " -days 1 -subj /CN=127.0.0.1 >/dev/null 2>&1")
                            .c_str()),
            0);
  // A free port: bind 0, read it, release it for s_server.
  int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(probe, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ::getsockname(probe, reinterpret_cast<sockaddr*>(&a), &len);
  const int port = ntohs(a.sin_port);
  ::close(probe);
  pid_t server = ::fork();
  if (server == 0) {
    ::freopen("/dev/null", "w", stdout);
    ::freopen("/dev/null", "w", stderr);
    const std::string accept = "127.0.0.1:" + std::to_string(port);
    ::execlp("openssl", "openssl", "s_server", "-quiet", "-www", "-accept", accept.c_str(), "-cert",
             cert.c_str(), "-key", key.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  bool up = false;
  for (int i = 0; i < 500 && !up; ++i) {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    a.sin_port = htons(static_cast<uint16_t>(port));
    up = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(s);
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(up) << "openssl s_server did not start";
  auto http = make_curl_http_client();
  auto resp = http->send({"GET",
                          "https://127.0.0.1:" + std::to_string(port) + "/",
                          {{"Authorization", "Bearer k"}},
                          "",
                          true});
  ::kill(server, SIGTERM);
  ::waitpid(server, nullptr, 0);
  ASSERT_FALSE(resp.ok()) << "an unverified certificate was accepted";
  EXPECT_EQ(resp.error().code, ErrorCode::kAuth) << resp.error().message;
  EXPECT_NE(resp.error().message.find("TLS certificate was not accepted"), std::string::npos)
      << resp.error().message;
}

}  // namespace
}  // namespace burst
