// Per-job cost reports built from recorded histories in a temp SQLite store: totals to the cent
// for success, failure mid-run, cancellation, a budget stop and a job that never created a pod;
// each recommendation's trigger at and below its threshold; the renderings.
#include "report/job_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <vector>

#include "fakes/temp_dir.h"
#include "report/job_history.h"
#include "report/recommendations.h"
#include "report/report_fixture.h"

namespace burst {
namespace {

class ReportTest : public ReportFixture {};

// A warm volume's timed read (job/volume_read.h) is listed with the transfers but moved no data to
// or from the pod: neither synced nor pulled.
TEST_F(ReportTest, AWarmVolumeReadIsNeitherSyncedNorPulled) {
  HistoryJob h = success(3000);
  record_history(*store_, h);
  ASSERT_TRUE(store_->add_transfer({h.id, "volume-read", 1, 268'435'456, 300}).ok());
  auto r = build_job_report(*store_, h.id, from_unix_ms(h.start_ms + 86400000));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->bytes_synced, 12345);
  EXPECT_EQ(r->bytes_pulled, 6789);
  bool listed = false;
  for (const TransferRecord& t : r->transfers) listed |= t.direction == "volume-read";
  EXPECT_TRUE(listed);
}

TEST_F(ReportTest, SuccessPricesEachPodFromItsCapturedPriceToTheCent) {
  JobReport r = report(success(3000));
  ASSERT_EQ(r.pods.size(), 2u);
  // GPU pod: provision .. delete-gpu-pod = 60+30+10+20+3000+15+5 = 3140 s at $2.99/h.
  EXPECT_DOUBLE_EQ(r.pods[0].billed_s, 3140);
  EXPECT_EQ(cents(r.pods[0].usd), 261);  // $2.6079
  // CPU hand-off: 20+30+5 = 55 s at $0.12/h = $0.0018.
  EXPECT_DOUBLE_EQ(r.pods[1].billed_s, 55);
  EXPECT_NEAR(r.cpu_usd, 0.0018333, 1e-6);
  EXPECT_EQ(cents(r.total_usd), 261);
  EXPECT_EQ(r.outcome, "succeeded");
  EXPECT_FALSE(r.no_pod);
  EXPECT_DOUBLE_EQ(r.compute_s, 3000);
  EXPECT_DOUBLE_EQ(r.cold_start_s, 110);
  ASSERT_TRUE(r.utilization);
  EXPECT_NEAR(*r.utilization, 3000.0 / 3140, 1e-9);
  EXPECT_EQ(r.bytes_synced, 12345);
  EXPECT_EQ(r.bytes_pulled, 6789);
  // Estimate $2.50 vs $2.6097: +4.4%; run 2900 s vs 3000 s: +3.4%.
  ASSERT_TRUE(r.usd_error_pct && r.run_error_pct && r.gpu_time_error_pct);
  EXPECT_NEAR(*r.usd_error_pct, (r.total_usd - 2.5) / 2.5 * 100, 1e-9);
  EXPECT_NEAR(*r.run_error_pct, 100.0 / 2900 * 100, 1e-9);
  EXPECT_NEAR(*r.gpu_time_error_pct, 140.0 / 3000 * 100, 1e-9);
  ASSERT_TRUE(r.budget_used_pct);
  EXPECT_NEAR(*r.budget_used_pct, r.total_usd / 10 * 100, 1e-9);
  EXPECT_TRUE(r.recommendations.empty()) << r.recommendations[0].text;
}

TEST_F(ReportTest, PerMinuteBillingRoundsEachPodUpAsRecordedAtCreation) {
  HistoryJob h = success(5);  // GPU pod alive 145 s -> 3 minutes on Lambda
  h.provider = "lambda";
  h.gpu_usd_per_hour = 1.20;
  JobReport r = report(h);
  EXPECT_DOUBLE_EQ(r.pods[0].lifetime_s, 145);
  EXPECT_DOUBLE_EQ(r.pods[0].billed_s, 180);
  EXPECT_EQ(cents(r.pods[0].usd), 6);        // 180 s x $1.20/h = $0.06
  EXPECT_DOUBLE_EQ(r.pods[1].billed_s, 60);  // 55 s of CPU pod: one minute
  EXPECT_DOUBLE_EQ(r.rounding_s, 35 + 5);
}

TEST_F(ReportTest, FailureMidRunCostsWhatThePodBilledAndHasNoEstimateError) {
  HistoryJob h = success(100);
  h.phases = {{"plan", 1},  {"provision", 60}, {"wait-for-ssh", 30},  {"sync", 10}, {"setup", 20},
              {"run", 100}, {"pull", 15},      {"delete-gpu-pod", 5}, {"report", 0}};
  h.outcomes = {{"run", "failed"}};
  h.state = JobState::kFailed;
  h.error = "run: exited with status 3";
  JobReport r = report(h);
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_DOUBLE_EQ(r.pods[0].billed_s, 240);
  EXPECT_EQ(cents(r.total_usd), 20);  // 240 s x $2.99/h = $0.1993
  EXPECT_EQ(r.outcome, "failed");
  EXPECT_FALSE(r.usd_error_pct) << "a job that stopped early did not do the estimated work";
  EXPECT_FALSE(has(r, "low-utilization"));
}

TEST_F(ReportTest, CancelledJobAppearsWithItsCost) {
  HistoryJob h = success(50);
  h.phases = {{"plan", 1},   {"provision", 60}, {"wait-for-ssh", 30},  {"sync", 10},
              {"setup", 20}, {"run", 50},       {"delete-gpu-pod", 5}, {"report", 0}};
  h.outcomes = {{"run", "interrupted"}};
  h.state = JobState::kInterrupted;
  h.error = "run: interrupted";
  JobReport r = report(h);
  EXPECT_EQ(r.outcome, "cancelled");
  EXPECT_DOUBLE_EQ(r.pods[0].billed_s, 175);
  EXPECT_EQ(cents(r.total_usd), 15);  // 175 s x $2.99/h = $0.1453
}

TEST_F(ReportTest, BudgetStopIsNamedAndRecommendsRaisingTheLimit) {
  HistoryJob h = success(300);
  h.phases = {{"plan", 1},  {"provision", 60}, {"wait-for-ssh", 30},  {"sync", 10}, {"setup", 20},
              {"run", 300}, {"pull", 15},      {"delete-gpu-pod", 5}, {"report", 0}};
  h.outcomes = {{"run", "failed"}};
  h.state = JobState::kFailed;
  h.error = "run: exceeded budget.max_runtime (300 s); stopped";
  h.facts.max_runtime_s = 300;
  JobReport r = report(h);
  EXPECT_EQ(r.outcome, "budget-stop");
  EXPECT_EQ(cents(r.total_usd), 37);  // 440 s x $2.99/h = $0.3654
  ASSERT_TRUE(has(r, "budget-stop"));
  EXPECT_NE(r.recommendations[0].text.find("budget.max_runtime (300 s) after 300 s"),
            std::string::npos)
      << r.recommendations[0].text;
}

// A budget stop is the runner's typed fact (JobRecord::stop), not the error's words: a program
// whose failure quotes "stopped by budget" failed; a max_runtime stop whose error says only the
// exit status is a budget stop. A job recorded before the fact was kept reads its words (above).
TEST_F(ReportTest, ABudgetStopIsTheTypedStopNotTheErrorsWords) {
  const std::vector<std::tuple<std::optional<JobStop>, std::string, std::string>> cases = {
      {JobStop::kNone, "run: exit status 1: the log says stopped by budget.max_runtime", "failed"},
      {JobStop::kMaxRuntime, "run: exit status 137", "budget-stop"},
      {JobStop::kMoneyCap, "run: stopped by budget: accrued $0.51 would cross cap $0.50",
       "budget-stop"},
      {JobStop::kDeadline, "sync: stopped: budget.deadline (20 s) reached", "failed"},
      {std::nullopt, "run: exceeded budget.max_runtime (300 s); stopped", "budget-stop"}};
  int n = 0;
  for (const auto& [stop, error, outcome] : cases) {
    HistoryJob h = success(300);
    h.id = "20261110-120000-000" + std::to_string(++n);
    h.outcomes = {{"run", "failed"}};
    h.state = JobState::kFailed;
    h.error = error;
    h.stop = stop;
    h.facts.max_runtime_s = 300;
    JobReport r = report(h);
    EXPECT_EQ(r.outcome, outcome) << error;
    EXPECT_EQ(has(r, "budget-stop"), outcome == "budget-stop") << error;
    if (stop == JobStop::kMoneyCap) {
      EXPECT_NE(r.recommendations[0].text.find("the job was stopped by budget: accrued $0.51"),
                std::string::npos)
          << r.recommendations[0].text;
    }
  }
}

TEST_F(ReportTest, JobThatNeverCreatedAPodCostsZeroAndIsMarked) {
  HistoryJob none;
  none.id = "20261110-130000-0002";
  none.phases = {{"plan", 1}, {"provision", 2}, {"delete-gpu-pod", 1}, {"report", 0}};
  none.outcomes = {{"provision", "failed"}};
  none.gpu_create_fails = true;
  none.state = JobState::kFailed;
  none.error = "provision: no capacity";
  JobReport r = report(none);
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].usd, 0);
  EXPECT_EQ(r.total_usd, 0);
  EXPECT_TRUE(r.no_pod);
  ASSERT_TRUE(has(r, "no-pod"));
  EXPECT_EQ(r.recommendations[0].text,
            "cost $0: the job never created a pod (provision: no "
            "capacity)");

  HistoryJob planned_only;  // the plan failed: no pod row at all
  planned_only.id = "20261110-140000-0003";
  planned_only.phases = {{"plan", 1}, {"report", 0}};
  planned_only.state = JobState::kFailed;
  JobReport p = report(planned_only);
  EXPECT_TRUE(p.no_pod);
  EXPECT_EQ(p.total_usd, 0);
  EXPECT_FALSE(p.utilization);
  EXPECT_NE(report_markdown(p).find("no pod created: $0"), std::string::npos);
}

