// A pipeline's recent runs for burstd's dashboard (docs/dashboard.md, "A pipeline's runs"): the
// succeeded runs among the store's most recent jobs, oldest first, each with the plan's estimate
// and what it cost, and its utilization (compute time over billed GPU time), all as the job's
// report computes them (report/job_report.h). Rendered as two charts from the reports' SVG module
// (report/svg_chart.h), estimate vs actual in US $ and utilization in % against the 70% target,
// and a table. Every text is escaped. A run that failed or was cancelled did not do the estimated
// work, so it is left out (as the report leaves out its estimate error).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "burst/store.h"

namespace burst::daemon {

struct DashRun {
  std::string job_id;
  int64_t created_ms = 0;
  std::optional<double> estimate_usd;  // unset: the job had no estimate
  double usd = 0;
  std::optional<double> estimate_gpu_s;  // GPU billed time, as planned
  double gpu_billed_s = 0;
  std::optional<double> utilization;  // 0..1; unset without a GPU pod
};

// At most `limit` succeeded runs of `pipeline` among the `scan` most recent jobs, oldest first.
std::vector<DashRun> dash_pipeline_runs(Store& store, const std::string& pipeline, int limit = 20,
                                        int scan = 500);

// The charts and the table of `runs`, or a sentence saying there is no succeeded run yet.
std::string dash_runs_html(const std::string& pipeline, const std::vector<DashRun>& runs);

}  // namespace burst::daemon
