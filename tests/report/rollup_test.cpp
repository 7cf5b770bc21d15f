// Roll-ups over recorded histories: a month's jobs grouped by pipeline, provider and GPU type
// with totals to the cent, failed and cancelled jobs with their cost, pod-less jobs at $0, the
// trend chart, and rent vs buy from the catalog.
#include "report/rollup.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakes/temp_dir.h"
#include "report/job_history.h"
#include "report/rent_vs_buy.h"

namespace burst {
namespace {

constexpr int64_t kNov10 = 1762776000000 + 365LL * 86400000;  // 2026-11-10T12:00:00Z
constexpr int64_t kDay = 86400000;

class RollupReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_sqlite_store(dir_.path() + "/burst.db");
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_ = std::move(s).value();
    auto c = load_gpu_catalog(dir_.path() + "/no-config");
    ASSERT_TRUE(c.ok()) << c.error().message;
    catalog_ = *c;
  }
  void add(HistoryJob h, const std::string& id, int64_t at) {
    h.id = id;
    h.start_ms = at;
    record_history(*store_, h);
  }
  // Records the month: 2 tts-render on runpod H100 (a success, a failure), 3 train on lambda
  // A100 (a success, a cancellation, a no-pod), and one job each in October and December.
  void record_month() {
    HistoryJob ok;
    ok.phases = full_phases(3000);  // $2.609778
    add(ok, "nov-ok", kNov10);
    HistoryJob failed = ok;
    failed.phases = {{"plan", 1},  {"provision", 60},     {"wait-for-ssh", 30},
                     {"sync", 10}, {"setup", 20},         {"run", 100},
                     {"pull", 15}, {"delete-gpu-pod", 5}, {"report", 0}};  // 240 s: $0.199333
    failed.outcomes = {{"run", "failed"}};
    failed.state = JobState::kFailed;
    failed.error = "run: exited with status 3";
    add(failed, "nov-failed", kNov10 + kDay);
    HistoryJob train = ok;
    train.pipeline = "train";
    train.provider = "lambda";
    train.gpu_type = "A100_80GB";
    train.gpu_usd_per_hour = 1.80;
    train.phases = full_phases(1765);  // GPU 1905 s -> 1920 s billed: $0.96; CPU 60 s: $0.002
    add(train, "nov-train", kNov10 + 2 * kDay);
    HistoryJob cancelled = train;
    cancelled.phases = {{"plan", 1},   {"provision", 60}, {"wait-for-ssh", 30},  {"sync", 10},
                        {"setup", 20}, {"run", 50},       {"delete-gpu-pod", 5}, {"report", 0}};
    cancelled.outcomes = {{"run", "interrupted"}};  // 175 s -> 180 s billed: $0.09
    cancelled.state = JobState::kInterrupted;
    add(cancelled, "nov-cancelled", kNov10 + 3 * kDay);
    HistoryJob none = train;
    none.phases = {{"plan", 1}, {"provision", 2}, {"delete-gpu-pod", 1}, {"report", 0}};
    none.outcomes = {{"provision", "failed"}};
    none.gpu_create_fails = true;
    none.state = JobState::kFailed;
    add(none, "nov-nopod", kNov10 + 4 * kDay);
    add(ok, "oct-ok", kNov10 - 20 * kDay);
    add(ok, "dec-ok", kNov10 + 25 * kDay);
  }
  Rollup november() {
    auto period = parse_period("2026-11");
    EXPECT_TRUE(period.ok());
    RollupOptions opt;
    opt.catalog = &catalog_;
    auto r = build_rollup(*store_, period->first, period->second, "2026-11",
                          from_unix_ms(kNov10 + 30 * kDay), opt);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : Rollup{};
  }
  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::vector<GpuSpec> catalog_;
};

