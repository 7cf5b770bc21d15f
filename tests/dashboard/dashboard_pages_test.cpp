// The dashboard's pages in-process (daemon/dashboard.h), over an in-memory store: what the store
// holds is escaped (a hostile pipeline name renders as text), the delete form carries the CSRF
// token and a pod delete without it, or from another site's page, is refused before anything is
// deleted; with it, a pod whose job is not running goes to the reconcile pass. The JS-off page
// is complete: the job, its phases and its log are in the HTML burstd sends. A pipeline's page
// charts its succeeded runs: estimate vs actual in US $, utilization against the 70% target.
#include <gtest/gtest.h>

#include <fstream>

#include "daemon/api.h"
#include "daemon/dashboard.h"
#include "daemon/dashboard_html.h"
#include "daemon/scheduler.h"
#include "daemon/wait_reason.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"
#include "fakes/temp_dir.h"
#include "report/job_history.h"
#include "report/job_report.h"

namespace burst::daemon {
namespace {

class DashboardPagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(":memory:").value();
    launcher_ = std::make_unique<FakeJobLauncher>(*store_);
    sched_ = std::make_unique<Scheduler>(clock_, *store_, *launcher_, SchedulerOptions{});
    config_.logs_dir = dir_.path();
    api_ =
        std::make_unique<Api>(*sched_, *store_, config_, [] { return std::vector<PodAction>{}; });
    dash_ = std::make_unique<Dashboard>(DashboardDeps{*store_,
                                                      *sched_,
                                                      clock_,
                                                      *api_,
                                                      [this] {
                                                        ++reaps_;
                                                        PodAction a;
                                                        a.provider = "local";
                                                        a.pod = "pod-1";
                                                        a.outcome = "deleted (confirmed)";
                                                        return std::vector<PodAction>{a};
                                                      },
                                                      {}});
    JobRecord j;
    j.id = "job-1";
    j.pipeline = "<script>alert(1)</script>";
    j.state = JobState::kFailed;
    j.phase = Phase::kRun;
    j.provider = "local";
    j.error = "run: \"boom\" & <b>bad</b>";
    j.created_ms = to_unix_ms(clock_.now()) - 60000;
    j.finished_ms = to_unix_ms(clock_.now()) - 1000;
    j.report_path = dir_.path() + "/job-1.json";
    std::ofstream(j.report_path) << "{\"job\": \"job-1\"}\n";
    ASSERT_TRUE(store_->create_job(j).ok());
    ASSERT_TRUE(store_->begin_phase("job-1", Phase::kRun, j.created_ms).ok());
    ASSERT_TRUE(store_->end_phase("job-1", Phase::kRun, j.finished_ms, Outcome::kFailed, "").ok());
    PodRecord p;
    p.job_id = "job-1";
    p.provider = "local";
    p.role = "gpu";
    p.name = "burst-x-job-1";
    p.pod_id = "pod-1";
    p.gpu_type = "local";
    p.usd_per_hour = 1.5;
    p.state = PodRecordState::kAlive;
    p.created_ms = j.created_ms;
    ASSERT_TRUE(store_->add_pod(p).ok());
    std::ofstream(dir_.path() + "/job-1.log") << "step 1 <ok>\n";
  }

  ApiResponse get(const std::string& path, const std::map<std::string, std::string>& query = {}) {
    ApiRequest r;
    r.method = "GET";
    r.path = path;
    r.query = query;
    return *dash_->handle(r);
  }
  ApiResponse post_delete(const std::string& csrf, const std::string& origin,
                          const std::string& fetch_site = "") {
    ApiRequest r;
    r.method = "POST";
    r.path = "/dashboard/pods/delete";
    r.query = {{"provider", "local"}, {"pod", "pod-1"}};
    if (!csrf.empty()) r.query["csrf"] = csrf;
    r.headers["host"] = "127.0.0.1:8080";
    if (!origin.empty()) r.headers["origin"] = origin;
    if (!fetch_site.empty()) r.headers["sec-fetch-site"] = fetch_site;
    return *dash_->handle(r);
  }

