// The job report as one self-contained HTML file: tables, a Gantt-style phase timeline per pod
// and a cost breakdown chart, all inline SVG.
#include <cstdio>
#include <sstream>

#include "report/job_report.h"
#include "report/report_format.h"
#include "report/svg_chart.h"

namespace burst {
using namespace report_fmt;

namespace {

std::string phase_color(Phase phase) {
  if (phase == Phase::kRun) return "#59a14f";
  if (phase == Phase::kProvision || phase == Phase::kCpuProvision || phase == Phase::kWaitSsh ||
      phase == Phase::kSetup)
    return "#f28e2b";
  if (phase == Phase::kSync || phase == Phase::kPull) return "#4e79a7";
  if (phase == Phase::kDeleteGpu || phase == Phase::kDeleteCpu) return "#bab0ac";
  return "#b07aa1";
}

// One timeline per pod: its billed lifetime, then each of its phases, from its create request.
std::string pod_gantt(const JobReport& r, const PodCost& c) {
  std::vector<GanttBar> rows;
  const double origin = static_cast<double>(c.pod.created_ms);
  rows.push_back({"pod (billed)", 0, c.billed_s, "#e15759",
                  "billed " + secs(c.billed_s) + ", " + money(c.usd)});
  for (const PhaseRecord& p : r.phases) {
    if (phase_role(p.phase) != c.pod.role) continue;
    const double start = (static_cast<double>(p.started_ms) - origin) / 1000.0;
    const double end = p.ended_ms ? (static_cast<double>(p.ended_ms) - origin) / 1000.0 : start;
    const std::string name = to_string(p.phase);
    rows.push_back({name, start, end, phase_color(p.phase),
                    name + " " + to_string(p.outcome) + ": " + secs(end - start)});
  }
  double span = c.billed_s;
  for (const GanttBar& b : rows) span = std::max(span, b.end_s);
  return svg_gantt("gantt", c.pod.role + " pod " + pod_label(c.pod) + " timeline", rows, span);
}

// Where the money went: GPU time split by what the pod was doing, rounding, the CPU hand-off.
std::string cost_chart(const JobReport& r) {
  const double price = r.gpu_billed_s > 0 ? r.gpu_usd / r.gpu_billed_s : 0;  // $/s
  double other = r.gpu_billed_s - r.rounding_s - r.compute_s - r.cold_start_s - r.sync_s;
  for (const PodCost& c : r.pods)
    if (c.pod.role == "cpu") other += c.billed_s - c.lifetime_s;  // CPU rounding is not GPU's
  other = std::max(0.0, other);
  std::vector<BarItem> items = {
      {"GPU: run", r.compute_s * price, money(r.compute_s * price), "#59a14f"},
      {"GPU: cold start", r.cold_start_s * price, money(r.cold_start_s * price), "#f28e2b"},
      {"GPU: sync", r.sync_s * price, money(r.sync_s * price), "#4e79a7"},
      {"GPU: pull, delete", other * price, money(other * price), "#bab0ac"},
      {"billing rounding", r.rounding_s * price, money(r.rounding_s * price), "#e15759"},
      {"CPU hand-off", r.cpu_usd, money(r.cpu_usd), "#76b7b2"}};
  return svg_bars("cost-breakdown", "Cost breakdown, total " + money(r.total_usd), items);
}

std::string row(std::initializer_list<std::string> cells) {
  std::string s = "<tr>";
  for (const auto& c : cells) s += "<td>" + html(c) + "</td>";
  return s + "</tr>";
}

}  // namespace

std::string report_html(const JobReport& r) {
  std::ostringstream o;
  o << "<h1>burst job " << html(r.job.id) << "</h1><table>"
    << row({"pipeline", r.job.pipeline + " (" + r.job.spec_path + ")"})
    << row({"provider", r.job.provider})
    << row({"GPU", std::to_string(r.facts.gpu_count) + " x " + r.facts.gpu_type +
                       (r.facts.layout.empty() ? "" : " (" + r.facts.layout + ")")})
    << row({"price at creation", money(r.facts.gpu_usd_per_hour) + "/h (" + r.facts.price_source +
                                     ", billed per " + r.facts.billing_unit + ")"})
    << row({"state", to_string(r.job.state) +
                         (r.outcome != to_string(r.job.state) ? " (" + r.outcome + ")" : "") +
                         (r.no_pod ? ", no pod created: $0" : "")})
    << row({"error", r.job.error.empty() ? "-" : r.job.error})
    << row({"started", utc(r.job.created_ms)})
    << row({"finished", utc(r.job.finished_ms) + " (" + secs(r.wall_s) + ")"})
    << row({"total cost", money(r.total_usd)});
  if (r.usd_per_item) o << row({"cost per item", usd_per_item_text(r)});
  o << "</table>";

  o << "<h2>Recommendations</h2><ul>";
  if (r.recommendations.empty())
    o << (r.outcome == "succeeded" ? "<li>None: the job ran as planned.</li>" : "<li>None.</li>");
  for (const auto& rec : r.recommendations)
    o << "<li><b>" << html(rec.id) << "</b>: " << html(rec.text) << "</li>";
  o << "</ul>";

  if (const auto lines = replica_lines(r); !lines.empty()) {
    o << "<h2>Replicas</h2><ul>";
    for (const auto& l : lines) o << "<li>" << html(l) << "</li>";
    o << "</ul>";
  }
  if (const auto lines = spot_lines(r); !lines.empty()) {
    o << "<h2>Spot</h2><ul>";
    for (const auto& l : lines) o << "<li>" << html(l) << "</li>";
    o << "</ul>";
  }

  o << "<h2>Cost</h2><table><tr><th>pod</th><th>type</th><th>$/hour (source)</th>"
       "<th>billed</th><th>cost</th><th>deleted</th></tr>";
  for (const auto& c : r.pods)
    o << row({c.pod.role + " " + pod_label(c.pod), c.pod.gpu_type,
              money(c.pod.usd_per_hour) + " (" + c.pod.price_source + ")", secs(c.billed_s),
              money(c.usd),
              c.confirmed_deleted ? "confirmed " + utc(c.pod.deleted_ms)
                                  : "NOT CONFIRMED: run burst reap"});
  o << row({"total", "", "", secs(r.gpu_billed_s) + " GPU", money(r.total_usd), ""}) << "</table>"
    << "<p>CPU hand-off " << html(money(r.cpu_usd))
    << (r.handoff.empty() ? "" : "; hand-off " + html(r.handoff) + ": " + html(r.handoff_why))
    << ".</p>";
  if (const std::string own = owned_hosts_text(r); !own.empty())
    o << "<p>Ran on your own hosts: " << html(own) << ".</p>";
  if (!r.prepare.empty() || !r.facts.prepare.empty()) {
    char cost[96];
    std::snprintf(cost, sizeof cost, "%.0f s, $%.4f (planned %.0f s, $%.4f)", r.prepare_s,
                  r.prepare_usd, r.facts.prepare_est_s, r.facts.prepare_est_usd);
    o << "<p>Prepare: " << html(r.prepare.empty() ? "not run" : r.prepare) << ", "
      << html(r.prepare_outcome.empty() ? "not run" : r.prepare_outcome) << ", " << cost
      << "; planned " << html(r.facts.prepare) << ": " << html(r.facts.prepare_why) << ".</p>";
  }
  o << cost_chart(r);

  o << "<h2>Estimate vs actual</h2><table><tr><th></th><th>estimate</th><th>actual</th>"
       "<th>error</th></tr>";
  if (r.estimate.known) {
    o << row({"cost", money(r.estimate.pods_usd()), money(r.total_usd), pct(r.usd_error_pct)});
    if (r.estimate.transfer_usd > 0)
      o << row({"transfer, billed per GB by the host", money(r.estimate.transfer_usd),
                "not measured (the provider's bill)", "-"});
    if (r.pulled_transfer_usd)
      o << row({"artefacts pulled, billed per GB by the host", "not priced",
                money(*r.pulled_transfer_usd) + " (" + bytes(r.bytes_pulled) + " at " +
                    fixed(r.estimate.upload_usd_per_gb, 3) + " $/GB)",
                "-"});
    o << row({"GPU billed", secs(r.estimate.billed_s), secs(r.gpu_billed_s),
              pct(r.gpu_time_error_pct)})
      << row({"run", r.estimate.run_known ? secs(r.estimate.run_s) : "unknown", secs(r.compute_s),
              pct(r.run_error_pct)})
      << row({"utilization",
              fixed(r.estimate.utilization * 100, 0) + "% (" +
                  (r.facts.bound.empty() ? "bound unknown" : r.facts.bound + "-bound") + ")",
              r.utilization ? fixed(*r.utilization * 100, 0) + "%" : "-", ""});
  } else {
    o << row({"cost", "(no plan)", money(r.total_usd), "-"});
  }
  o << "</table><p class=\"muted\">Basis: " << html(r.estimate.basis);
  if (r.facts.calibration_runs > 0)
    o << "; calibrated from " << r.facts.calibration_runs << " runs (run time x"
      << fixed(r.facts.calibration_factor, 2) << ")";
  o << "</p>";

  if (!r.workers.empty()) {
    o << "<h2>Workers</h2><p>" << html(curve_point_text(r))
      << "</p><table><tr><th>worker</th><th>pods</th><th>items</th><th>cold start</th>"
         "<th>sync</th><th>run</th><th>pull</th><th>billed</th><th>cost</th>"
         "<th>utilization</th><th>run outcome</th></tr>";
    for (const WorkerRow& w : r.workers) {
      std::string pods;
      for (size_t i = 0; i < w.pods.size(); ++i)
        pods += (i ? ", " : "") + w.pods[i] + (i < w.where.size() ? " (" + w.where[i] + ")" : "");
      o << row({"w" + std::to_string(w.index), pods, std::to_string(w.items), secs(w.cold_start_s),
                secs(w.sync_s), secs(w.run_s), secs(w.pull_s), secs(w.billed_s), money(w.usd),
                w.utilization ? fixed(*w.utilization * 100, 0) + "%" : "-", w.outcome});
    }
    o << "</table>";
  }

  if (r.facts.budget_usd || r.facts.deadline_s) {
    o << "<h2>Budget</h2><table>";
    if (r.facts.budget_usd)
      o << row({"budget.max_usd", money(*r.facts.budget_usd),
                fixed(r.budget_used_pct.value_or(0), 0) + "% used" + budget_parts(r)});
    if (r.facts.deadline_s)
      o << row(
          {"deadline", secs(*r.facts.deadline_s),
           r.deadline_slack_pct ? fixed(*r.deadline_slack_pct, 0) + "% slack" : "not finished"});
    o << "</table>";
  }

  o << "<h2>Timeline</h2>";
  for (const PodCost& c : r.pods)
    if (c.lifetime_s > 0) o << pod_gantt(r, c);
  if (r.pods.empty()) o << "<p>No pod was created.</p>";
  o << "<table><tr><th>phase</th><th>pod</th><th>outcome</th><th>seconds</th><th>detail</th></tr>";
  for (const auto& p : r.phases)
    o << row({to_string(p.phase), phase_role(p.phase), to_string(p.outcome),
              secs(p.ended_ms ? (p.ended_ms - p.started_ms) / 1000.0 : 0.0), p.detail});
  o << "</table><h2>Transfers</h2><p>synced " << bytes(r.bytes_synced) << ", pulled "
    << bytes(r.bytes_pulled) << "</p><p class=\"muted\">Built from the store alone at "
    << utc(r.as_of_ms) << ".</p>";
  return page("burst job " + r.job.id, o.str());
}

}  // namespace burst
