// Estimate calibration, the report's side: what a finished job records, and that a plan made
// after three recorded runs of the same pipeline uses the calibrated run time and says so. The
// fit's rules are in tests/unit/plan_calibration_test.cpp.
#include <gtest/gtest.h>

#include "fakes/temp_dir.h"
#include "plan/calibration.h"
#include "report/calibration.h"
#include "report/job_history.h"

namespace burst {
namespace {

CalibrationRecord sample(double measured, double predicted) {
  CalibrationRecord c;
  c.gpu_type = "RTX_4090";
  c.pipeline = "render";
  c.workload_kind = "custom";
  c.measured_s = measured;
  c.predicted_s = predicted;
  return c;
}

TEST(ReportCalibration, FinishedJobRecordsTheModelsOwnPrediction) {
  TempDir dir;
  auto store = open_sqlite_store(dir.path() + "/burst.db");
  ASSERT_TRUE(store.ok());
  HistoryJob h;
  h.phases = full_phases(300);
  h.estimate_json = estimate(1, 400, 240, 0.9);  // planned run 240 s, already calibrated x1.2
  h.facts.calibration_runs = 2;
  h.facts.calibration_factor = 1.2;
  h.facts.workload_kind = "custom";
  h.facts.units = 300;
  record_history(**store, h);
  auto r = build_job_report(**store, h.id, from_unix_ms(h.start_ms + 86400000));
  ASSERT_TRUE(r.ok());
  auto s = calibration_sample(*r);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->measured_s, 300);
  EXPECT_DOUBLE_EQ(s->predicted_s, 200);  // 240 / 1.2: the model's, not the calibrated figure
  EXPECT_EQ(s->gpu_type, "H100_SXM");
  EXPECT_DOUBLE_EQ(s->units, 300);
  r->outcome = "failed";
  EXPECT_FALSE(calibration_sample(*r)) << "a failed run measures nothing";
}

TEST(ReportCalibration, NextPlanUsesTheCalibratedRunTimeAndSaysSo) {
  TempDir dir;
  auto store = open_sqlite_store(dir.path() + "/burst.db");
  ASSERT_TRUE(store.ok());
  PipelineSpec spec;
  spec.name = "render";
  spec.run = "python render.py";
  spec.workload.kind = "custom";
  spec.workload.reference = WorkloadReference{"RTX_4090", 1000, ""};
  Offer o;
  o.provider = "vast";
  o.gpu_type = "RTX_4090";
  o.gpu_count = 1;
  o.vram_gb = 24;
  o.usd_per_hour = 0.5;
  o.price_source = "live offer";
  PlanInput in;
  in.gpu_offers = {o};
  in.providers = {"vast"};
  auto before = make_plan(spec, in);
  ASSERT_TRUE(before.ok()) << before.error().message;

  // Three runs of this pipeline (and one of another, ignored) ran 1.3x the model's time.
  for (int i = 0; i < 3; ++i) {
    JobRecord job;
    job.id = "j" + std::to_string(i);
    job.pipeline = "render";
    job.created_ms = 1000 + i;
    ASSERT_TRUE((*store)->create_job(job).ok());
    CalibrationRecord c = sample(1300, 1000);
    c.job_id = job.id;
    c.recorded_ms = 2000 + i;
    ASSERT_TRUE((*store)->add_calibration(c).ok());
  }
  JobRecord other;
  other.id = "k";
  other.pipeline = "other";
  ASSERT_TRUE((*store)->create_job(other).ok());
  CalibrationRecord o2 = sample(9000, 1000);
  o2.job_id = "k";
  o2.pipeline = "other";
  ASSERT_TRUE((*store)->add_calibration(o2).ok());

  PlanInput calibrated_in = in;
  auto runs = (*store)->calibration_samples("render", "custom", kCalibrationHistory);
  ASSERT_TRUE(runs.ok());
  calibrated_in.calibration_history = *runs;
  auto after = make_plan(spec, calibrated_in);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(after->estimate.calibration_runs, 3);
  EXPECT_NEAR(after->estimate.calibration_factor, 1.3, 1e-12);
  EXPECT_NEAR(after->estimate.run_s, before->estimate.run_s * 1.3, 1e-6);
  EXPECT_GT(after->estimate.usd, before->estimate.usd);
  EXPECT_NE(after->estimate.basis.find("calibrated from 3 runs on RTX_4090 (run time x1.30)"),
            std::string::npos)
      << after->estimate.basis;
  ReportFacts facts = report_facts_from_plan(spec, *after);
  EXPECT_EQ(facts.calibration_runs, 3);
  EXPECT_NEAR(facts.calibration_factor, 1.3, 1e-12);
}

}  // namespace
}  // namespace burst