TEST_F(ReportTest, LowUtilizationTriggerNamesTheColdStartBelowHalf) {
  // 100 s of run in a 240 s GPU pod: 41.7% < 50%.
  HistoryJob h = success(100);
  JobReport r = report(h);
  ASSERT_TRUE(has(r, "low-utilization"));
  std::string text;
  for (const auto& rec : r.recommendations)
    if (rec.id == "low-utilization") text = rec.text;
  EXPECT_EQ(
      text.rfind("utilization 42% (compute 100 s of 240 s billed): the cold start dominated", 0),
      0u)
      << text;
  // 140 s of run in 280 s: exactly 50%, not below: quiet.
  HistoryJob at = success(140);
  at.id = "20261110-120000-0009";
  EXPECT_FALSE(has(report(at), "low-utilization"));
}

TEST_F(ReportTest, UnderProvisionedWhenTheDeadlineIsMissedWithTheGpuBusyThroughout) {
  // 1260 s of run in a 1400 s GPU pod: 90% busy, and the 1000 s deadline missed.
  HistoryJob h = success(1260);
  h.facts.deadline_s = 1000;
  JobReport r = report(h);
  ASSERT_TRUE(has(r, "under-provisioned"));
  for (const auto& rec : r.recommendations)
    if (rec.id == "under-provisioned") {
      EXPECT_EQ(rec.text.rfind("utilization 90% with the deadline missed (1456 s of 1000 s)", 0),
                0u)
          << rec.text;
      EXPECT_NE(rec.text.find("more workers (resources.max_workers above 1)"), std::string::npos)
          << rec.text;
    }
  HistoryJob below = success(1259);  // 89.99%: not pinned, quiet
  below.id = "20261110-120000-0007";
  below.facts.deadline_s = 1000;
  EXPECT_FALSE(has(report(below), "under-provisioned"));
  HistoryJob met = success(1260);  // pinned but on time: quiet
  met.id = "20261110-120000-0006";
  met.facts.deadline_s = 2000;
  EXPECT_FALSE(has(report(met), "under-provisioned"));
}