TEST_F(RollupReportTest, MonthTotalsGroupsAndFailedCostToTheCent) {
  record_month();
  Rollup r = november();
  ASSERT_EQ(r.jobs.size(), 5u) << "October and December are outside";
  // 2.609778 + 0.199333 + (0.96 + 0.002) + 0.09 + 0 = 3.861111
  EXPECT_EQ(cents(r.total.usd), 386);
  EXPECT_EQ(r.total.failed, 3);
  EXPECT_EQ(cents(r.total.failed_usd), 29);  // 0.199333 + 0.09 + 0
  EXPECT_EQ(r.total.no_pod, 1);
  ASSERT_EQ(r.by_pipeline.size(), 2u);
  EXPECT_EQ(r.by_pipeline[0].key, "tts-render");  // most expensive first
  EXPECT_EQ(r.by_pipeline[0].runs, 2);
  EXPECT_EQ(cents(r.by_pipeline[0].usd), 281);
  EXPECT_EQ(r.by_pipeline[1].key, "train");
  EXPECT_EQ(cents(r.by_pipeline[1].usd), 105);
  ASSERT_EQ(r.by_provider.size(), 2u);
  EXPECT_EQ(r.by_provider[0].key, "runpod");
  EXPECT_EQ(r.by_provider[1].key, "lambda");
  EXPECT_EQ(r.by_provider[1].failed, 2);
  ASSERT_EQ(r.by_gpu.size(), 2u);
  EXPECT_EQ(r.by_gpu[1].key, "A100_80GB");
  EXPECT_NEAR(r.by_gpu[1].gpu_hours, (1920.0 + 180) / 3600, 1e-9);
  for (const RollupJob& j : r.jobs)
    if (j.id == "nov-nopod") {
      EXPECT_TRUE(j.no_pod);
      EXPECT_EQ(j.usd, 0);
    }
}

TEST_F(RollupReportTest, RenderingsShowTrendFailedJobsAndVerdicts) {
  record_month();
  Rollup r = november();
  auto j = nlohmann::json::parse(rollup_json(r));
  EXPECT_EQ(j["total"]["runs"], 5);
  EXPECT_EQ(j["jobs"].size(), 5u);
  EXPECT_EQ(j["rent_vs_buy"].size(), 2u);
  const std::string md = rollup_markdown(r);
  EXPECT_NE(md.find("- nov-nopod `train` failed, no pod created: $0.00"), std::string::npos) << md;
  EXPECT_NE(md.find("- nov-cancelled `train` cancelled: $0.09"), std::string::npos) << md;
  const std::string html = rollup_html(r);
  EXPECT_NE(html.find("data-chart=\"trend\""), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"cost-by-pipeline\""), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  for (const RentVsBuy& v : r.rent_vs_buy) EXPECT_EQ(v.verdict.rfind("rent: ", 0), 0u) << v.verdict;
}

// Jobs are grouped by their actual state: a running job (with no pod yet, or with one) is listed
// as running, never under "Failed, cancelled and pod-less jobs" (issue 34).
TEST_F(RollupReportTest, ARunningJobIsListedAsRunningNotAsAFailure) {
  record_month();
  JobRecord running;
  running.id = "nov-running";
  running.pipeline = "train";
  running.state = JobState::kRunning;
  running.phase = Phase::kProvision;
  running.created_ms = kNov10 + 5 * kDay;
  ASSERT_TRUE(store_->create_job(running).ok());
  Rollup r = november();
  const std::string md = rollup_markdown(r);
  const size_t failed_at = md.find("## Failed, cancelled and pod-less jobs");
  const size_t running_at = md.find("## Running jobs\n\n- nov-running `train` running: $0.00");
  ASSERT_NE(failed_at, std::string::npos) << md;
  ASSERT_NE(running_at, std::string::npos) << md;
  EXPECT_EQ(md.find("nov-running", failed_at), std::string::npos) << md;
  const std::string html = rollup_html(r);
  const size_t html_failed = html.find("<h2>Failed, cancelled and pod-less jobs</h2>");
  ASSERT_NE(html.find("<h2>Running jobs</h2>"), std::string::npos);
  EXPECT_EQ(html.find("nov-running", html_failed), std::string::npos);
}

TEST_F(RollupReportTest, ARangeIsInclusiveOfItsLastDay) {
  record_month();
  auto since = parse_period("2026-11-11");
  auto until = parse_period("2026-11-12");
  ASSERT_TRUE(since.ok() && until.ok());
  auto r = build_rollup(*store_, since->first, until->second, "x", from_unix_ms(kNov10), {});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->jobs.size(), 2u);
  EXPECT_EQ(r->jobs[0].id, "nov-failed");
  EXPECT_EQ(r->jobs[1].id, "nov-train");
}

