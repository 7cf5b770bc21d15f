// burstd's dashboard in headless Chromium (driven over the DevTools pipe), reached the way a user
// reaches it: `burst dashboard` and its one-time link. A job submitted to burstd on the local
// cloud appears on the jobs page; its page streams the log as the job writes it (the job waits
// for a gate file, so the line arrives after the page loaded), then shows it finished with the
// cost its report states. A long job's pod is deleted with the pods page's button (a real form
// POST with the CSRF token): the job is cancelled and the pod confirmed deleted. The spend page
// and the pipeline's page draw their charts. No console error, no failed load; screenshots under
// the build dir (test-artefacts/dashboard/). Then, idle with the dashboard open, burstd uses < 1%
// CPU and < 25 MiB RSS. Forged and replayed requests are refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "dashboard/burstd_process.h"
#include "dashboard/chromium_cdp.h"

namespace burst::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string artefact_dir() {
  std::string dir = fs::path(BURST_BINARY).parent_path().string() + "/test-artefacts/dashboard";
  fs::create_directories(dir);
  return dir;
}

std::string submit(const BurstdProcess& d, const BurstHome& home, const std::string& yaml) {
  HttpReply r = unix_http(d.socket(), "POST", "/v1/jobs",
                          json{{"spec", yaml}, {"path", home.work() + "/dash.yaml"}}.dump());
  EXPECT_EQ(r.status, 201) << r.body;
  return json::parse(r.body, nullptr, false).value("id", "");
}

std::string job_state(const BurstdProcess& d, const std::string& id) {
  return json::parse(unix_http(d.socket(), "GET", "/v1/jobs/" + id).body, nullptr, false)
      .value("state", "");
}

