#include "cli/job_json.h"

#include "report/job_json.h"
#include "report/job_report.h"

namespace burst {

nlohmann::json job_json(const JobRecord& j, const JobReport* r) {
  return nlohmann::json::parse(burst::job_value(j, r).dump());  // report/job_json.h's shape
}

void canonical_job_keys(nlohmann::json* job) {
  if (!job->is_object()) return;
  if (job->contains("id") && !job->contains("job_id")) (*job)["job_id"] = (*job)["id"];
  if (job->contains("created") && !job->contains("started")) (*job)["started"] = (*job)["created"];
}

Result<nlohmann::json> stored_job_detail(Store& store, const std::string& id, TimePoint now) {
  auto detail = job_detail_value(store, id, now);  // report/job_json.h, burstd's shape
  if (!detail.ok()) return detail.error();
  nlohmann::json out = nlohmann::json::parse(detail->dump());
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