TEST(ReportPeriod, ParsesMonthsAndDaysAndRejectsTheRest) {
  auto nov = parse_period("2026-11");
  ASSERT_TRUE(nov.ok());
  EXPECT_EQ(format_utc(from_unix_ms(nov->first)), "2026-11-01T00:00:00Z");
  EXPECT_EQ(format_utc(from_unix_ms(nov->second)), "2026-12-01T00:00:00Z");
  auto dec = parse_period("2026-12");
  ASSERT_TRUE(dec.ok());
  EXPECT_EQ(format_utc(from_unix_ms(dec->second)), "2027-01-01T00:00:00Z");
  for (const char* bad : {"2026-13", "2026-02-30", "26-11", "2026/11", "", "2026-11-5"})
    EXPECT_FALSE(parse_period(bad).ok()) << bad;
}

TEST(ReportRentVsBuy, BreakEvenAndVerdictFromPurchasePricePowerAndLife) {
  GpuSpec h100;
  h100.name = "H100_SXM";
  h100.tdp_w = 700;
  h100.purchase_usd = 30000;
  // capex 30000 / 36 = $833.33/month; power 0.7 kW x $0.15 = $0.105/h; rent $2.99/h:
  // break-even 833.33 / (2.99 - 0.105) = 288.9 h/month.
  RentVsBuy heavy = rent_vs_buy({"H100_SXM", 500, 500 * 2.99, 1, &h100, 0.15, 3});
  ASSERT_TRUE(heavy.breakeven_hours_per_month);
  EXPECT_NEAR(*heavy.breakeven_hours_per_month, 833.3333 / 2.885, 1e-3);
  EXPECT_NEAR(*heavy.own_usd_per_month, 833.3333 + 52.5, 1e-3);
  EXPECT_EQ(heavy.verdict.rfind("buy: 500.0 GPU-h/month is above the break-even of 289 h/month", 0),
            0u)
      << heavy.verdict;
  RentVsBuy light = rent_vs_buy({"H100_SXM", 200, 200 * 2.99, 2, &h100, 0.15, 3});
  EXPECT_EQ(light.verdict.rfind("rent: 100.0 GPU-h/month is below", 0), 0u) << light.verdict;
  GpuSpec unpriced = h100;
  unpriced.purchase_usd.reset();
  EXPECT_NE(rent_vs_buy({"A10G", 10, 10, 1, &unpriced, 0.15, 3}).verdict.find("no purchase price"),
            std::string::npos);
}

// Issue 17: volume storage is billed whether or not a job ran; the month shows a storage line per
// provider, each volume's size x price over the part of the period it existed.
TEST(RollupStorage, AStorageLinePerProviderOverThePartOfThePeriodEachVolumeExisted) {
  auto store = open_sqlite_store(":memory:");
  ASSERT_TRUE(store.ok());
  auto period = parse_period("2026-11");
  ASSERT_TRUE(period.ok());
  const int64_t nov1 = period->first;
  // 100 GB at $0.15 all month (made in October), and 50 GB at $0.07 deleted after 15 days.
  ASSERT_TRUE((*store)
                  ->put_volume({"vast", "cache", "Washington, US (machine 1)", "7", "ready", 100,
                                0.15, nov1 - 5 * kDay, nov1 - 5 * kDay})
                  .ok());
  ASSERT_TRUE((*store)
                  ->put_volume({"runpod", "cache", "US-KS-2", "ab", "deleted", 50, 0.07, nov1,
                                nov1 + 15 * kDay})
                  .ok());
  auto r = build_rollup(**store, period->first, period->second, "2026-11",
                        from_unix_ms(period->second + kDay), {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->storage.size(), 2u);
  EXPECT_EQ(r->storage[0].provider, "runpod");
  EXPECT_NEAR(r->storage[0].usd, 50 * 0.07 * 15 / 30.44, 1e-6);
  EXPECT_EQ(r->storage[1].provider, "vast");
  EXPECT_NEAR(r->storage[1].usd, 100 * 0.15 * 30 / 30.44, 1e-6);
  const std::string md = rollup_markdown(*r);
  EXPECT_NE(md.find("- storage vast: 1 volume(s), 100 GB: $14.78"), std::string::npos) << md;
  EXPECT_NE(md.find("- storage runpod: 1 volume(s), 50 GB: $1.72"), std::string::npos) << md;
}

}  // namespace
}  // namespace burst
