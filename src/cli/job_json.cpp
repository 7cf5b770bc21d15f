#include "cli/job_json.h"

#include "report/job_report.h"

namespace burst {

nlohmann::json job_json(const JobRecord& j, const JobReport* r) {
  const auto utc = [](int64_t ms) { return ms ? format_utc(from_unix_ms(ms)) : std::string(); };
  double seconds =
      r ? r->wall_s : (j.finished_ms && j.created_ms ? (j.finished_ms - j.created_ms) / 1000.0 : 0);
  return {{"job_id", j.id},
          {"id", j.id},
          {"pipeline", j.pipeline},
          {"state", to_string(j.state)},
          {"phase", j.phase},
          {"provider", j.provider},
          {"started", utc(j.created_ms)},
          {"finished", utc(j.finished_ms)},
          {"seconds", seconds},
          {"usd", r ? r->total_usd : 0.0},
          {"error", j.error},
          {"report", j.report_path}};
}

void canonical_job_keys(nlohmann::json* job) {
  if (!job->is_object()) return;
  if (job->contains("id") && !job->contains("job_id")) (*job)["job_id"] = (*job)["id"];
  if (job->contains("created") && !job->contains("started")) (*job)["started"] = (*job)["created"];
}

Result<nlohmann::json> stored_job_detail(Store& store, const std::string& id, TimePoint now) {
  auto rec = store.get_job(id);
  if (!rec.ok()) return rec.error();
  auto report = build_job_report(store, id, now);
  nlohmann::json out = job_json(*rec, report.ok() ? &*report : nullptr);
  nlohmann::json phases = nlohmann::json::array();
  if (auto ps = store.phases(id); ps.ok())
    for (const PhaseRecord& p : *ps)
      phases.push_back({{"phase", to_string(p.phase)},
                        {"started", format_utc(from_unix_ms(p.started_ms))},
                        {"ended", p.ended_ms ? format_utc(from_unix_ms(p.ended_ms)) : ""},
                        {"outcome", to_string(p.outcome)},
                        {"detail", p.detail}});
  out["phases"] = phases;
  nlohmann::json pods = nlohmann::json::array();
  if (auto ps = store.pods_of_job(id); ps.ok())
    for (const PodRecord& p : *ps)
      pods.push_back({{"provider", p.provider},
                      {"pod", p.pod_id},
                      {"role", p.role},
                      {"state", to_string(p.state)},
                      {"gpu", p.gpu_type},
                      {"usd_per_hour", p.usd_per_hour}});
  out["pods"] = pods;
  out["source"] = "state dir";
  return out;
}

std::string job_detail_text(const nlohmann::json& body) {
  auto str = [](const nlohmann::json& o, const char* key) {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string out = "job " + str(body, "id") + " (" + str(body, "pipeline") +
                    "): " + str(body, "state") + ", phase " + str(body, "phase") + "\n";
  if (!str(body, "error").empty()) out += "  error: " + str(body, "error") + "\n";
  if (!str(body, "held_by").empty()) out += "  waiting for " + str(body, "held_by") + "\n";
  if (auto it = body.find("phases"); it != body.end() && it->is_array())
    for (const auto& p : *it) {
      const std::string outcome = str(p, "outcome");
      out += "  " + str(p, "phase") + "  " + (outcome.empty() ? "running" : outcome) + "  " +
             str(p, "detail") + "\n";
    }
  if (auto it = body.find("pods"); it != body.end() && it->is_array())
    for (const auto& p : *it)
      out += "  pod " + str(p, "provider") + " " + str(p, "pod") + " (" + str(p, "role") +
             "): " + str(p, "state") + "\n";
  return out;
}

Result<std::string> latest_job_id(Store& store) {
  auto latest = store.recent_jobs(1);
  if (!latest.ok()) return latest.error();
  if (latest->empty())
    return make_error(ErrorCode::kNotFound, "no jobs yet (burst run FILE starts one)");
  return latest->front().id;
}

}  // namespace burst
