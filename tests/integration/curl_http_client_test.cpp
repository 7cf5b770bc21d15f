// The libcurl adapter against a real HTTP server (cpp-httplib on 127.0.0.1:0): statuses are
// responses not errors, headers arrive lower-cased, the connection is reused, and transport
// failures get the kinds api_call's retry rules depend on.
#include "http/curl_http_client.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <set>
#include <thread>

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

}  // namespace
}  // namespace burst
