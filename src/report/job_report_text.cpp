// The job report as JSON (machine-readable, stable keys), Markdown and terminal lines.
#include <cstdio>
#include <sstream>

#include "json/json_value.h"
#include "report/job_report.h"
#include "report/report_format.h"

namespace burst {
using json = JsonValue;
using namespace report_fmt;

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json estimate_of(const JobReport& r) {
  auto e = json::parse(r.estimate_json.empty() ? "null" : r.estimate_json);
  return e ? *e : json(nullptr);
}

// "hand-off: upload from this machine ... (upload ok)" or "" when the job had none.
std::string handoff_line(const JobReport& r, const char* indent) {
  if (r.handoff.empty()) return "";
  return std::string(indent) + "hand-off (" + r.handoff + "): " + r.handoff_why + "; upload " +
         (r.handoff_outcome.empty() ? "not run" : r.handoff_outcome) + "\n";
}

// "prepare: cpu-pod, ok in 12 s, $0.0001; planned cpu-pod (est 150 s, $0.0042): why" or "".
std::string prepare_line(const JobReport& r, const char* indent) {
  if (r.prepare.empty() && r.facts.prepare.empty()) return "";
  char ran[96];
  std::snprintf(ran, sizeof ran, "%s in %.0f s, $%.4f",
                r.prepare_outcome.empty() ? "not run" : r.prepare_outcome.c_str(), r.prepare_s,
                r.prepare_usd);
  char est[64];
  std::snprintf(est, sizeof est, " (est %.0f s, $%.4f)", r.facts.prepare_est_s,
                r.facts.prepare_est_usd);
  return std::string(indent) + "prepare: " + (r.prepare.empty() ? "not run" : r.prepare) + ", " +
         ran + "; planned " + (r.facts.prepare.empty() ? "?" : r.facts.prepare) + est + ": " +
         r.facts.prepare_why + "\n";
}

// Text from a job (an error, a phase's detail, a pattern, a pod's answer) in Markdown: HTML
// characters as entities, so a renderer never runs `<svg onload=...>`; a pipe escaped, so a table
// keeps its cells; a line break as a space, so a row stays one row.
std::string md(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '|':
        out += "\\|";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Text inside a code span: a backtick would end the span, a pipe a table cell, a line break a row.
std::string md_code(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '`')
      out += '\'';
    else if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// A whole line (ending in a newline) of terminal text in Markdown: md() but the newline kept.
std::string md_lines(const std::string& line) {
  if (line.empty()) return line;
  return md(line.substr(0, line.size() - 1)) + "\n";
}

std::string state_line(const JobReport& r) {
  std::string s = to_string(r.job.state);
  if (r.outcome != s) s += " (" + r.outcome + ")";
  if (r.no_pod) s += ", no pod created: $0";
  return s;
}

}  // namespace

std::string usd_per_item_text(const JobReport& r) {
  if (!r.usd_per_item) return "";
  const double v = *r.usd_per_item;
  return (v >= 0.01 ? money(v) : "$" + fixed(v, 6)) + " per item (" + std::to_string(r.items) +
         " items)";
}

std::string budget_parts(const JobReport& r) {
  if (!(r.budget_transfer_usd > 0)) return "";
  return " (pods " + money(r.total_usd) + ", per-GB transfer " + money(r.budget_transfer_usd) + ")";
}

std::string curve_point_text(const JobReport& r) {
  return "The plan's point on the go-wide curve: " + std::to_string(r.estimate.workers) +
         " workers, estimated " + secs(r.estimate.total_s) + " and " + money(r.estimate.usd) +
         "; actual " + secs(r.wall_s) + " and " + money(r.total_usd) + ", utilization " +
         (r.utilization ? fixed(*r.utilization * 100, 0) + "%" : "-") + " overall.";
}

// What ran on your own hosts (the ssh provider prices their pods "owned (config)" or "owned
// (derived)"): the pods and their owned cost, which no cloud bills. "" when none did.
static std::string owned_hosts_line(const JobReport& r) {
  std::string pods;
  double usd = 0;
  for (const auto& c : r.pods)
    if (c.pod.price_source.rfind("owned", 0) == 0) {
      pods += (pods.empty() ? "`" : ", `") + md_code(c.pod.pod_id) + "`";
      usd += c.usd;
    }
  if (pods.empty()) return "";
  std::string lost = lost_own_host_pods(r);
  if (!lost.empty())
    lost = " Lost mid-job: `" + md_code(lost) +
           "` (its host stopped answering; `burst reap` releases it once it answers).";
  return "Ran on your own hosts: " + pods + ", " + money(usd) +
         " of owned cost (in the total; no cloud bills it)." + lost + "\n\n";
}

std::string report_json(const JobReport& r) {
  json j;
  j["job"] = {{"id", r.job.id},
              {"pipeline", r.job.pipeline},
              {"spec", r.job.spec_path},
              {"state", to_string(r.job.state)},
              {"outcome", r.outcome},
              {"no_pod", r.no_pod},
              {"error", r.job.error},
              {"provider", r.job.provider},
              {"gpu_type", r.facts.gpu_type},
              {"gpu_count", r.facts.gpu_count},
              {"replicas", r.facts.replicas},
              {"layout", r.facts.layout},
              {"started", utc(r.job.created_ms)},
              {"finished", utc(r.job.finished_ms)},
              {"wall_s", r.wall_s}};
  j["pods"] = json::array();
  for (const auto& c : r.pods)
    j["pods"].push_back({{"role", c.pod.role},
                         {"provider", c.pod.provider},
                         {"pod_id", c.pod.pod_id},
                         {"name", c.pod.name},
                         {"gpu_type", c.pod.gpu_type},
                         {"gpu_count", c.pod.gpu_count},
                         {"usd_per_hour", c.pod.usd_per_hour},
                         {"price_source", c.pod.price_source},
                         {"owned_host", c.pod.price_source.rfind("owned", 0) == 0},
                         {"created", utc(c.pod.created_ms)},
                         {"deleted", utc(c.pod.deleted_ms)},
                         {"deletion_confirmed", c.confirmed_deleted},
                         {"lifetime_s", c.lifetime_s},
                         {"billed_s", c.billed_s},
                         {"usd", c.usd}});
  j["phases"] = json::array();
  for (const auto& p : r.phases)
    j["phases"].push_back({{"phase", to_string(p.phase)},
                           {"pod", phase_role(p.phase)},
                           {"outcome", to_string(p.outcome)},
                           {"detail", p.detail},
                           {"started", utc(p.started_ms)},
                           {"seconds", p.ended_ms ? (p.ended_ms - p.started_ms) / 1000.0 : 0.0}});
  j["transfers"] = json::array();
  for (const auto& t : r.transfers)
    j["transfers"].push_back({{"direction", t.direction},
                              {"files", t.files},
                              {"bytes", t.bytes},
                              {"seconds", t.millis / 1000.0}});
  if (!r.handoff.empty())
    j["handoff"] = {{"where", r.handoff},
                    {"why", r.handoff_why},
                    {"upload", r.handoff_outcome.empty() ? "not run" : r.handoff_outcome}};
  if (!r.prepare.empty() || !r.facts.prepare.empty())
    j["prepare"] = {{"where", r.prepare.empty() ? "not run" : r.prepare},
                    {"outcome", r.prepare_outcome},
                    {"seconds", r.prepare_s},
                    {"usd", r.prepare_usd},
                    {"planned", r.facts.prepare},
                    {"planned_seconds", r.facts.prepare_est_s},
                    {"planned_usd", r.facts.prepare_est_usd},
                    {"why", r.facts.prepare_why}};
  if (!r.workers.empty()) {
    json rows = json::array();
    for (const WorkerRow& w : r.workers) {
      json pods = json::array();
      for (const auto& id : w.pods) pods.push_back(id);
      json where = json::array();
      for (const auto& x : w.where) where.push_back(x);
      rows.push_back({{"index", w.index},
                      {"pods", pods},
                      {"where", where},
                      {"deviation", w.deviation},
                      {"items", w.items},
                      {"cold_start_s", w.cold_start_s},
                      {"sync_s", w.sync_s},
                      {"run_s", w.run_s},
                      {"pull_s", w.pull_s},
                      {"billed_s", w.billed_s},
                      {"usd", w.usd},
                      {"utilization", opt(w.utilization)},
                      {"outcome", w.outcome}});
    }
    j["workers"] = rows;
    // Where the plan sat on the go-wide curve, and how that went.
    j["curve_point"] = {{"workers", r.estimate.workers},   {"estimated_s", r.estimate.total_s},
                        {"estimated_usd", r.estimate.usd}, {"actual_wall_s", r.wall_s},
                        {"actual_usd", r.total_usd},       {"utilization", opt(r.utilization)}};
  }
  if (!r.replicas.empty()) {
    json rows = json::array();
    for (const ReplicaRecord& x : r.replicas)
      rows.push_back({{"worker", x.worker},
                      {"pod", x.pod_id},
                      {"replica", x.replica},
                      {"replicas", x.replicas},
                      {"gpus", x.gpus},
                      {"items", x.items},
                      {"run_s", x.run_ms / 1000.0},
                      {"step_s", x.step_ms / 1000.0},
                      {"gpu_util_pct", opt(x.gpu_util_pct)},
                      {"gpu_util_samples", x.gpu_util_samples},
                      {"exit", x.exit_status}});
    j["replicas"] = rows;
  }
  if (const auto lines = spot_lines(r); !lines.empty()) {
    json pre = json::array();
    for (const auto& p : r.preemptions) pre.push_back(p);
    j["spot"] = {{"rented", r.facts.spot},
                 {"plan", r.facts.spot_why},
                 {"preemptions", pre},
                 {"items_kept", r.items_kept},
                 {"items_rerun", r.items_rerun},
                 {"on_demand_usd_per_hour", r.facts.on_demand_usd_per_hour},
                 {"saved_usd", opt(r.spot_saved_usd)}};
  }
  j["estimate"] = estimate_of(r);
  j["actual"] = {{"usd", r.total_usd},
                 {"gpu_usd", r.gpu_usd},
                 {"cpu_handoff_usd", r.cpu_usd},
                 {"wall_s", r.wall_s},
                 {"gpu_billed_s", r.gpu_billed_s},
                 {"billing_rounding_s", r.rounding_s},
                 {"compute_s", r.compute_s},
                 {"cold_start_s", r.cold_start_s},
                 {"sync_s", r.sync_s},
                 {"utilization", opt(r.utilization)},
                 {"items", r.items},
                 {"usd_per_item", opt(r.usd_per_item)},
                 {"bytes_synced", r.bytes_synced},
                 {"bytes_pulled", r.bytes_pulled},
                 {"pulled_transfer_usd", opt(r.pulled_transfer_usd)}};
  j["error_pct"] = {{"usd", opt(r.usd_error_pct)},
                    {"gpu_billed_s", opt(r.gpu_time_error_pct)},
                    {"run_s", opt(r.run_error_pct)}};
  j["price"] = {{"usd_per_hour", r.facts.gpu_usd_per_hour},
                {"source", r.facts.price_source},
                {"billing_increment_s", r.facts.billing_increment_s},
                {"billing_unit", r.facts.billing_unit}};
  j["predicted"] = {{"bound", r.facts.bound},
                    {"utilization", r.estimate.known ? json(r.estimate.utilization) : json()}};
  j["budget"] = {{"max_usd", opt(r.facts.budget_usd)},
                 {"used_pct", opt(r.budget_used_pct)},
                 {"transfer_usd", r.budget_transfer_usd},
                 {"deadline_s", opt(r.facts.deadline_s)},
                 {"deadline_slack_pct", opt(r.deadline_slack_pct)},
                 {"max_runtime_s", opt(r.facts.max_runtime_s)}};
  j["stopped_by"] = r.stopped_by ? json{{"limit", r.stopped_by->limit},
                                        {"seconds", r.stopped_by->seconds},
                                        {"phase", r.stopped_by->phase}}
                                 : json();
  j["calibration"] = {{"runs", r.facts.calibration_runs}, {"factor", r.facts.calibration_factor}};
  j["recommendations"] = json::array();
  for (const auto& rec : r.recommendations)
    j["recommendations"].push_back({{"id", rec.id}, {"text", rec.text}});
  return j.dump(2) + "\n";
}

std::string report_markdown(const JobReport& r) {
  std::ostringstream o;
  o << "# burst job " << md(r.job.id) << "\n\n"
    << "- pipeline: `" << md_code(r.job.pipeline) << "` (" << md(r.job.spec_path) << ")\n"
    << "- provider: " << md(r.job.provider);
  if (!r.facts.gpu_type.empty())
    o << ", " << r.facts.gpu_count << " x " << md(r.facts.gpu_type)
      << (r.facts.layout.empty() ? "" : " (" + md(r.facts.layout) + ")") << " at "
      << money(r.facts.gpu_usd_per_hour) << "/h (" << md(r.facts.price_source) << ", billed per "
      << md(r.facts.billing_unit) << ")";
  o << "\n- state: **" << md(state_line(r)) << "**"
    << (r.job.error.empty() ? "" : ": " + md(r.job.error)) << "\n"
    << "- started " << utc(r.job.created_ms) << ", finished " << utc(r.job.finished_ms) << " ("
    << secs(r.wall_s) << ")\n"
    << md_lines(handoff_line(r, "- ")) << md_lines(prepare_line(r, "- ")) << "\n## Cost\n\n"
    << "| pod | type | $/hour (source) | billed | cost | deleted |\n|---|---|---|---|---|---|\n";
  for (const auto& c : r.pods)
    o << "| " << md(c.pod.role) << " `" << md_code(pod_label(c.pod)) << "` | " << md(c.pod.gpu_type)
      << " | " << money(c.pod.usd_per_hour) << " (" << md(c.pod.price_source) << ") | "
      << secs(c.billed_s) << " | " << money(c.usd) << " | "
      << (c.confirmed_deleted ? "confirmed " + utc(c.pod.deleted_ms)
                              : "**NOT CONFIRMED: run `burst reap`**")
      << " |\n";
  o << "| **total** | | | | **" << money(r.total_usd) << "** | |\n\n"
    << "GPU " << money(r.gpu_usd) << ", CPU hand-off " << money(r.cpu_usd) << ". Utilization "
    << (r.utilization ? fixed(*r.utilization * 100, 0) + "%" : "-") << " (compute "
    << secs(r.compute_s) << " of " << secs(r.gpu_billed_s) << " GPU billed)";
  if (!r.facts.bound.empty()) o << "; the model predicted " << md(r.facts.bound) << "-bound";
  if (r.estimate.known) o << " at " << fixed(r.estimate.utilization * 100, 0) << "%";
  o << ".\n\n";
  o << owned_hosts_line(r);
  if (r.usd_per_item) o << "Cost per item: " << usd_per_item_text(r) << ".\n\n";
  o << "## Estimate vs actual\n\n| | estimate | actual | error |\n|---|---|---|---|\n";
  if (r.estimate.known) {
    o << "| cost | " << money(r.estimate.pods_usd()) << " | " << money(r.total_usd) << " | "
      << pct(r.usd_error_pct) << " |\n";
    if (r.estimate.transfer_usd > 0)
      o << "| transfer, billed per GB by the host | " << money(r.estimate.transfer_usd)
        << " | not measured (the provider's bill) | - |\n";
    if (r.pulled_transfer_usd)
      o << "| artefacts pulled, billed per GB by the host | not priced | "
        << money(*r.pulled_transfer_usd) << " (" << bytes(r.bytes_pulled) << " at "
        << fixed(r.estimate.upload_usd_per_gb, 3) << " $/GB) | - |\n";
    o << "| GPU billed | " << secs(r.estimate.billed_s) << " | " << secs(r.gpu_billed_s) << " | "
      << pct(r.gpu_time_error_pct) << " |\n"
      << "| run | " << (r.estimate.run_known ? secs(r.estimate.run_s) : "unknown") << " | "
      << secs(r.compute_s) << " | " << pct(r.run_error_pct) << " |\n\n"
      << "Estimate basis: " << md(r.estimate.basis) << "\n\n";
  } else {
    o << "| cost | (no plan) | " << money(r.total_usd) << " | - |\n\n";
  }
  if (!r.workers.empty()) {
    o << "## Workers\n\n"
      << md(curve_point_text(r)) << "\n\n"
      << "| worker | pods | items | cold start | sync | run | pull | billed | cost | utilization "
         "| run outcome |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const WorkerRow& w : r.workers) {
      std::string pods;
      for (size_t i = 0; i < w.pods.size(); ++i)
        pods += (i ? ", `" : "`") + md_code(w.pods[i]) + "`" +
                (i < w.where.size() ? " (" + md(w.where[i]) + ")" : "");
      o << "| w" << w.index << " | " << pods << " | " << w.items << " | " << secs(w.cold_start_s)
        << " | " << secs(w.sync_s) << " | " << secs(w.run_s) << " | " << secs(w.pull_s) << " | "
        << secs(w.billed_s) << " | " << money(w.usd) << " | "
        << (w.utilization ? fixed(*w.utilization * 100, 0) + "%" : "-") << " | " << md(w.outcome)
        << " |\n";
    }
    o << "\n";
    for (const WorkerRow& w : r.workers)  // where a fleet fallback moved a worker, and why
      if (!w.deviation.empty()) o << "- w" << w.index << ": " << md(w.deviation) << "\n";
    for (const WorkerRow& w : r.workers)
      if (!w.deviation.empty()) {
        o << "\n";
        break;
      }
  }
  if (r.facts.budget_usd || r.facts.deadline_s) {
    o << "## Budget\n\n";
    if (r.facts.budget_usd)
      o << "- budget.max_usd " << money(*r.facts.budget_usd) << ": "
        << fixed(r.budget_used_pct.value_or(0), 0) << "% used" << budget_parts(r) << "\n";
    if (r.facts.deadline_s)
      o << "- deadline " << secs(*r.facts.deadline_s) << ": "
        << (r.deadline_slack_pct ? fixed(*r.deadline_slack_pct, 0) + "% slack" : "not finished")
        << "\n";
    o << "\n";
  }
  if (r.stopped_by)
    o << "Stopped by " << r.stopped_by->limit << " (" << fixed(r.stopped_by->seconds, 0)
      << " s) in phase " << (r.stopped_by->phase.empty() ? "?" : r.stopped_by->phase) << ".\n\n";
  if (const auto lines = replica_lines(r); !lines.empty()) {
    o << "## Replicas\n\n";
    for (const auto& l : lines) o << "- " << md(l) << "\n";
    o << "\n";
  }
  if (const auto lines = spot_lines(r); !lines.empty()) {
    o << "## Spot\n\n";
    for (const auto& l : lines) o << "- " << md(l) << "\n";
    o << "\n";
  }
  o << "## Recommendations\n\n";
  // "ran as planned" only where it did: succeeded, every estimate within kRecommendEstimateOffPct.
  if (r.recommendations.empty())
    o << (r.outcome == "succeeded" ? "None: the job ran as planned.\n" : "None.\n");
  for (const auto& rec : r.recommendations)
    o << "- **" << md(rec.id) << "**: " << md(rec.text) << "\n";
  o << "\n## Phases\n\n| phase | pod | outcome | seconds | detail |\n|---|---|---|---|---|\n";
  for (const auto& p : r.phases)
    o << "| " << to_string(p.phase) << " | " << phase_role(p.phase) << " | " << to_string(p.outcome)
      << " | " << secs(p.ended_ms ? (p.ended_ms - p.started_ms) / 1000.0 : 0.0) << " | "
      << md(p.detail) << " |\n";
  o << "\n## Transfers\n\nsynced " << bytes(r.bytes_synced) << ", pulled " << bytes(r.bytes_pulled)
    << "\n";
  if (!r.transfers.empty()) {
    o << "\n| direction | files | bytes | seconds |\n|---|---|---|---|\n";
    for (const auto& t : r.transfers)
      o << "| " << md(t.direction) << " | " << t.files << " | " << t.bytes << " | "
        << t.millis / 1000.0 << " |\n";
  }
  return o.str();
}

