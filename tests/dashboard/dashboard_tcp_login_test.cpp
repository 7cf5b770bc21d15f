// The dashboard over burstd's TCP listener: a browser signs in once with the token
// (/dashboard/login, same-origin, by burstd's address) and gets a session: a random path prefix
// and a random HttpOnly, SameSite=Strict cookie scoped to it, never the token. The session opens
// the dashboard's pages and /metrics under its prefix, never the /v1 API, and the cookie is no
// bearer token; a wrong token gets no cookie.
#include <gtest/gtest.h>
#include <httplib.h>

#include "daemon/api.h"
#include "daemon/scheduler.h"
#include "daemon/socket_server.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"

namespace burst::daemon {
namespace {

class DashboardTcpLogin : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(":memory:").value();
    launcher_ = std::make_unique<FakeJobLauncher>(*store_);
    sched_ = std::make_unique<Scheduler>(clock_, *store_, *launcher_, SchedulerOptions{});
    api_ =
        std::make_unique<Api>(*sched_, *store_, config_, [] { return std::vector<PodAction>{}; });
    api_->set_web([](const ApiRequest& r) -> std::optional<ApiResponse> {
      ApiResponse page;
      page.body = "page " + r.path + " base " + r.dashboard_base;
      page.content_type = "text/html";
      return page;
    });
    tcp_ = std::make_unique<SocketServer>(*api_);
    ASSERT_TRUE(tcp_->start_tcp("127.0.0.1", 0, kToken).ok());
    origin_ = "http://127.0.0.1:" + std::to_string(tcp_->port());
  }
  void TearDown() override { tcp_->stop(); }
  httplib::Result login(const std::string& token, const httplib::Headers& headers) {
    httplib::Client c("127.0.0.1", tcp_->port());
    return c.Post("/dashboard/login", headers, "token=" + token,
                  "application/x-www-form-urlencoded");
  }

  const std::string kToken = "tok-0123456789";
  FakeClock clock_;
  Config config_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<FakeJobLauncher> launcher_;
  std::unique_ptr<Scheduler> sched_;
  std::unique_ptr<Api> api_;
  std::unique_ptr<SocketServer> tcp_;
  std::string origin_;
};

TEST_F(DashboardTcpLogin, TheTokenOpensARandomSessionForTheDashboardOnlyNeverTheToken) {
  httplib::Client c("127.0.0.1", tcp_->port());
  auto none = c.Get("/dashboard");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  auto form = c.Get("/dashboard/login");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 200);
  EXPECT_NE(form->body.find("name=\"token\""), std::string::npos);
  const httplib::Headers same = {{"Origin", origin_}};
  auto wrong = login("tok-0123456788", same);
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  EXPECT_FALSE(wrong->has_header("Set-Cookie"));
  auto right = login(kToken, same);
  ASSERT_TRUE(right);
  ASSERT_EQ(right->status, 303);
  const std::string location = right->get_header_value("Location");
  ASSERT_EQ(location.size(), 3u + 32 + 10) << location;  // /s/<32 hex>/dashboard
  const std::string prefix = location.substr(0, 3 + 32);
  const std::string set_cookie = right->get_header_value("Set-Cookie");
  EXPECT_EQ(set_cookie.find(kToken), std::string::npos) << "never the token: " << set_cookie;
  const std::string cookie = set_cookie.substr(0, set_cookie.find(';'));
  EXPECT_EQ(cookie.size(), std::string("burst_dash=").size() + 64) << set_cookie;
  EXPECT_EQ(set_cookie.substr(cookie.size()), "; Path=" + prefix + "/; HttpOnly; SameSite=Strict");
  auto again = login(kToken, same);
  ASSERT_TRUE(again);
  EXPECT_NE(again->get_header_value("Set-Cookie"), set_cookie) << "a new session per login";

  const httplib::Headers with = {{"Cookie", "other=1; " + cookie}};
  auto page = c.Get(prefix + "/dashboard/pods", with);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->body, "page /dashboard/pods base " + prefix) << "served below the prefix";
  auto metrics = c.Get(prefix + "/metrics", with);
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  // The cookie is nothing outside its prefix, nothing on /v1, and no bearer token.
  for (const std::string& path :
       {std::string("/dashboard/pods"), prefix + "/v1/health", std::string("/v1/health")}) {
    auto r = c.Get(path, with);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 401) << path;
  }
  auto api_post = c.Post(prefix + "/v1/reap", with, "", "application/json");
  ASSERT_TRUE(api_post);
  EXPECT_EQ(api_post->status, 401);
  const std::string value = cookie.substr(cookie.find('=') + 1);
  auto as_bearer = c.Get("/v1/health", {{"Authorization", "Bearer " + value}});
  ASSERT_TRUE(as_bearer);
  EXPECT_EQ(as_bearer->status, 401) << "the cookie is not a bearer token";
  auto old_cookie = c.Get("/dashboard", {{"Cookie", "burst_token=" + kToken}});
  ASSERT_TRUE(old_cookie);
  EXPECT_EQ(old_cookie->status, 401) << "the token is no cookie either";
  // The pod delete: only with same-origin proof.
  auto no_origin = c.Post(prefix + "/dashboard/pods/delete", with, "csrf=x",
                          "application/x-www-form-urlencoded");
  ASSERT_TRUE(no_origin);
  EXPECT_EQ(no_origin->status, 401);
  httplib::Headers with_origin = with;
  with_origin.emplace("Origin", origin_);
  auto del = c.Post(prefix + "/dashboard/pods/delete", with_origin, "csrf=x",
                    "application/x-www-form-urlencoded");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 200) << "handed to the dashboard (which checks the CSRF token)";
}

// The login checks where it is opened from: a Host that is not burstd's address (a DNS-rebinding
// name) gets no form, and a sign-in posted by a page of another origin (or "null") opens nothing.
TEST_F(DashboardTcpLogin, TheLoginChecksHostAndOrigin) {
  httplib::Client c("127.0.0.1", tcp_->port());
  auto rebound =
      c.Get("/dashboard/login", {{"Host", "evil.example:" + std::to_string(tcp_->port())}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 421);
  auto localhost =
      c.Get("/dashboard/login", {{"Host", "localhost:" + std::to_string(tcp_->port())}});
  ASSERT_TRUE(localhost);
  EXPECT_EQ(localhost->status, 200);
  for (const httplib::Headers& h :
       {httplib::Headers{}, httplib::Headers{{"Origin", "null"}},
        httplib::Headers{{"Origin", "http://127.0.0.1:7860"}},
        httplib::Headers{{"Origin", origin_}, {"Sec-Fetch-Site", "same-site"}},
        httplib::Headers{{"Origin", "http://evil.example"},
                         {"Host", "evil.example:" + std::to_string(tcp_->port())}}}) {
    auto r = login(kToken, h);
    ASSERT_TRUE(r);
    EXPECT_NE(r->status, 303) << (h.empty() ? "no Origin" : h.begin()->second);
    EXPECT_FALSE(r->has_header("Set-Cookie"));
  }
}

}  // namespace
}  // namespace burst::daemon