TEST_F(ReportTest, CostPerItemWhenTheSpecHasItemsAndTheJobSucceeded) {
  HistoryJob h = success(3000);  // $2.6097 for 300 items
  h.facts.units = 300;
  h.facts.unit_name = "items";
  JobReport r = report(h);
  ASSERT_TRUE(r.usd_per_item);
  EXPECT_NEAR(*r.usd_per_item, r.total_usd / 300, 1e-12);
  EXPECT_EQ(r.items, 300);
  EXPECT_NE(report_markdown(r).find("Cost per item: $0.008699 per item (300 items)."),
            std::string::npos)
      << report_markdown(r);
  EXPECT_NE(report_summary(r).find(", $0.008699 per item (300 items)\n"), std::string::npos)
      << report_summary(r);
  EXPECT_NE(report_html(r).find("<td>cost per item</td><td>$0.008699 per item (300 items)</td>"),
            std::string::npos);
  auto j = nlohmann::json::parse(report_json(r));
  EXPECT_NEAR(j["actual"]["usd_per_item"].get<double>(), r.total_usd / 300, 1e-12);

  HistoryJob failed = h;  // stopped early: the items were not all done
  failed.id = "20261110-120000-0005";
  failed.state = JobState::kFailed;
  failed.outcomes = {{"run", "failed"}};
  EXPECT_FALSE(report(failed).usd_per_item);
  HistoryJob tokens = success(3000);  // a token count is no item count
  tokens.id = "20261110-120000-0004";
  tokens.facts.units = 1e6;
  tokens.facts.unit_name = "tokens";
  EXPECT_FALSE(report(tokens).usd_per_item);
  HistoryJob none = success(3000);  // no items at all
  none.id = "20261110-120000-0003";
  EXPECT_EQ(report_summary(report(none)).find("per item"), std::string::npos);
}