std::string report_summary(const JobReport& r) {
  std::ostringstream o;
  o << "job " << r.job.id << " " << state_line(r) << " in " << secs(r.wall_s) << ", cost "
    << money(r.total_usd);
  if (r.estimate.known) o << " (estimate " << money(r.estimate.usd) << ")";
  if (r.usd_per_item) o << ", " << usd_per_item_text(r);
  o << "\n";
  for (const auto& c : r.pods)
    o << "  " << c.pod.role << " pod " << pod_label(c.pod) << " (" << c.pod.gpu_type << ", "
      << money(c.pod.usd_per_hour) << "/h): billed " << secs(c.billed_s) << ", " << money(c.usd)
      << (c.confirmed_deleted ? ", deleted" : ", DELETION NOT CONFIRMED: run `burst reap`") << "\n";
  o << handoff_line(r, "  ") << prepare_line(r, "  ");
  if (!r.workers.empty()) o << "  " << curve_point_text(r) << "\n";
  for (const WorkerRow& w : r.workers) {
    o << "  w" << w.index << ": ";
    if (w.items > 0) o << w.items << " items, ";
    o << w.pods.size() << (w.pods.size() == 1 ? " pod" : " pods");
    if (!w.where.empty()) o << " (" << w.where.back() << ")";
    o << ", run " << secs(w.run_s) << " of " << secs(w.billed_s) << " billed ("
      << (w.utilization ? fixed(*w.utilization * 100, 0) + "%" : "-") << "), " << money(w.usd)
      << ", " << w.outcome << "\n";
  }
  for (const auto& l : replica_lines(r)) o << "  " << l << "\n";
  if (const std::string own = owned_hosts_text(r); !own.empty())
    o << "  ran on your own hosts: " << own << "\n";
  for (const auto& l : spot_lines(r)) o << "  spot: " << l << "\n";
  for (const auto& rec : r.recommendations) o << "  next time: " << rec.text << "\n";
  return o.str();
}

}  // namespace burst
