// The report of a wide job (job/worker_fleet.h) as a user reads it: the curve point and one line
// per worker in the terminal summary, the Workers table in the HTML report, and the 70% rule
// (over-provisioned below ~70% overall utilization, naming each worker's). The rows come from a
// recorded wide job in worker_fleet_test.cpp; here the renderings, the rule's threshold and which
// phase rows are a worker's.
#include <gtest/gtest.h>

#include <string>

#include "fakes/temp_dir.h"
#include "report/job_report.h"
#include "report/recommendations.h"

namespace burst {
namespace {

// Four workers of 500 items; `run_s` of each worker's 100 billed seconds was compute.
JobReport wide_report(double run_s) {
  JobReport r;
  r.job.id = "20261126-120000-wide";
  r.job.state = JobState::kSucceeded;
  r.outcome = "succeeded";
  r.estimate.known = true;
  r.estimate.workers = 4;
  r.estimate.total_s = 120;
  r.estimate.usd = 0.40;
  r.wall_s = 110;
  r.total_usd = 0.44;
  r.gpu_billed_s = 400;
  r.compute_s = 4 * run_s;
  r.utilization = r.compute_s / r.gpu_billed_s;
  for (int i = 0; i < 4; ++i) {
    WorkerRow w;
    w.index = i;
    w.pods = {"pod-" + std::to_string(i)};
    w.items = 500;
    w.run_s = run_s;
    w.billed_s = 100;
    w.usd = 0.11;
    w.utilization = run_s / 100;
    w.outcome = "ok";
    r.workers.push_back(w);
  }
  return r;
}

std::string text_of(const std::vector<Recommendation>& recs, const std::string& id) {
  for (const auto& rec : recs)
    if (rec.id == id) return rec.text;
  return "";
}

TEST(ReportWide, OverProvisionedBelowSeventyPercentNamesEachWorker) {
  JobReport r = wide_report(69);
  r.workers[2].utilization = 0.5;
  const std::string text = text_of(recommend(r), "over-provisioned");
  EXPECT_EQ(text,
            "utilization 69% overall (w0 69%, w1 69%, w2 50%, w3 69%) is below the ~70% a wide "
            "job should reach: over-provisioned; fewer workers (resources.max_workers: 3) or a "
            "smaller GPU would do the same work for less");
  EXPECT_EQ(text_of(recommend(wide_report(70)), "over-provisioned"), "") << "70% is the target";
  JobReport one = wide_report(40);  // a job of one pod: the 70% rule is the wide job's
  one.workers.clear();
  EXPECT_EQ(text_of(recommend(one), "over-provisioned"), "");
  JobReport failed = wide_report(40);  // a failed job did not do the planned work
  failed.outcome = "failed";
  EXPECT_EQ(text_of(recommend(failed), "over-provisioned"), "");
}

TEST(ReportWide, UnderProvisionedWhenPinnedAndLateSuggestsMoreWorkers) {
  JobReport r = wide_report(95);
  r.facts.deadline_s = 100;
  r.deadline_slack_pct = -10;  // 110 s of 100 s
  EXPECT_EQ(text_of(recommend(r), "under-provisioned"),
            "utilization 95% with the deadline missed (110 s of 100 s): the GPUs were busy "
            "throughout; more workers (resources.max_workers above 4) would meet it");
  r.deadline_slack_pct = 5;  // met: quiet
  EXPECT_EQ(text_of(recommend(r), "under-provisioned"), "");
}

TEST(ReportWide, TerminalSummaryAndHtmlCarryTheCurvePointAndEveryWorkerRow) {
  JobReport r = wide_report(60);
  r.workers[1].pods.push_back("pod-1r1");
  r.workers[1].billed_s = 150;
  r.workers[1].utilization = 0.4;
  r.recommendations = recommend(r);
  const std::string summary = report_summary(r);
  EXPECT_NE(summary.find("  The plan's point on the go-wide curve: 4 workers, estimated 120.0 s "
                         "and $0.40; actual 110.0 s and $0.44, utilization 60% overall.\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("  w0: 500 items, 1 pod, run 60.0 s of 100.0 s billed (60%), $0.11, ok\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("  w1: 500 items, 2 pods, run 60.0 s of 150.0 s billed (40%)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("  w3: 500 items"), std::string::npos) << summary;
  EXPECT_NE(summary.find("next time: utilization 60% overall"), std::string::npos) << summary;

  const std::string html = report_html(r);
  EXPECT_NE(html.find("<h2>Workers</h2><p>The plan&#39;s point on the go-wide curve: 4 workers"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><td>w1</td><td>pod-1, pod-1r1</td><td>500</td>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>w3</td>"), std::string::npos);
  EXPECT_NE(html.find("<b>over-provisioned</b>"), std::string::npos);
}

// A worker's rows are its by their typed worker and deviation (PhaseRecord, written whole by the
// fleet); a job recorded before those were kept is read from its rows' "w<i>: " words, the same.
TEST(ReportWide, AWorkersRowsAreItsByTheTypedWorkerAndOldRowsByTheirWords) {
  TempDir dir;
  auto store_ = open_sqlite_store(dir.path() + "/burst.db").value();
  const std::string moved = "runpod A100 at $1.10/h";
  for (const bool old : {true, false}) {
    JobRecord job;
    job.id = old ? "old-wide" : "new-wide";
    job.pipeline = "p";
    job.state = JobState::kSucceeded;
    job.phase = Phase::kReport;
    job.provider = "runpod";
    job.created_ms = 1000;
    job.finished_ms = 100000;
    ReportFacts facts;
    facts.workers = 2;
    job.facts_json = report_facts_to_json(facts);
    if (!old) job.stop = JobStop::kNone;
    ASSERT_TRUE(store_->create_job(job).ok());
    const std::string created = "w1: created; deviated from the plan: " + moved;
    if (old) {
      ASSERT_TRUE(store_->begin_phase(job.id, Phase::kProvision, 1000).ok());
      ASSERT_TRUE(store_->end_phase(job.id, Phase::kProvision, 2000, Outcome::kOk, created).ok());
      ASSERT_TRUE(store_->begin_phase(job.id, Phase::kRun, 2000).ok());
      ASSERT_TRUE(store_->end_phase(job.id, Phase::kRun, 62000, Outcome::kOk, "w1: ok").ok());
    } else {
      PhaseRecord row{job.id, Phase::kProvision, 1000, 2000, Outcome::kOk, created, 1, moved};
      ASSERT_TRUE(store_->record_phase(row).ok());
      row = {job.id, Phase::kRun, 2000, 62000, Outcome::kOk, "w1: ok", 1, ""};
      ASSERT_TRUE(store_->record_phase(row).ok());
    }
    auto r = build_job_report(*store_, job.id, from_unix_ms(100000));
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->workers.size(), 2u);
    EXPECT_DOUBLE_EQ(r->workers[1].run_s, 60) << job.id;
    EXPECT_DOUBLE_EQ(r->workers[1].cold_start_s, 1) << job.id;
    EXPECT_EQ(r->workers[1].deviation, moved) << job.id;
    EXPECT_EQ(r->workers[1].outcome, "ok") << job.id;
    EXPECT_DOUBLE_EQ(r->workers[0].run_s, 0) << job.id;
  }
}

// Per-replica utilisation (issue 33): the store's replica records, read back by the report, one
// line each in the terminal summary, the Markdown, the HTML and the JSON: the worker (a wide
// job's), the replica and its GPUs, its items, busy time of the step's, GPU utilisation.
TEST(ReportWide, EveryReplicaOfEveryPodHasItsLineInEveryRendering) {
  TempDir dir;
  auto store = open_sqlite_store(dir.path() + "/burst.db").value();
  JobRecord job;
  job.id = "rep";
  job.pipeline = "p";
  job.state = JobState::kSucceeded;
  job.phase = Phase::kReport;
  job.provider = "vast";
  job.created_ms = 1000;
  job.finished_ms = 600000;
  ASSERT_TRUE(store->create_job(job).ok());
  ASSERT_TRUE(
      store->add_replica({"rep", 0, "7", 0, 2, "0", 150, 460'000, 500'000, 92.4, 96, 0}).ok());
  ASSERT_TRUE(
      store->add_replica({"rep", 0, "7", 1, 2, "1", 150, 500'000, 500'000, std::nullopt, 0, 0})
          .ok());
  auto r = build_job_report(*store, job.id, from_unix_ms(600000));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->replicas.size(), 2u);
  const std::string first =
      "replica 0 on GPU 0: 150 items, busy 460 s of the step's 500 s (92%), GPU utilisation 92% "
      "(96 samples), exit 0";
  const std::string second =
      "replica 1 on GPU 1: 150 items, busy 500 s of the step's 500 s (100%), no GPU utilisation "
      "sample, exit 0";
  for (const std::string& text : {report_summary(*r), report_markdown(*r)}) {
    EXPECT_NE(text.find(first), std::string::npos) << text;
    EXPECT_NE(text.find(second), std::string::npos) << text;
  }
  const std::string page = report_html(*r);  // the same words, "'" as HTML writes it
  const auto escaped = [](std::string t) { return t.replace(t.find('\''), 1, "&#39;"); };
  EXPECT_NE(page.find("<li>" + escaped(first) + "</li>"), std::string::npos) << page;
  EXPECT_NE(page.find("<li>" + escaped(second) + "</li>"), std::string::npos) << page;
  EXPECT_NE(report_markdown(*r).find("## Replicas"), std::string::npos);
  const std::string j = report_json(*r);
  EXPECT_NE(j.find("\"gpu_util_pct\": 92.4"), std::string::npos) << j;
  EXPECT_NE(j.find("\"gpus\": \"1\""), std::string::npos) << j;
  // In a job of several workers each line names its worker.
  r->workers.resize(2);
  r->replicas[0].worker = 1;
  EXPECT_EQ(replica_lines(*r)[0].rfind("w1 replica 0 on GPU 0: ", 0), 0u) << replica_lines(*r)[0];
  // A job whose pods ran one copy each has no replica section.
  r->replicas.clear();
  EXPECT_EQ(report_markdown(*r).find("## Replicas"), std::string::npos);
}

}  // namespace
}  // namespace burst
