// The dashboard's browser sessions (client/dashboard_session.h) as pure logic: a request is a
// session's only with its path under the session's prefix and the session's cookie; a session
// reaches the dashboard's own paths only (never /v1); a state-changing request needs an Origin
// naming the very origin it was sent to.
#include "client/dashboard_session.h"

#include <gtest/gtest.h>

namespace burst::daemon {
namespace {

TEST(DashboardSession, ARequestNeedsThePrefixAndItsCookieTogether) {
  DashboardSessions sessions(2);
  const DashSession a = sessions.open().value();
  ASSERT_TRUE(dash_valid_base(a.prefix)) << a.prefix;
  EXPECT_EQ(a.cookie.size(), 64u);
  const std::string cookie = std::string(kDashCookie) + "=" + a.cookie;
  auto m = sessions.match(a.prefix + "/dashboard/pods", "x=1; " + cookie);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->prefix, a.prefix);
  EXPECT_EQ(m->path, "/dashboard/pods");
  EXPECT_EQ(sessions.match(a.prefix, cookie)->path, "/");
  EXPECT_FALSE(sessions.match("/dashboard/pods", cookie)) << "the cookie without the prefix";
  EXPECT_FALSE(sessions.match(a.prefix + "/dashboard", "")) << "the prefix without the cookie";
  EXPECT_FALSE(sessions.match(a.prefix + "x/dashboard", cookie)) << "a longer prefix";
  const DashSession b = sessions.open().value();
  EXPECT_FALSE(sessions.match(b.prefix + "/dashboard", cookie)) << "another session's prefix";
  // A page on another port may have set a burst_dash cookie of its own: the right one still counts.
  EXPECT_TRUE(sessions.match(a.prefix + "/dashboard", "burst_dash=forged; " + cookie));
  // Past max_sessions, the oldest is forgotten.
  (void)sessions.open();
  EXPECT_FALSE(sessions.match(a.prefix + "/dashboard", cookie));
  EXPECT_EQ(dash_set_cookie(b),
            "burst_dash=" + b.cookie + "; Path=" + b.prefix + "/; HttpOnly; SameSite=Strict");
}

TEST(DashboardSession, ASessionMayUseTheDashboardsOwnPathsOnly) {
  for (const char* path : {"/", "/dashboard", "/dashboard/pods", "/dashboard/jobs/j1/log",
                           "/dashboard/app.js", "/metrics"})
    EXPECT_TRUE(dash_session_may("GET", path)) << path;
  EXPECT_TRUE(dash_session_may("POST", "/dashboard/pods/delete"));
  EXPECT_TRUE(dash_session_may("POST", "/dashboard/jobs/cancel"));
  for (const char* path : {"/v1/jobs", "/v1/health", "/dashboard/../v1/jobs", "/%76%31/jobs",
                           "/dashboard/%2e%2e/v1/jobs", "/dashboardx", "/metrics/x"})
    EXPECT_FALSE(dash_session_may("GET", path)) << path;
  for (const char* path : {"/v1/jobs", "/v1/reap", "/v1/jobs/j1/cancel", "/dashboard/pods"})
    EXPECT_FALSE(dash_session_may("POST", path)) << path;
  EXPECT_FALSE(dash_session_may("PUT", "/dashboard"));
}

TEST(DashboardSession, SameOriginProofIsAnOriginNamingTheHostAndNoCrossSiteFetch) {
  using H = std::map<std::string, std::string>;
  EXPECT_TRUE(dash_same_origin(H{{"host", "127.0.0.1:8080"}, {"origin", "http://127.0.0.1:8080"}}));
  EXPECT_TRUE(dash_same_origin(H{{"host", "127.0.0.1:8080"},
                                 {"origin", "http://127.0.0.1:8080"},
                                 {"sec-fetch-site", "same-origin"}}));
  for (const H& h :
       {H{{"host", "127.0.0.1:8080"}}, H{{"host", "127.0.0.1:8080"}, {"origin", "null"}},
        H{{"host", "127.0.0.1:8080"}, {"origin", "http://127.0.0.1:7860"}},
        H{{"host", "127.0.0.1:8080"}, {"origin", "http://127.0.0.1:80800"}},
        H{{"origin", "http://127.0.0.1:8080"}},
        H{{"host", "127.0.0.1:8080"},
          {"origin", "http://127.0.0.1:8080"},
          {"sec-fetch-site", "same-site"}}})
    EXPECT_FALSE(dash_same_origin(h)) << (h.count("origin") ? h.at("origin") : "no Origin");
}

}  // namespace
}  // namespace burst::daemon
