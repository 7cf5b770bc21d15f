// Webhook notifications: a Slack- and Discord-compatible body, retries through api_call, the
// URL (a secret) never in an error, and the pipeline's own webhook winning over the global one.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "app/webhook.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_http_client.h"
#include "fakes/temp_dir.h"
#include "registry.h"
#include "report/job_history.h"

namespace burst {
namespace {

constexpr const char* kUrl = "https://hooks.slack.com/services/T000/B000/tok3n-secret";

class WebhookReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_sqlite_store(dir_.path() + "/burst.db");
    ASSERT_TRUE(s.ok());
    store_ = std::move(s).value();
    HistoryJob h;
    h.phases = full_phases(3000);
    h.estimate_json = estimate(2.50, 3000, 2900, 0.95);
    record_history(*store_, h);
    auto r = build_job_report(*store_, h.id, from_unix_ms(h.start_ms + 86400000));
    ASSERT_TRUE(r.ok());
    report_ = *r;
  }
  TempDir dir_;
  std::unique_ptr<Store> store_;
  JobReport report_;
};

TEST_F(WebhookReportTest, PostsTextAndContentFieldsWithTheNumbers) {
  FakeHttpClient http;
  http.respond(200, "ok");
  FakeClock clock;
  ASSERT_TRUE(notify_webhook(http, clock, kUrl, report_).ok());
  ASSERT_EQ(http.requests().size(), 1u);
  const HttpRequest& req = http.requests()[0];
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.url, kUrl);
  EXPECT_EQ(req.headers.at("Content-Type"), "application/json");
  auto body = nlohmann::json::parse(req.body);
  EXPECT_EQ(body["text"],
            "burst: job 20261110-120000-0001 (tts-render) succeeded in 53.3 min, cost $2.61 "
            "(estimate $2.50) on runpod H100_SXM");
  EXPECT_EQ(body["content"], body["text"]);
  EXPECT_EQ(body["outcome"], "succeeded");
  EXPECT_EQ(cents(body["usd"].get<double>()), 261);
}

TEST_F(WebhookReportTest, RetriesServerErrorsThenSucceeds) {
  FakeHttpClient http;
  http.respond(503).fail(ErrorCode::kTimeout, "timed out").respond(200);
  FakeClock clock;
  EXPECT_TRUE(notify_webhook(http, clock, kUrl, report_).ok());
  EXPECT_EQ(http.requests().size(), 3u);
}

TEST_F(WebhookReportTest, FailureIsAnErrorWithoutTheUrl) {
  FakeHttpClient http;
  for (int i = 0; i < 6; ++i) http.respond(500, "down");
  FakeClock clock;
  Status st = notify_webhook(http, clock, kUrl, report_);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message.find("tok3n-secret"), std::string::npos) << st.error().message;
  EXPECT_EQ(st.error().message.find("/services/"), std::string::npos) << st.error().message;
  EXPECT_LE(http.requests().size(), 4u);
}

TEST(WebhookReportConfig, PipelineWebhookWinsOverTheGlobalOne) {
  Config c;
  EXPECT_EQ(webhook_for(c, "p"), "");
  c.notify.webhook = "https://global";
  c.notify.pipelines["train"] = "https://train";
  EXPECT_EQ(webhook_for(c, "p"), "https://global");
  EXPECT_EQ(webhook_for(c, "train"), "https://train");
}

TEST(WebhookReportConfig, ReadFromConfigYamlAndTheEnvironment) {
  TempDir dir;
  dir.write("config.yaml",
            "notify:\n  webhook: https://global/x\n  pipelines:\n    train: https://train/y\n");
  ::chmod((dir.path() + "/config.yaml").c_str(), 0600);  // webhook URLs are secrets
  std::map<std::string, std::string> env{{"BURST_CONFIG_DIR", dir.path()},
                                         {"BURST_STATE_DIR", dir.path() + "/state"}};
  auto c = load_config(env, all_provider_traits());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->notify.webhook, "https://global/x");
  EXPECT_EQ(c->notify.pipelines.at("train"), "https://train/y");
  env["BURST_WEBHOOK_URL"] = "https://env/z";
  auto e = load_config(env, all_provider_traits());
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->notify.webhook, "https://env/z");
  dir.write("config.yaml", "notify:\n  hook: x\n");
  auto bad = load_config(env, all_provider_traits());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("notify.hook: unknown field"), std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace burst
