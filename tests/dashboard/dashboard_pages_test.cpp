// The dashboard's pages in-process (daemon/dashboard.h), over an in-memory store: what the store
// holds is escaped (a hostile pipeline name renders as text), the delete form carries the CSRF
// token and a pod delete without it, or from another site's page, is refused before anything is
// deleted; with it, a pod whose job is not running goes to the reconcile pass. The JS-off page
// is complete: the job, its phases and its log are in the HTML burstd sends.
#include <gtest/gtest.h>

#include <fstream>

#include "daemon/api.h"
#include "daemon/dashboard.h"
#include "daemon/scheduler.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"
#include "fakes/temp_dir.h"

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
    j.phase = "run";
    j.provider = "local";
    j.error = "run: \"boom\" & <b>bad</b>";
    j.created_ms = to_unix_ms(clock_.now()) - 60000;
    j.finished_ms = to_unix_ms(clock_.now()) - 1000;
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

  ApiResponse get(const std::string& path) {
    ApiRequest r;
    r.method = "GET";
    r.path = path;
    return *dash_->handle(r);
  }
  ApiResponse post_delete(const std::string& csrf, const std::string& origin) {
    ApiRequest r;
    r.method = "POST";
    r.path = "/dashboard/pods/delete";
    r.query = {{"provider", "local"}, {"pod", "pod-1"}};
    if (!csrf.empty()) r.query["csrf"] = csrf;
    r.headers["host"] = "127.0.0.1:8080";
    if (!origin.empty()) r.headers["origin"] = origin;
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

}  // namespace
}  // namespace burst::daemon