TEST_F(ReportTest, DeadlineSlackTriggerAtFortyPercent) {
  HistoryJob h = success(3000);  // wall 3196 s
  h.facts.deadline_s = 5327;     // 1 - 3196 / 5327 = 40.004% slack
  JobReport r = report(h);
  ASSERT_TRUE(r.deadline_slack_pct);
  EXPECT_NEAR(*r.deadline_slack_pct, 40.004, 1e-3);
  EXPECT_TRUE(has(r, "deadline-slack"));
  HistoryJob tight = success(3000);
  tight.id = "20261110-120000-0008";
  tight.facts.deadline_s = 5320;  // 39.92% slack
  EXPECT_FALSE(has(report(tight), "deadline-slack"));
}

TEST_F(ReportTest, BudgetNearAndEstimateOffTriggers) {
  HistoryJob h = success(3000);                        // $2.6097
  h.facts.budget_usd = 2.80;                           // 93% used
  h.estimate_json = estimate(1.70, 3000, 2900, 0.95);  // +53.5%
  JobReport r = report(h);
  EXPECT_TRUE(has(r, "budget-near"));
  EXPECT_TRUE(has(r, "estimate-off"));
  HistoryJob ok = success(3000);
  ok.id = "20261110-120000-0007";
  ok.facts.budget_usd = 2.95;                           // 88%
  ok.estimate_json = estimate(2.20, 3000, 2900, 0.95);  // +19%: within 25% on every row
  JobReport q = report(ok);
  EXPECT_FALSE(has(q, "budget-near"));
  EXPECT_FALSE(has(q, "estimate-off"));
}

