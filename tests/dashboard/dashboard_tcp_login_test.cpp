// The dashboard over burstd's TCP listener: a browser signs in once with the token
// (/dashboard/login) and gets it back as an HttpOnly, SameSite=Strict cookie, which opens the
// dashboard's pages and /metrics but never the /v1 API; a wrong token gets no cookie.
#include <gtest/gtest.h>
#include <httplib.h>

#include "daemon/api.h"
#include "daemon/scheduler.h"
#include "daemon/socket_server.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"

namespace burst::daemon {
namespace {

TEST(DashboardTcpLogin, TheTokenBecomesACookieForTheDashboardOnly) {
  FakeClock clock;
  Config config;
  auto store = open_sqlite_store(":memory:").value();
  FakeJobLauncher launcher(*store);
  Scheduler sched(clock, *store, launcher, SchedulerOptions{});
  Api api(sched, *store, config, [] { return std::vector<PodAction>{}; });
  api.set_web([](const ApiRequest& r) -> std::optional<ApiResponse> {
    ApiResponse page;
    page.body = "page " + r.path;
    page.content_type = "text/html";
    return page;
  });
  SocketServer tcp(api);
  ASSERT_TRUE(tcp.start_tcp("127.0.0.1", 0, "tok-0123456789").ok());
  httplib::Client c("127.0.0.1", tcp.port());

  auto none = c.Get("/dashboard");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  auto form = c.Get("/dashboard/login");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 200);
  EXPECT_NE(form->body.find("name=\"token\""), std::string::npos);
  auto wrong =
      c.Post("/dashboard/login", "token=tok-0123456788", "application/x-www-form-urlencoded");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  EXPECT_FALSE(wrong->has_header("Set-Cookie"));
  auto right =
      c.Post("/dashboard/login", "token=tok-0123456789", "application/x-www-form-urlencoded");
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 303);
  EXPECT_EQ(right->get_header_value("Set-Cookie"),
            "burst_token=tok-0123456789; HttpOnly; SameSite=Strict; Path=/");

  const httplib::Headers cookie = {{"Cookie", "other=1; burst_token=tok-0123456789"}};
  auto page = c.Get("/dashboard/pods", cookie);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->body, "page /dashboard/pods");
  auto metrics = c.Get("/metrics", cookie);
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  auto api_get = c.Get("/v1/health", cookie);
  ASSERT_TRUE(api_get);
  EXPECT_EQ(api_get->status, 401) << "the API needs the header";
  auto api_post = c.Post("/v1/reap", cookie, "", "application/json");
  ASSERT_TRUE(api_post);
  EXPECT_EQ(api_post->status, 401);
  auto bad = c.Get("/dashboard", {{"Cookie", "burst_token=tok-012345678"}});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 401) << "a prefix of the token is not the token";
  tcp.stop();
}

}  // namespace
}  // namespace burst::daemon
