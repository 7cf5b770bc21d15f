// The fixture of the per-job report tests: a temp SQLite store, a recorded history
// (report/job_history.h) and the report built from it a day after the job started.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "fakes/temp_dir.h"
#include "report/job_history.h"
#include "report/job_report.h"

namespace burst {

class ReportFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_sqlite_store(dir_.path() + "/burst.db");
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_ = std::move(s).value();
  }
  JobReport report(const HistoryJob& h) {
    record_history(*store_, h);
    auto r = build_job_report(*store_, h.id, from_unix_ms(h.start_ms + 86400000));
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : JobReport{};
  }
  static bool has(const JobReport& r, const std::string& id) {
    for (const auto& rec : r.recommendations)
      if (rec.id == id) return true;
    return false;
  }
  static HistoryJob success(double run_s) {
    HistoryJob h;
    h.phases = full_phases(run_s);
    h.estimate_json = estimate(2.50, 3000, 2900, 0.95);
    h.facts.budget_usd = 10;
    h.synced_bytes = 12345;
    h.pulled_bytes = 6789;
    return h;
  }
  TempDir dir_;
  std::unique_ptr<Store> store_;
};

}  // namespace burst