// The recommendation comes from the table the report shows: the cost close to plan but the GPU
// time far over it is "estimate-off", never "None: the job ran as planned" (issue 34: a report
// said so next to GPU time +339%).
TEST_F(ReportTest, EstimateOffFollowsEveryRowOfTheTableNotOnlyTheCost) {
  HistoryJob h = success(3000);
  h.estimate_json = estimate(2.50, 728, 2900, 0.95);  // cost +4%; GPU billed 728 s planned
  JobReport r = report(h);
  ASSERT_TRUE(r.gpu_time_error_pct);
  EXPECT_GT(*r.gpu_time_error_pct, 300);
  EXPECT_TRUE(has(r, "estimate-off"));
  const std::string md = report_markdown(r);
  EXPECT_NE(md.find("the GPU billed time was +"), std::string::npos) << md;
  EXPECT_EQ(md.find("ran as planned"), std::string::npos) << md;
  HistoryJob close = success(3000);
  close.id = "20261110-120000-0009";
  close.estimate_json = estimate(2.50, 3100, 2900, 0.95);  // every row within 25%
  const std::string calm = report_markdown(report(close));
  EXPECT_NE(calm.find("None: the job ran as planned."), std::string::npos) << calm;
}

TEST_F(ReportTest, UnconfirmedDeletionBillsUntilNowAndSaysReap) {
  HistoryJob h = success(100);
  h.leave_gpu_alive = true;
  JobReport r = report(h);
  EXPECT_FALSE(r.pods[0].confirmed_deleted);
  EXPECT_DOUBLE_EQ(r.pods[0].billed_s, 86399);  // created 1 s in; as of a day after the start
  EXPECT_TRUE(has(r, "deletion-unconfirmed"));
}

TEST_F(ReportTest, RenderingsCarryTheSameNumbers) {
  HistoryJob h = success(3000);
  h.facts.deadline_s = 7200;
  JobReport r = report(h);
  auto j = nlohmann::json::parse(report_json(r));
  EXPECT_EQ(j["job"]["outcome"], "succeeded");
  EXPECT_EQ(j["job"]["gpu_type"], "H100_SXM");
  EXPECT_EQ(j["price"]["source"], "live offer");
  EXPECT_EQ(cents(j["actual"]["usd"].get<double>()), 261);
  EXPECT_EQ(j["recommendations"][0]["id"], "deadline-slack");
  EXPECT_EQ(j["phases"][5]["pod"], "gpu");
  const std::string md = report_markdown(r);
  EXPECT_NE(md.find("| **total** | | | | **$2.61** | |"), std::string::npos) << md;
  EXPECT_NE(md.find("1 x H100_SXM at $2.99/h (live offer, billed per second)"), std::string::npos);
  const std::string html = report_html(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("data-chart=\"gantt\""), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"cost-breakdown\""), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"))
      << "no external asset: the only URL is the SVG namespace";
}

TEST_F(ReportTest, HtmlEscapesWhatTheStoreHolds) {
  HistoryJob h = success(100);
  h.pipeline = "<img src=x onerror=alert(1)>";
  JobReport r = report(h);
  const std::string html = report_html(r);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
}

TEST_F(ReportTest, OldJobsWithoutFactsStillReport) {
  JobRecord job;
  job.id = "old";
  job.pipeline = "p";
  job.state = JobState::kSucceeded;
  job.phase = Phase::kReport;
  job.provider = "runpod";
  job.created_ms = 1000;
  job.finished_ms = 61000;
  ASSERT_TRUE(store_->create_job(job).ok());
  PodRecord p;
  p.job_id = "old";
  p.role = "gpu";
  p.usd_per_hour = 3.6;
  p.state = PodRecordState::kDeleted;
  p.created_ms = 1000;
  p.deleted_ms = 11500;  // 10.5 s: unrounded without a recorded rule
  ASSERT_TRUE(store_->add_pod(p).ok());
  auto r = build_job_report(*store_, "old", from_unix_ms(61000));
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->pods[0].billed_s, 10.5);
  EXPECT_NEAR(r->total_usd, 0.0105, 1e-12);
}

