#include "report/job_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace burst {
using json = nlohmann::json;

namespace {

std::string money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, usd < 0.01 && usd > 0 ? "$%.4f" : "$%.2f", usd);
  return buf;
}

std::string secs(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

std::string utc(int64_t ms) { return ms ? format_utc(from_unix_ms(ms)) : "-"; }

json estimate_of(const JobReport& r) {
  json e = json::parse(r.estimate_json.empty() ? "null" : r.estimate_json, nullptr, false);
  return e.is_discarded() ? json(nullptr) : e;
}

// "hand-off: upload from this machine ... (upload ok)" or "" when the job had none.
std::string handoff_line(const JobReport& r, const char* indent) {
  if (r.handoff.empty()) return "";
  return std::string(indent) + "hand-off (" + r.handoff + "): " + r.handoff_why + "; upload " +
         (r.handoff_outcome.empty() ? "not run" : r.handoff_outcome) + "\n";
}

}  // namespace

Result<JobReport> build_job_report(Store& store, const std::string& job_id, TimePoint as_of) {
  JobReport r;
  auto job = store.get_job(job_id);
  if (!job.ok()) return job.error();
  r.job = *job;
  r.as_of_ms = to_unix_ms(as_of);
  auto phases = store.phases(job_id);
  if (!phases.ok()) return phases.error();
  r.phases = *phases;
  auto pods = store.pods_of_job(job_id);
  if (!pods.ok()) return pods.error();
  for (const PodRecord& p : *pods) {
    PodCost c{p};
    c.confirmed_deleted = p.state == "deleted" || p.state == "create-failed";
    int64_t end = p.deleted_ms ? p.deleted_ms : r.as_of_ms;
    c.billed_s = p.state == "create-failed" ? 0 : (end - p.created_ms) / 1000.0;
    c.usd = c.billed_s / 3600.0 * p.usd_per_hour;
    r.total_usd += c.usd;
    r.pods.push_back(c);
  }
  auto transfers = store.transfers(job_id);
  if (!transfers.ok()) return transfers.error();
  r.transfers = *transfers;
  r.estimate_json = r.job.estimate_json;
  for (const PhaseRecord& p : r.phases) {
    // The plan phase's detail carries the hand-off choice; the upload phase says how it went.
    if (size_t at = p.detail.find("hand-off: "); p.phase == "plan" && at != std::string::npos)
      r.handoff_why = p.detail.substr(at + 10);
    if (p.phase == "upload-on-gpu-pod" || p.phase == "upload-local") {
      r.handoff = p.phase == "upload-local" ? "local" : "gpu-pod";
      r.handoff_outcome = p.outcome;
    }
  }
  if (r.handoff.empty() && !r.handoff_why.empty())
    r.handoff = r.handoff_why.find("from this machine after") == 0 ? "local" : "gpu-pod";
  int64_t end = r.job.finished_ms ? r.job.finished_ms : r.as_of_ms;
  r.wall_s = (end - r.job.created_ms) / 1000.0;
  return r;
}

std::string report_json(const JobReport& r) {
  json j;
  j["job"] = {{"id", r.job.id},
              {"pipeline", r.job.pipeline},
              {"spec", r.job.spec_path},
              {"state", r.job.state},
              {"error", r.job.error},
              {"provider", r.job.provider},
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
                         {"created", utc(c.pod.created_ms)},
                         {"deleted", utc(c.pod.deleted_ms)},
                         {"deletion_confirmed", c.confirmed_deleted},
                         {"billed_s", c.billed_s},
                         {"usd", c.usd}});
  j["phases"] = json::array();
  for (const auto& p : r.phases)
    j["phases"].push_back({{"phase", p.phase},
                           {"outcome", p.outcome},
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
  json est = estimate_of(r);
  j["estimate"] = est;
  j["actual"] = {{"usd", r.total_usd}, {"wall_s", r.wall_s}};
  return j.dump(2) + "\n";
}

std::string report_markdown(const JobReport& r) {
  std::ostringstream o;
  o << "# burst job " << r.job.id << "\n\n"
    << "- pipeline: `" << r.job.pipeline << "` (" << r.job.spec_path << ")\n"
    << "- provider: " << r.job.provider << "\n"
    << "- state: **" << r.job.state << "**" << (r.job.error.empty() ? "" : ": " + r.job.error)
    << "\n"
    << "- started " << utc(r.job.created_ms) << ", finished " << utc(r.job.finished_ms) << " ("
    << secs(r.wall_s) << ")\n"
    << handoff_line(r, "- ") << "\n## Cost\n\n"
    << "| pod | type | $/hour (source) | billed | cost | deleted |\n|---|---|---|---|---|---|\n";
  for (const auto& c : r.pods)
    o << "| " << c.pod.role << " `" << c.pod.pod_id << "` | " << c.pod.gpu_type << " | "
      << money(c.pod.usd_per_hour) << " (" << c.pod.price_source << ") | " << secs(c.billed_s)
      << " | " << money(c.usd) << " | "
      << (c.confirmed_deleted ? "confirmed " + utc(c.pod.deleted_ms)
                              : "**NOT CONFIRMED: run `burst reap`**")
      << " |\n";
  o << "| **total** | | | | **" << money(r.total_usd) << "** | |\n\n";
  json est = estimate_of(r);
  o << "## Estimate vs actual\n\n| | estimate | actual |\n|---|---|---|\n";
  if (est.is_object()) {
    o << "| cost | " << money(est.value("usd", 0.0)) << " | " << money(r.total_usd) << " |\n"
      << "| GPU time | " << secs(est.value("total_s", 0.0)) << " | "
      << secs(r.pods.empty() ? 0 : r.pods.front().billed_s) << " |\n\n"
      << "Estimate basis: " << est.value("basis", "") << "\n\n";
  } else {
    o << "| cost | (no plan) | " << money(r.total_usd) << " |\n\n";
  }
  o << "## Phases\n\n| phase | outcome | seconds | detail |\n|---|---|---|---|\n";
  for (const auto& p : r.phases)
    o << "| " << p.phase << " | " << p.outcome << " | "
      << secs(p.ended_ms ? (p.ended_ms - p.started_ms) / 1000.0 : 0.0) << " | " << p.detail
      << " |\n";
  if (!r.transfers.empty()) {
    o << "\n## Transfers\n\n| direction | files | bytes | seconds |\n|---|---|---|---|\n";
    for (const auto& t : r.transfers)
      o << "| " << t.direction << " | " << t.files << " | " << t.bytes << " | " << t.millis / 1000.0
        << " |\n";
  }
  return o.str();
}

std::string report_summary(const JobReport& r) {
  std::ostringstream o;
  o << "job " << r.job.id << " " << r.job.state << " in " << secs(r.wall_s) << ", cost "
    << money(r.total_usd);
  json est = estimate_of(r);
  if (est.is_object()) o << " (estimate " << money(est.value("usd", 0.0)) << ")";
  o << "\n";
  for (const auto& c : r.pods)
    o << "  " << c.pod.role << " pod " << c.pod.pod_id << " (" << c.pod.gpu_type << ", "
      << money(c.pod.usd_per_hour) << "/h): billed " << secs(c.billed_s) << ", " << money(c.usd)
      << (c.confirmed_deleted ? ", deleted" : ", DELETION NOT CONFIRMED: run `burst reap`") << "\n";
  o << handoff_line(r, "  ");
  return o.str();
}

}  // namespace burst