  TempDir dir_;
  FakeClock clock_;
  Config config_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<FakeJobLauncher> launcher_;
  std::unique_ptr<Scheduler> sched_;
  std::unique_ptr<Api> api_;
  std::unique_ptr<Dashboard> dash_;
  int reaps_ = 0;
};

TEST_F(DashboardPagesTest, StoreTextIsEscapedAndTheJobPageWorksWithoutScript) {
  ApiResponse list = get("/dashboard");
  EXPECT_EQ(list.status, 200);
  EXPECT_EQ(list.body.find("<script>alert"), std::string::npos) << list.body;
  EXPECT_NE(list.body.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(list.headers["Content-Security-Policy"].find("script-src 'self'"), std::string::npos);
  ApiResponse job = get("/dashboard/jobs/job-1");
  EXPECT_EQ(job.status, 200);
  EXPECT_NE(job.body.find("&quot;boom&quot; &amp; &lt;b&gt;bad&lt;/b&gt;"), std::string::npos)
      << job.body;
  EXPECT_NE(job.body.find("step 1 &lt;ok&gt;"), std::string::npos) << "the log, in the HTML";
  EXPECT_NE(job.body.find("data-chart=\"gantt\""), std::string::npos) << "the phase timeline";
  EXPECT_NE(job.body.find("data-finished=\"1\""), std::string::npos) << "nothing to follow";
  EXPECT_EQ(get("/dashboard/jobs/..%2Fx").status, 400);
  EXPECT_EQ(get("/dashboard/jobs/nope").status, 404);
  EXPECT_EQ(get("/dashboard/app.js").content_type.rfind("text/javascript", 0), 0u);
}

TEST_F(DashboardPagesTest, PodDeleteNeedsTheCsrfTokenAndTheSameOrigin) {
  ApiResponse pods = get("/dashboard/pods");
  ASSERT_EQ(pods.status, 200);
  EXPECT_NE(pods.body.find("name=\"csrf\" value=\"" + dash_->csrf_token() + "\""),
            std::string::npos)
      << pods.body;
  EXPECT_EQ(dash_->csrf_token().size(), 64u);
  EXPECT_EQ(post_delete("", "").status, 403);
  EXPECT_EQ(post_delete(std::string(64, '0'), "").status, 403);
  EXPECT_EQ(post_delete(dash_->csrf_token(), "http://evil.example").status, 403);
  EXPECT_EQ(reaps_, 0) << "nothing was deleted";
  ApiResponse ok = post_delete(dash_->csrf_token(), "http://127.0.0.1:8080");
  EXPECT_EQ(ok.status, 303);
  EXPECT_EQ(reaps_, 1) << "a pod whose job is not running goes to the reconcile pass";
  EXPECT_NE(ok.headers["Location"].find("deleted%20%28confirmed%29"), std::string::npos)
      << ok.headers["Location"];
}

// The report page (issue 34) is the report's own document with the dashboard's navigation bar.
TEST_F(DashboardPagesTest, TheReportPageKeepsTheNavigation) {
  ApiResponse r = get("/dashboard/jobs/job-1/report");
  ASSERT_EQ(r.status, 200) << r.body;
  const size_t nav = r.body.find("<nav><b>burstd</b> <a href=\"/dashboard\">jobs</a>");
  ASSERT_NE(nav, std::string::npos) << r.body;
  EXPECT_LT(r.body.find("<body>"), nav);
  EXPECT_NE(r.body.find("href=\"/dashboard/pods\""), std::string::npos);
  // One pod, one name on the page: the provider's id (the timeline's title used burst's name).
  EXPECT_NE(r.body.find("gpu pod pod-1 timeline"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("burst-x-job-1"), std::string::npos) << r.body;
}

// Item progress (issue 34): every worker's latest "BURST_PROGRESS d/t" in the log, summed, as the
// live status line counts it; a line that is not a report, or a bad one, counts nothing.
TEST_F(DashboardPagesTest, TheJobPageShowsItemsDoneFromTheWorkersReports) {
  std::ofstream(dir_.path() + "/job-1.log") << "[w0] BURST_PROGRESS 3/10\n"
                                               "[w1] BURST_PROGRESS 5/10\n"
                                               "[w0] BURST_PROGRESS 4/10\n"
                                               "[w1] BURST_PROGRESS 11/10\n"
                                               "echo BURST_PROGRESS 9/10\n";
  ApiResponse job = get("/dashboard/jobs/job-1");
  ASSERT_EQ(job.status, 200);
  EXPECT_NE(job.body.find("<th>items done</th><td id=\"job-items\">9 of 20 (45%)</td>"),
            std::string::npos)
      << job.body;
  std::ofstream(dir_.path() + "/job-1.log") << "no reports\n";
  EXPECT_EQ(get("/dashboard/jobs/job-1").body.find("items done"), std::string::npos);
}

// The cancel button (issue 34): a form with the token, refused without it or from another origin;
// with both, the job is cancelled as `burst cancel` does it (a queued job is dropped) and the
// browser goes back to the job's page. The queued page says why it waits in the CLI's words.
TEST_F(DashboardPagesTest, CancelNeedsTheCsrfTokenAndTheSameOriginThenCancels) {
  PipelineSpec spec;
  spec.name = "later";
  spec.run = "true";
  const std::string id = sched_->submit(spec, "submitted");
  ASSERT_FALSE(id.empty());
  ApiResponse page = get("/dashboard/jobs/" + id);
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("waiting for a free slot (0 running)"), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("action=\"/dashboard/jobs/cancel\""), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("name=\"csrf\" value=\"" + dash_->csrf_token() + "\""),
            std::string::npos);
  auto post_cancel = [&](const std::string& csrf, const std::string& origin) {
    ApiRequest r;
    r.method = "POST";
    r.path = "/dashboard/jobs/cancel";
    r.query = {{"job", id}};
    if (!csrf.empty()) r.query["csrf"] = csrf;
    r.headers["host"] = "127.0.0.1:8080";
    if (!origin.empty()) r.headers["origin"] = origin;
    return *dash_->handle(r);
  };
  EXPECT_EQ(post_cancel("", "http://127.0.0.1:8080").status, 403);
  EXPECT_EQ(post_cancel(dash_->csrf_token(), "http://127.0.0.1:7860").status, 403);
  EXPECT_EQ(post_cancel(dash_->csrf_token(), "null").status, 403);
  ASSERT_EQ(sched_->jobs().size(), 1u) << "nothing was cancelled";
  ApiResponse ok = post_cancel(dash_->csrf_token(), "http://127.0.0.1:8080");
  EXPECT_EQ(ok.status, 303);
  EXPECT_EQ(ok.headers["Location"], "/dashboard/jobs/" + id);
  EXPECT_TRUE(sched_->jobs().empty());
  EXPECT_EQ(post_cancel(dash_->csrf_token(), "http://127.0.0.1:8080").status, 404);
}

// One sentence for why a queued job waits, used by the dashboard, the API and `burst status`.
TEST(WaitReason, CapThenPipelineThenSlots) {
  JobView queued{"j2", "p", JobState::kQueued, "submitted", 0, ""};
  const JobView running{"j1", "p", JobState::kRunning, "submitted", 0, ""};
  const JobView other{"j0", "q", JobState::kRunning, "submitted", 0, ""};
  EXPECT_EQ(wait_reason(queued, {other, queued}), "waiting for a free slot (1 running)");
  EXPECT_EQ(wait_reason(queued, {other, running, queued}),
            "its pipeline is running already (no overlap)");
  queued.held_by = "the team's monthly cap ($100.00, $99.50 spent)";
  EXPECT_EQ(wait_reason(queued, {other, running, queued}),
            "waiting for the team's monthly cap ($100.00, $99.50 spent)");
  EXPECT_EQ(wait_reason(running, {running}), "");
}

// With the right token, the request must still prove it comes from the dashboard's own origin:
// an Origin naming it (not absent, not "null" as a sandboxed frame or a data: page sends, not
// another port of the same host) and, where the browser says, Sec-Fetch-Site same-origin.
TEST_F(DashboardPagesTest, PodDeleteRefusesOriginNullNoOriginAnotherPortAndSameSite) {
  const std::string token = dash_->csrf_token();
  EXPECT_EQ(post_delete(token, "null").status, 403) << "Origin: null";
  EXPECT_EQ(post_delete(token, "").status, 403) << "no Origin";
  EXPECT_EQ(post_delete(token, "http://127.0.0.1:7860").status, 403) << "another port";
  EXPECT_EQ(post_delete(token, "http://127.0.0.1:8080", "same-site").status, 403)
      << "Sec-Fetch-Site: same-site (a page on another port)";
  EXPECT_EQ(reaps_, 0) << "nothing was deleted";
  EXPECT_EQ(post_delete(token, "http://127.0.0.1:8080", "same-origin").status, 303);
  EXPECT_EQ(reaps_, 1);
}

// Over a session (`burst dashboard`, the TCP login) every link, form and redirect of the pages
// stays under the session's prefix, and no page links to the /v1 API.
TEST_F(DashboardPagesTest, ASessionsLinksFormsAndRedirectsStayUnderItsPrefix) {
  const std::string base = "/s/0123456789abcdef0123456789abcdef";
  auto in_session = [&](const std::string& method, const std::string& path) {
    ApiRequest r;
    r.method = method;
    r.path = path;
    r.dashboard_base = base;
    return *dash_->handle(r);
  };
  ApiResponse job = in_session("GET", "/dashboard/jobs/job-1");
  ASSERT_EQ(job.status, 200);
  EXPECT_NE(job.body.find("href=\"" + base + "/dashboard/style.css\""), std::string::npos);
  EXPECT_NE(job.body.find("src=\"" + base + "/dashboard/app.js\""), std::string::npos);
  EXPECT_NE(job.body.find("href=\"" + base + "/metrics\""), std::string::npos);
  EXPECT_NE(job.body.find("data-src=\"" + base + "/dashboard/jobs/job-1/log\""), std::string::npos);
  EXPECT_EQ(job.body.find("=\"/dashboard"), std::string::npos) << "a link outside the session";
  EXPECT_EQ(job.body.find("/v1/"), std::string::npos) << job.body;
  EXPECT_NE(job.body.find("href=\"" + base + "/dashboard/jobs/job-1/report.json\""),
            std::string::npos);
  ApiResponse json = in_session("GET", "/dashboard/jobs/job-1/report.json");
  EXPECT_EQ(json.status, 200);
  EXPECT_EQ(json.content_type, "application/json");
  EXPECT_EQ(json.body, "{\"job\": \"job-1\"}\n");
  ApiResponse pods = in_session("GET", "/dashboard/pods");
  EXPECT_NE(pods.body.find("action=\"" + base + "/dashboard/pods/delete\""), std::string::npos);
  EXPECT_EQ(in_session("GET", "/").headers["Location"], base + "/dashboard");
  // A base that is not a session prefix changes nothing (it is never echoed into a page).
  ApiRequest odd;
  odd.method = "GET";
  odd.path = "/dashboard";
  odd.dashboard_base = "/s/\"><script>";
  EXPECT_EQ(dash_->handle(odd)->body.find("<script>"), std::string::npos);
}

// The <svg> whose data-chart is `kind`, or "".
std::string pages_chart_of(const std::string& html, const std::string& kind) {
  const size_t at = html.find("data-chart=\"" + kind + "\"");
  if (at == std::string::npos) return "";
  const size_t open = html.rfind("<svg", at), close = html.find("</svg>", at);
  return html.substr(open, close + 6 - open);
}

size_t pages_count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(DashboardPagesTest, PipelinePageChartsEstimateVsActualAndUtilizationPerRun) {
  const int64_t day = 86400000, base = 1762776000000;  // 2025-11-10T12:00:00Z
  for (int i = 0; i < 3; ++i) {
    HistoryJob h;
    h.id = "run-" + std::to_string(i);
    h.pipeline = "nightly";
    h.provider = "local";
    h.start_ms = base + i * day;
    h.phases = full_phases(600 + 60 * i);
    h.estimate_json = estimate(0.5, 900, 600, 0.7);
    record_history(*store_, h);
  }
  HistoryJob failed;  // stopped early: did not do the estimated work, so it is not charted
  failed.id = "run-failed";
  failed.pipeline = "nightly";
  failed.state = JobState::kFailed;
  failed.start_ms = base + 3 * day;
  failed.phases = full_phases(30);
  failed.outcomes = {{"run", "failed"}};
  failed.error = "run: exit 1";
  record_history(*store_, failed);

  ApiResponse page = get("/dashboard/pipeline", {{"name", "nightly"}});
  ASSERT_EQ(page.status, 200);
  const std::string money = pages_chart_of(page.body, "runs-estimate");
  ASSERT_FALSE(money.empty()) << page.body;
  EXPECT_EQ(pages_count_of(money, "<circle"), 6u) << "three runs, two series";
  EXPECT_EQ(pages_count_of(money, "<title>estimate 11-10 12:00: $0.5000</title>"), 1u) << money;
  EXPECT_EQ(pages_count_of(money, "<title>estimate "), 3u);
  EXPECT_EQ(pages_count_of(money, "<title>actual "), 3u);
  EXPECT_NE(money.find(">run (start, UTC)</text>"), std::string::npos) << "x axis title";
  EXPECT_NE(money.find(">cost per run, US $</text>"), std::string::npos) << "y axis title";
  EXPECT_NE(money.find(">11-12 12:00</text>"), std::string::npos) << "the last run's label";

  const std::string util = pages_chart_of(page.body, "runs-utilization");
  ASSERT_FALSE(util.empty()) << page.body;
  EXPECT_EQ(pages_count_of(util, "<title>utilization "), 3u) << util;
  EXPECT_EQ(pages_count_of(util, "<circle"), 3u) << "the target line has no points";
  EXPECT_NE(util.find("stroke-dasharray"), std::string::npos) << "the 70% line is dashed";
  EXPECT_NE(util.find("class=\"ref\" fill=\"#c33\">70% target</text>"), std::string::npos) << util;
  EXPECT_NE(util.find(">utilization, %</text>"), std::string::npos) << "y axis title";
  EXPECT_NE(util.find(">run (start, UTC)</text>"), std::string::npos) << "x axis title";
  EXPECT_NE(util.find(">100%</text>"), std::string::npos) << "y labels in %";
  // run-0: 600 s of compute over 740 s of billed GPU time (provision to GPU delete).
  EXPECT_NE(util.find("<title>utilization 11-10 12:00: 81.1%</title>"), std::string::npos) << util;

  // The table states what each run's report states.
  auto report = build_job_report(*store_, "run-2", from_unix_ms(base + 3 * day));
  ASSERT_TRUE(report.ok());
  EXPECT_NE(page.body.find(dash_usd(report->total_usd)), std::string::npos);
  EXPECT_NE(page.body.find("href=\"/dashboard/jobs/run-2\""), std::string::npos);
  EXPECT_EQ(page.body.find("run-failed"), std::string::npos) << "a failed run is not charted";
}

TEST_F(DashboardPagesTest, PipelineWithoutFinishedRunsSaysSoInsteadOfAnEmptyChart) {
  // The fixture's one job of this (hostile) pipeline failed.
  ApiResponse page = get("/dashboard/pipeline", {{"name", "<script>alert(1)</script>"}});
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("id=\"no-runs\""), std::string::npos) << page.body;
  EXPECT_EQ(page.body.find("<svg"), std::string::npos) << "no empty chart";
  EXPECT_EQ(page.body.find("<script>alert"), std::string::npos) << "escaped";
  EXPECT_NE(page.body.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  ApiResponse job = get("/dashboard/jobs/job-1");
  EXPECT_NE(
      job.body.find("href=\"/dashboard/pipeline?name=%3Cscript%3Ealert%281%29%3C%2Fscript%3E\""),
      std::string::npos)
      << "the job links to its pipeline's runs";
  EXPECT_EQ(get("/dashboard/pipeline").status, 400);
}

}  // namespace
}  // namespace burst::daemon