// The hand-off choice is a recorded fact of the job (report/job_facts.h), never read back out of
// a phase's text: a job that failed before its upload still says where the upload would have run
// and why, and a job whose upload ran says how it went.
TEST_F(ReportTest, HandoffComesFromTheJobsRecordedFacts) {
  const std::string why = "upload from this machine after the delete: $0.0000 (GPU pod $0.0310)";
  HistoryJob failed;
  failed.id = "failed-before-upload";
  failed.provider = "lambda";
  failed.phases = {{"plan", 1},   {"provision", 60}, {"wait-for-ssh", 30},  {"sync", 10},
                   {"setup", 20}, {"run", 30},       {"delete-gpu-pod", 5}, {"report", 0}};
  failed.outcomes = {{"run", "failed"}};
  failed.state = JobState::kFailed;
  failed.error = "run: exit 1";
  failed.facts.handoff = "local";
  failed.facts.handoff_why = why;
  JobReport r = report(failed);
  EXPECT_EQ(r.handoff, "local");
  EXPECT_EQ(r.handoff_why, why);
  EXPECT_EQ(r.handoff_outcome, "");
  auto j = nlohmann::json::parse(report_json(r));
  EXPECT_EQ(j["handoff"]["where"], "local");
  EXPECT_EQ(j["handoff"]["why"], why);
  EXPECT_EQ(j["handoff"]["upload"], "not run");

  HistoryJob ran = failed;
  ran.id = "uploaded";
  ran.state = JobState::kSucceeded;
  ran.error = "";
  ran.outcomes = {};
  ran.phases = {
      {"plan", 1},           {"provision", 60}, {"wait-for-ssh", 30}, {"sync", 10},
      {"setup", 20},         {"run", 30},       {"pull", 5},          {"upload-on-gpu-pod", 9},
      {"delete-gpu-pod", 5}, {"report", 0}};
  ran.facts.handoff = "gpu-pod";
  ran.facts.handoff_why = "upload from the GPU pod before its delete";
  JobReport u = report(ran);
  EXPECT_EQ(u.handoff, "gpu-pod");
  EXPECT_EQ(u.handoff_why, "upload from the GPU pod before its delete");
  EXPECT_EQ(u.handoff_outcome, "ok");
  EXPECT_NE(report_markdown(u).find("hand-off (gpu-pod): upload from the GPU pod before its "
                                    "delete; upload ok"),
            std::string::npos)
      << report_markdown(u);
}

TEST(ReportFacts, HandoffIsRecordedFromThePlanOnlyWhenTheUploadLeavesTheCpuPod) {
  PipelineSpec spec;
  spec.upload = UploadSpec{};
  Plan plan;
  plan.gpu.provider = "lambda";
  HandoffChoice choice;
  choice.where = Handoff::kLocal;
  choice.why = "upload from this machine after the delete";
  plan.handoff = choice;
  ReportFacts f = report_facts_from_json(report_facts_to_json(report_facts_from_plan(spec, plan)));
  EXPECT_EQ(f.handoff, "local");
  EXPECT_EQ(f.handoff_why, "upload from this machine after the delete");
  plan.handoff->where = Handoff::kCpuPod;
  EXPECT_EQ(report_facts_from_plan(spec, plan).handoff, "") << "a CPU pod is no hand-off choice";
  plan.handoff->where = Handoff::kGpuPod;
  spec.upload.reset();
  EXPECT_EQ(report_facts_from_plan(spec, plan).handoff, "") << "nothing to upload";
  EXPECT_EQ(report_facts_from_json("{}").handoff, "") << "jobs recorded before the fact existed";
}

}  // namespace
}  // namespace burst
