// Estimate calibration: what a finished job records, how the next plan's factor is fitted
// (median, window, clamp), that it scales the roofline exactly, and that a plan made after
// three runs of the same pipeline uses the calibrated run time and says so.
#include <gtest/gtest.h>

#include "fakes/temp_dir.h"
#include "report/calibration.h"
#include "report/job_history.h"

namespace burst {
namespace {

CalibrationRecord sample(double measured, double predicted) {
  CalibrationRecord c;
  c.pipeline = "render";
  c.workload_kind = "custom";
  c.measured_s = measured;
  c.predicted_s = predicted;
  return c;
}

TEST(ReportCalibration, FitIsTheMedianRatioOfTheLatestRunsClamped) {
  EXPECT_EQ(fit_calibration({}).runs, 0);
  EXPECT_EQ(fit_calibration({}).note(), "");
  CalibrationFit three = fit_calibration({sample(150, 100), sample(120, 100), sample(900, 100)});
  EXPECT_EQ(three.runs, 3);
  EXPECT_DOUBLE_EQ(three.factor, 1.5);  // median of 1.2, 1.5, 9
  EXPECT_EQ(three.note(), "calibrated from 3 runs (run time x1.50)");
  CalibrationFit clamped = fit_calibration({sample(5000, 100)});
  EXPECT_DOUBLE_EQ(clamped.factor, kCalibrationClamp);
  std::vector<CalibrationRecord> many(kCalibrationWindow, sample(200, 100));
  many.push_back(sample(100, 100));  // older than the window
  CalibrationFit window = fit_calibration(many);
  EXPECT_EQ(window.runs, kCalibrationWindow);
  EXPECT_DOUBLE_EQ(window.factor, 2);
}

TEST(ReportCalibration, ScaledCalibrationMultipliesTheRooflineRunTime) {
  GpuSpec gpu;
  gpu.name = "X";
  gpu.vram_gb = 80;
  gpu.mem_bw_gbs = 2000;
  gpu.fp16_tflops = 300;
  Workload w;
  w.kind = "llm-inference";
  w.params_b = 7;
  w.precision = "fp16";
  w.tokens = 1000;
  auto base = run_time(w, gpu, 1, {gpu}, default_calibration());
  auto scaled = run_time(w, gpu, 1, {gpu}, scale_calibration(default_calibration(), 1.7));
  ASSERT_TRUE(base.ok() && scaled.ok()) << (base.ok() ? scaled.error() : base.error()).message;
  EXPECT_NEAR(scaled->compute_s / base->compute_s, 1.7, 1e-9);
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

  PipelineSpec planned = spec;
  PlanInput calibrated_in = in;
  CalibrationFit fit = apply_calibration(**store, &planned, &calibrated_in);
  EXPECT_EQ(fit.runs, 3);
  EXPECT_DOUBLE_EQ(fit.factor, 1.3);
  auto after = make_plan(planned, calibrated_in);
  ASSERT_TRUE(after.ok()) << after.error().message;
  mark_calibrated(fit, &*after);
  EXPECT_NEAR(after->estimate.run_s, before->estimate.run_s * 1.3, 1e-6);
  EXPECT_GT(after->estimate.usd, before->estimate.usd);
  EXPECT_NE(after->estimate.basis.find("calibrated from 3 runs (run time x1.30)"),
            std::string::npos)
      << after->estimate.basis;
  ReportFacts facts = report_facts_from_plan(spec, *after);
  EXPECT_EQ(facts.calibration_runs, 3);
  EXPECT_DOUBLE_EQ(facts.calibration_factor, 1.3);
}

}  // namespace
}  // namespace burst
