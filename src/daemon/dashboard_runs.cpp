#include "daemon/dashboard_runs.h"

#include <algorithm>
#include <cstdio>

#include "burst/clock.h"
#include "daemon/dashboard_html.h"
#include "report/job_report.h"
#include "report/svg_chart.h"

namespace burst::daemon {
namespace {

constexpr double kRunsUtilizationTarget = 70;  // % (docs/reports.md, the utilization rule)

std::string runs_fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string runs_minutes(double s) { return runs_fixed(s / 60.0, 1) + " min"; }

std::string runs_label(int64_t ms) { return format_utc(from_unix_ms(ms), "%m-%d %H:%M"); }

}  // namespace

std::vector<DashRun> dash_pipeline_runs(Store& store, const std::string& pipeline, int limit,
                                        int scan) {
  std::vector<DashRun> runs;
  auto recent = store.recent_jobs(scan);
  if (!recent.ok()) return runs;
  for (const JobRecord& j : *recent) {  // newest first
    if (static_cast<int>(runs.size()) >= limit) break;
    if (j.pipeline != pipeline || j.state != JobState::kSucceeded || !j.finished_ms) continue;
    auto r = build_job_report(store, j.id, from_unix_ms(j.finished_ms));
    if (!r.ok()) continue;
    DashRun run;
    run.job_id = j.id;
    run.created_ms = j.created_ms;
    run.usd = r->total_usd;
    run.gpu_billed_s = r->gpu_billed_s;
    if (r->estimate.known) {
      run.estimate_usd = r->estimate.usd;
      run.estimate_gpu_s = r->estimate.billed_s;
    }
    run.utilization = r->utilization;
    runs.push_back(std::move(run));
  }
  std::reverse(runs.begin(), runs.end());
  return runs;
}

std::string dash_runs_html(const std::string& pipeline, const std::vector<DashRun>& runs) {
  if (runs.empty())
    return "<p id=\"no-runs\">No finished run of " + dash_escape(pipeline) +
           " yet: nothing to chart (a failed or cancelled run did not do the estimated work, so "
           "only succeeded runs count).</p>";
  std::vector<std::string> labels;
  LineSeries estimate{"estimate", chart_color(1), {}};
  estimate.hollow = true;  // a ring: where the actual equals the estimate, both show
  LineSeries actual{"actual", chart_color(0), {}};
  LineSeries utilization{"utilization", chart_color(2), {}};
  LineSeries target{runs_fixed(kRunsUtilizationTarget, 0) + "% target", "#c33", {}, true};
  for (const DashRun& r : runs) {
    labels.push_back(runs_label(r.created_ms));
    estimate.y.push_back(r.estimate_usd ? *r.estimate_usd : -1);
    actual.y.push_back(r.usd);
    utilization.y.push_back(r.utilization ? *r.utilization * 100 : -1);
    target.y.push_back(kRunsUtilizationTarget);
  }
  LineAxes money_axes;
  money_axes.x_title = "run (start, UTC)";
  money_axes.y_title = "cost per run, US $";
  LineAxes util_axes;
  util_axes.x_title = "run (start, UTC)";
  util_axes.y_title = "utilization, %";
  util_axes.y_suffix = "%";
  util_axes.y_floor = 100;
  std::string body =
      svg_lines("runs-estimate", "Estimate vs actual cost per run (US $)", labels,
                {estimate, actual}, "$", money_axes) +
      svg_lines("runs-utilization", "Utilization per run (compute time / billed GPU time, %)",
                labels, {utilization, target}, "", util_axes);
  body +=
      "<table id=\"runs\"><tr><th>run</th><th>started (UTC)</th><th>estimate</th><th>actual</th>"
      "<th>error</th><th>GPU time est.</th><th>GPU time</th><th>utilization</th></tr>";
  for (const DashRun& r : runs) {
    std::string error = "-";
    if (r.estimate_usd && *r.estimate_usd > 0)
      error = (r.usd >= *r.estimate_usd ? "+" : "") +
              runs_fixed((r.usd - *r.estimate_usd) / *r.estimate_usd * 100, 1) + "%";
    body += "<tr><td><a href=\"/dashboard/jobs/" + dash_escape(r.job_id) + "\">" +
            dash_escape(r.job_id) + "</a></td><td>" +
            dash_escape(format_utc(from_unix_ms(r.created_ms), "%Y-%m-%d %H:%M")) +
            "</td><td class=\"n\">" + (r.estimate_usd ? dash_usd(*r.estimate_usd) : "none") +
            "</td><td class=\"n\">" + dash_usd(r.usd) + "</td><td class=\"n\">" +
            dash_escape(error) + "</td><td class=\"n\">" +
            (r.estimate_gpu_s ? runs_minutes(*r.estimate_gpu_s) : "-") + "</td><td class=\"n\">" +
            runs_minutes(r.gpu_billed_s) + "</td><td class=\"n\">" +
            (r.utilization ? runs_fixed(*r.utilization * 100, 1) + "%" : "-") + "</td></tr>";
  }
  return body + "</table>";
}

}  // namespace burst::daemon