// utime + stime of `pid`, in clock ticks.
long cpu_ticks(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::istringstream rest(all.substr(all.rfind(')') + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; rest >> field; ++i) {
    if (i == 14) utime = std::atol(field.c_str());
    if (i == 15) {
      stime = std::atol(field.c_str());
      break;
    }
  }
  return utime + stime;
}

long rss_kib(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

TEST(DashboardChromium, JobStreamsFinishesPodDeleteVerifiesNoConsoleErrors) {
  const std::string chromium = ChromiumCdp::find();
  if (chromium.empty())
    GTEST_SKIP() << "chromium is not installed (scripts/setup installs it on Debian): the "
                    "dashboard was not tested in a browser";
  BurstHome home;
  fs::create_directories(home.root() + "/config");
  std::ofstream(home.root() + "/config/config.yaml")
      << "providers:\n  local:\n    gpu_usd_per_hour: 36\n    cpu_usd_per_hour: 3.6\n";
  const std::string secret = "dash-sekret-9f2e-never-shown";
  BurstdProcess d(home, "max_concurrent_jobs: 2\nbudget:\n  usd_per_month: 50\n",
                  {{"DASH_SECRET", secret}});
  ASSERT_TRUE(d.ready()) << d.log();
  BurstProcess proxy(home, {"dashboard"});
  ASSERT_TRUE(proxy.wait_for_stdout("dashboard: http://127.0.0.1:", 20)) << proxy.err();
  std::string url = proxy.out().substr(proxy.out().find("http://"));
  url = url.substr(0, url.find('\n'));

  ChromiumCdp browser(chromium, home.root() + "/chromium-profile");
  ASSERT_TRUE(browser.ok()) << browser.why();
  const std::string shots = artefact_dir();

  // The job waits for a gate, so its second line is written after its page loaded.
  const std::string gate = home.work() + "/gate";
  const std::string id = submit(
      d, home,
      "version: 1\nname: dash-stream\nsecrets: [DASH_SECRET]\nresources: {providers: [local]}\n"
      "run: |\n  echo first-line \"$DASH_SECRET\"\n"
      "  while [ ! -e " +
          gate +
          " ]; do sleep 0.1; done\n"
          "  echo second-line-after-gate\n");
  ASSERT_FALSE(id.empty());

  ASSERT_TRUE(browser.navigate(url)) << "the one-time link";
  // The session's pages live under its prefix (http://127.0.0.1:PORT/s/<hex>/dashboard).
  const json at = browser.eval("location.href");
  ASSERT_TRUE(at.is_string());
  const std::string base = at.get<std::string>().substr(0, at.get<std::string>().rfind('/'));
  EXPECT_TRUE(browser.wait_for("document.body.innerText.includes('" + id + "')", 20))
      << "the jobs page lists the job";
  ASSERT_TRUE(browser.navigate(base + "/dashboard/jobs/" + id));
  ASSERT_TRUE(
      browser.wait_for("document.getElementById('log').textContent.includes('first-line')", 60))
      << browser.eval("document.body.innerText").dump();
  EXPECT_EQ(browser.eval("document.getElementById('log').textContent.includes('second-line')"),
            json(false));
  std::ofstream(gate) << "go\n";
  EXPECT_TRUE(browser.wait_for(
      "document.getElementById('log').textContent.includes('second-line-after-gate')", 30))
      << "the log streams into the open page";
  ASSERT_TRUE(
      browser.wait_for("document.getElementById('job-state') && "
                       "document.getElementById('job-state').textContent === 'succeeded' && "
                       "document.getElementById('log').getAttribute('data-finished') === '1' && "
                       "document.readyState === 'complete'",
                       60))
      << "the page reloads once the job ends\n"
      << d.log();
  ASSERT_TRUE(browser.screenshot(shots + "/job.png"));
  EXPECT_EQ(browser.eval("document.documentElement.outerHTML.includes('" + secret + "')"),
            json(false))
      << "the job echoed its secret; the page must not show it";
  const json cost = browser.eval("document.getElementById('job-cost').textContent");
  const std::string shown = cost.is_string() ? cost.get<std::string>() : cost.dump();
  json report =
      json::parse(unix_http(d.socket(), "GET", "/v1/jobs/" + id + "/report").body, nullptr, false);
  ASSERT_TRUE(report.contains("actual")) << report.dump();
  const double usd = report["actual"]["usd"].get<double>();
  EXPECT_GT(usd, 0);
  char want[32];
  std::snprintf(want, sizeof want, "$%.4f", usd);
  EXPECT_EQ(shown, want) << "the job page states the report's cost";
  ASSERT_TRUE(browser.navigate(base + "/dashboard/jobs/" + id + "/report"));
  EXPECT_EQ(browser.eval("!!document.querySelector('svg[data-chart=gantt]')"), json(true));
  // The pipeline's runs: estimate vs actual and utilization against the 70% line.
  ASSERT_TRUE(browser.navigate(base + "/dashboard/pipeline?name=dash-stream"));
  EXPECT_EQ(browser.eval("!!document.querySelector('svg[data-chart=runs-estimate]') && "
                         "!!document.querySelector('svg[data-chart=runs-utilization]')"),
            json(true))
      << browser.eval("document.body.innerText").dump();
  EXPECT_EQ(browser.eval("document.querySelector('svg[data-chart=runs-utilization]')"
                         ".textContent.includes('70% target')"),
            json(true));
  ASSERT_TRUE(browser.screenshot(shots + "/pipeline.png"));
  ASSERT_TRUE(browser.navigate(base + "/dashboard"));
  EXPECT_EQ(browser.eval("document.body.innerText.includes('succeeded')"), json(true));
  ASSERT_TRUE(browser.screenshot(shots + "/jobs.png"));

  // A long job; its pod deleted from the pods page.
  const std::string long_id = submit(d, home,
                                     "version: 1\nname: dash-long\nresources: {providers: "
                                     "[local]}\nrun: |\n  echo holding\n  sleep 120\n");
  ASSERT_TRUE(wait_until(60, [&] {
    json pods = json::parse(unix_http(d.socket(), "GET", "/v1/pods").body, nullptr, false);
    for (const auto& p : pods)
      if (p.value("job_id", "") == long_id && p.value("state", "") == "alive") return true;
    return false;
  })) << d.log();
  ASSERT_TRUE(browser.navigate(base + "/dashboard/pods"));
  ASSERT_TRUE(browser.screenshot(shots + "/pods.png"));
  ASSERT_EQ(browser.eval("document.querySelectorAll('button.delete').length"), json(1));
  ASSERT_TRUE(browser.eval_and_wait_load("document.querySelector('button.delete').click()"));
  EXPECT_EQ(browser.eval("document.getElementById('notice').textContent.includes('cancelled')"),
            json(true))
      << browser.eval("document.body.innerText").dump();
  EXPECT_TRUE(wait_until(60,
                         [&] {
                           return unix_http(d.socket(), "GET", "/v1/pods").body.find(long_id) ==
                                      std::string::npos &&
                                  job_state(d, long_id) == "interrupted";
                         }))
      << "the pod is deleted and verified gone, its job interrupted\n"
      << d.log();
  json long_job = json::parse(unix_http(d.socket(), "GET", "/v1/jobs/" + long_id).body);
  for (const auto& p : long_job["pods"]) EXPECT_EQ(p["state"], "deleted") << long_job.dump(1);
  ASSERT_TRUE(browser.navigate(base + "/dashboard/pods"));
  EXPECT_EQ(browser.eval("!!document.getElementById('no-pods')"), json(true));

  ASSERT_TRUE(browser.navigate(base + "/dashboard/spend"));
  EXPECT_EQ(browser.eval("!!document.querySelector('svg[data-chart=cumulative-spend]')"),
            json(true));
  EXPECT_EQ(browser.eval("document.body.innerText.includes('monthly cap')"), json(true));
  ASSERT_TRUE(browser.screenshot(shots + "/spend.png"));
  EXPECT_TRUE(browser.errors().empty()) << browser.errors().front();

  // Idle with the dashboard open (the jobs page: nothing runs, so it asks nothing).
  ASSERT_TRUE(browser.navigate(base + "/dashboard"));
  const long before = cpu_ticks(d.pid());
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const long ticks = cpu_ticks(d.pid()) - before;
  EXPECT_LE(ticks * 100.0 / sysconf(_SC_CLK_TCK) / 3.0, 1.0) << ticks << " ticks in 3 s";
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BURST_DASHBOARD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BURST_DASHBOARD_SANITIZED 1
#endif
#endif
#ifndef BURST_DASHBOARD_SANITIZED
  EXPECT_LT(rss_kib(d.pid()), 25 * 1024) << "KiB";
#else
  // A sanitizer build's burstd carries shadow memory (about 150 MiB here): the RSS bound is the
  // main stage's check; this stage still checks the idle CPU and everything above.
  std::cout << "[ SKIPPED-PART ] the 25 MiB RSS bound: a sanitizer build\n";
#endif
  std::cout << "burstd idle: " << ticks << " ticks in 3 s, RSS " << rss_kib(d.pid()) << " KiB\n";
}

// `burst dashboard` with its one-time link, as a client without a browser sees it.
class DashboardProxySession {
 public:
  explicit DashboardProxySession(const BurstHome& home) : proxy_(home, {"dashboard"}) {}
  // Waits for the link and reads the port and the one-time token.
  bool started() {
    if (!proxy_.wait_for_stdout("dashboard: http://127.0.0.1:", 20)) return false;
    const std::string out = proxy_.out();
    port = std::atoi(out.c_str() + out.find("127.0.0.1:") + 10);
    token = out.substr(out.find("token=") + 6);
    token = token.substr(0, token.find('\n'));
    return port > 0;
  }
  // A request with `headers` (each ending in \r\n) and Host 127.0.0.1:PORT (or `host`:PORT).
  std::string send(const std::string& method, const std::string& path,
                   const std::string& headers = "", const std::string& body = "",
                   const std::string& host = "127.0.0.1") {
    return tcp_request(port, method + " " + path + " HTTP/1.1\r\nHost: " + host + ":" +
                                 std::to_string(port) + "\r\n" + headers +
                                 (body.empty() && method == "GET"
                                      ? ""
                                      : "Content-Length: " + std::to_string(body.size()) + "\r\n") +
                                 "\r\n" + body);
  }
  std::string origin() const { return "http://127.0.0.1:" + std::to_string(port); }

  BurstProcess proxy_;
  int port = 0;
  std::string token;
};

std::string proxy_header_of(const std::string& answer, const std::string& name) {
  const size_t at = answer.find("\r\n" + name + ": ");
  if (at == std::string::npos) return "";
  const size_t start = at + 4 + name.size();
  return answer.substr(start, answer.find("\r\n", start) - start);
}

TEST(DashboardProxy, TheOneTimeLinkWorksOnceAndForgedRequestsAreRefused) {
  BurstHome home;
  BurstdProcess d(home, "max_concurrent_jobs: 1\n");
  ASSERT_TRUE(d.ready()) << d.log();
  DashboardProxySession p(home);
  ASSERT_TRUE(p.started()) << p.proxy_.err();
  EXPECT_EQ(p.send("GET", "/dashboard").rfind("HTTP/1.1 401", 0), 0u) << "no session, no page";
  EXPECT_EQ(p.send("GET", "/?token=" + std::string(p.token.size(), 'a')).rfind("HTTP/1.1 401", 0),
            0u);
  const std::string first = p.send("GET", "/?token=" + p.token);
  ASSERT_EQ(first.rfind("HTTP/1.1 303", 0), 0u) << first;
  // The session: a random path prefix, and a random cookie that only that path carries.
  const std::string location = proxy_header_of(first, "Location");
  ASSERT_EQ(location.size(), std::string("/s/").size() + 32 + std::string("/dashboard").size())
      << first;
  const std::string prefix = location.substr(0, location.rfind('/'));
  const std::string set_cookie = proxy_header_of(first, "Set-Cookie");
  ASSERT_EQ(set_cookie.rfind("burst_dash=", 0), 0u) << first;
  const std::string cookie = set_cookie.substr(0, set_cookie.find(';'));
  EXPECT_EQ(cookie.size(), std::string("burst_dash=").size() + 64) << cookie;
  EXPECT_EQ(set_cookie.substr(cookie.size()), "; Path=" + prefix + "/; HttpOnly; SameSite=Strict");
  EXPECT_EQ(p.send("GET", "/?token=" + p.token).rfind("HTTP/1.1 401", 0), 0u)
      << "the link works once";
  const std::string with = "Cookie: " + cookie + "\r\n";
  const std::string page = p.send("GET", prefix + "/dashboard", with);
  EXPECT_EQ(page.rfind("HTTP/1.1 200", 0), 0u) << page;
  EXPECT_NE(page.find("<h1>Jobs</h1>"), std::string::npos) << page;
  EXPECT_NE(page.find("Content-Security-Policy: default-src 'self'"), std::string::npos) << page;
  EXPECT_NE(page.find("href=\"" + prefix + "/dashboard/pods\""), std::string::npos)
      << "the links stay in the session";
  EXPECT_EQ(p.send("GET", "/dashboard", with).rfind("HTTP/1.1 401", 0), 0u)
      << "the cookie outside its path (as a server on another port would replay it)";
  EXPECT_EQ(p.send("GET", prefix + "/dashboard").rfind("HTTP/1.1 401", 0), 0u)
      << "the path without the cookie";
  EXPECT_EQ(
      p.send("GET", "/s/" + std::string(32, '0') + "/dashboard", with).rfind("HTTP/1.1 401", 0), 0u)
      << "the cookie under another prefix";
  EXPECT_EQ(p.send("GET", prefix + "/dashboard", with, "", "evil.example").rfind("HTTP/1.1 421", 0),
            0u)
      << "a rebound DNS name is refused";
  EXPECT_EQ(p.send("GET", prefix + "/metrics", with).rfind("HTTP/1.1 200", 0), 0u);
  // The delete form without its CSRF token, or with a wrong one, deletes nothing.
  for (const std::string& body : {std::string("provider=local&pod=x"),
                                  std::string("provider=local&pod=x&csrf=") + std::string(64, '0')})
    EXPECT_EQ(unix_http(d.socket(), "POST", "/dashboard/pods/delete", body,
                        "application/x-www-form-urlencoded")
                  .status,
              403)
        << body;
}

// A session reaches the dashboard's own paths only: never /v1, however the path is spelt. A POST
// needs same-origin proof at the proxy, and burstd wants the form's token too.
TEST(DashboardProxy, OnlyTheDashboardsOwnPathsAreForwarded) {
  BurstHome home;
  BurstdProcess d(home, "max_concurrent_jobs: 1\n");
  ASSERT_TRUE(d.ready()) << d.log();
  DashboardProxySession p(home);
  ASSERT_TRUE(p.started()) << p.proxy_.err();
  const std::string first = p.send("GET", "/?token=" + p.token);
  const std::string location = proxy_header_of(first, "Location");
  const std::string prefix = location.substr(0, location.rfind('/'));
  const std::string set_cookie = proxy_header_of(first, "Set-Cookie");
  const std::string with = "Cookie: " + set_cookie.substr(0, set_cookie.find(';')) + "\r\n";
  const std::string same = with + "Origin: " + p.origin() + "\r\n";
  const std::string spec =
      json{{"spec", "version: 1\nname: x\nresources: {providers: [local]}\nrun: echo hi\n"}}.dump();
  const std::string as_json = same + "Content-Type: application/json\r\n";
  for (const char* path :
       {"/v1/health", "/v1/jobs", "/dashboard/../v1/health", "/%76%31/health", "/v1/pods"})
    EXPECT_EQ(p.send("GET", prefix + path, with).rfind("HTTP/1.1 404", 0), 0u) << path;
  for (const char* path : {"/v1/jobs", "/v1/reap", "/v1/jobs/x/cancel", "/dashboard/jobs"})
    EXPECT_EQ(p.send("POST", prefix + path, as_json, spec).rfind("HTTP/1.1 404", 0), 0u) << path;
  EXPECT_EQ(unix_http(d.socket(), "GET", "/v1/jobs").body.find("\"id\""), std::string::npos)
      << "no job was queued";

  const std::string form = "Content-Type: application/x-www-form-urlencoded\r\n";
  const std::string fields = "provider=local&pod=x";
  const std::string del = prefix + "/dashboard/pods/delete";
  EXPECT_EQ(p.send("POST", del, with + form, fields).rfind("HTTP/1.1 403", 0), 0u) << "no Origin";
  EXPECT_EQ(p.send("POST", del, with + "Origin: null\r\n" + form, fields).rfind("HTTP/1.1 403", 0),
            0u)
      << "Origin: null";
  EXPECT_EQ(p.send("POST", del, with + "Origin: http://127.0.0.1:7860\r\n" + form, fields)
                .rfind("HTTP/1.1 403", 0),
            0u)
      << "another port";
  EXPECT_EQ(p.send("POST", del, same + "Sec-Fetch-Site: same-site\r\n" + form, fields)
                .rfind("HTTP/1.1 403", 0),
            0u)
      << "Sec-Fetch-Site: same-site";
  const std::string no_token = p.send("POST", del, same + form, fields);
  EXPECT_EQ(no_token.rfind("HTTP/1.1 403", 0), 0u) << "same origin, but no CSRF token";
  EXPECT_NE(no_token.find("token is missing"), std::string::npos) << no_token;
}

}  // namespace
}  // namespace burst::testing
