#include "daemon/api.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "daemon/api_caps.h"
#include "daemon/wait_reason.h"
#include "registry.h"
#include "report/job_json.h"
#include "report/job_report.h"

namespace burst::daemon {
namespace {

using nlohmann::json;

ApiResponse text(int status, std::string body, const char* type) {
  ApiResponse r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = type;
  return r;
}
ApiResponse reply(int status, const json& body) {
  // Paths, ids and spec errors echo the client's bytes, which need not be UTF-8: replace bad
  // bytes rather than throw (found by tests/fuzz/daemon_api_fuzz.cpp).
  return text(status, body.dump(2, ' ', false, json::error_handler_t::replace) + "\n",
              "application/json");
}
ApiResponse error(int status, const std::string& message, const json& details = nullptr) {
  json body = {{"error", message}};
  if (!details.is_null()) body["errors"] = details;
  return reply(status, body);
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '/');)
    if (!p.empty()) parts.push_back(p);
  return parts;
}

bool safe_id(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

// Whether the Content-Type header is application/json (any case, parameters such as charset after
// a ';' allowed).
bool json_content_type(const std::map<std::string, std::string>& headers) {
  auto it = headers.find("content-type");
  if (it == headers.end()) return false;
  std::string type = it->second.substr(0, it->second.find(';'));
  type.erase(0, type.find_first_not_of(" \t"));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.pop_back();
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return type == "application/json";
}

// report/job_json.h's job, as nlohmann for this adapter, with this API's own "created" (the same
// as started) kept for clients written before the shared keys.
json job_json(const JobRecord& j, const JobReport* r = nullptr) {
  json out = json::parse(burst::job_value(j, r).dump());
  out["created"] = out["started"];
  return out;
}

}  // namespace

Api::Api(Scheduler& scheduler, Store& store, const Config& config,
         std::function<std::vector<PodAction>()> reap)
    : scheduler_(scheduler), store_(store), config_(config), reap_(std::move(reap)) {}

ApiResponse Api::handle(const ApiRequest& r) {
  auto parts = split_path(r.path);
  if ((parts.empty() || parts[0] != "v1") && web_)
    if (auto answer = web_(r)) return *answer;
  if (parts.empty() || parts[0] != "v1") return error(404, "unknown endpoint " + r.path);
  parts.erase(parts.begin());
  const bool get = r.method == "GET", post = r.method == "POST";
  // A browser may send text/plain, form data or a beacon anywhere without asking (no CORS
  // preflight); application/json it may not. So every POST must say it is JSON, body or not.
  if (post && !json_content_type(r.headers))
    return error(415, "send the request with Content-Type: application/json");
  if (parts.size() == 1 && parts[0] == "health" && get) return health();
  if (parts.size() == 1 && parts[0] == "jobs" && post)
    return submit(r.body, r.local_provider_allowed);
  if (parts.size() == 1 && parts[0] == "jobs" && get) return list_jobs();
  if (parts.size() == 1 && parts[0] == "pods" && get) return pods();
  if (parts.size() == 1 && parts[0] == "caps" && (get || post)) {  // daemon/api_caps.h
    CapsAnswer a =
        get ? caps_list(store_) : caps_set(store_, r.body, to_unix_ms(SystemClock().now()));
    return reply(a.status, a.body);
  }
  if (parts.size() == 1 && parts[0] == "reap" && post) {
    json out = json::array();
    for (const auto& a : reap_())
      out.push_back(
          {{"provider", a.provider}, {"pod", a.pod}, {"job_id", a.job_id}, {"outcome", a.outcome}});
    return reply(200, out);
  }
  if (parts.size() >= 2 && parts[0] == "jobs") {
    const std::string& id = parts[1];
    if (!safe_id(id)) return error(400, "not a job id: \"" + id + "\"");
    if (parts.size() == 2 && get) return job_status(id);
    if (parts.size() == 3 && parts[2] == "log" && get) return log(id, r.query);
    if (parts.size() == 3 && parts[2] == "report" && get) return report(id);
    if (parts.size() == 3 && parts[2] == "cancel" && post) {
      Status st = scheduler_.cancel(id);
      if (!st.ok()) return error(404, st.error().message);
      return reply(202, {{"id", id}, {"cancel", "requested"}});
    }
  }
  return error(404, "unknown endpoint " + r.method + " " + r.path);
}

ApiResponse Api::health() {
  int queued = 0;
  for (const auto& j : scheduler_.jobs()) queued += j.state == JobState::kQueued;
  return reply(200, {{"pid", getpid()},
                     {"draining", scheduler_.draining()},
                     {"running", scheduler_.running_count()},
                     {"queued", queued}});
}

ApiResponse Api::submit(const std::string& body, bool local_provider_allowed) {
  json req = json::parse(body, nullptr, false);
  if (req.is_discarded() || !req.is_object())
    return error(400, "expected a JSON object {\"path\": ...} or {\"spec\": ..., \"path\": ...}");
  if (req.contains("path") && !req["path"].is_string())
    return error(400, "\"path\" must be a string");
  const std::string path = req.value("path", "");
  // Who submits (the per-user budget caps): what the client says; the token (TCP) or the socket's
  // mode (Unix) is the authentication, so a user cap guards against mistakes, not a liar.
  if (req.contains("user") && !req["user"].is_string())
    return error(400, "\"user\" must be a string");
  const std::string user = req.value("user", "");
  if (user.size() > 64 || std::any_of(user.begin(), user.end(), [](char ch) {
        return std::iscntrl(static_cast<unsigned char>(ch)) != 0;
      }))
    return error(400, "\"user\" must be at most 64 characters, none a control character");
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = make_error(ErrorCode::kInvalid, "");
  std::string spec_text;  // kept in the queue's row, so a restart parses what was submitted
  if (req.contains("spec") && req["spec"].is_string()) {
    spec_text = req["spec"].get<std::string>();
    spec = parse_spec(spec_text, path.empty() ? "(inline)" : path, &errors, provider_names());
  } else if (!path.empty()) {
    if (path[0] != '/') return error(400, "path must be absolute: " + path);
    spec = load_spec_file(path, &errors, provider_names());
  } else {
    return error(400, "give the spec's \"path\" (absolute) or its text as \"spec\"");
  }
  if (!spec.ok()) {
    json list = json::array();
    for (const auto& e : errors) list.push_back(e.text);
    if (errors.empty()) list.push_back(spec.error().message);
    return error(400, "invalid spec", list);
  }
  if (!local_provider_allowed) {
    // A provider that runs steps on this machine (ProviderTraits::runs_here: `local`) runs the
    // job's `run:` as burstd's user: not for a token holder unless burstd.yaml says so. A spec
    // without resources.providers runs on the default provider (the local one,
    // default_provider_name()), so it is refused too rather than sent to a paid cloud.
    const auto& allowed = spec->resources.providers;
    auto runs_here = [](const std::string& name) {
      const ProviderTraits* t = find_provider_traits(name);
      return t && t->runs_here;
    };
    if ((allowed.empty() && runs_here(default_provider_name())) ||
        std::any_of(allowed.begin(), allowed.end(), runs_here))
      return error(403, std::string("resources.providers: ") +
                            (allowed.empty() ? "none named, so the job would use the local "
                                               "provider (the default), which"
                                             : "the local provider") +
                            " runs the job on burstd's machine as its user; jobs submitted over "
                            "TCP may not use it: name cloud providers, or set "
                            "api.tcp_allow_local_provider: true in burstd.yaml");
  }
  if (scheduler_.draining()) return error(503, "burstd is draining (shutting down); not queued");
  std::string id = scheduler_.submit(std::move(*spec), "submitted", spec_text, user);
  if (id.empty()) return error(500, "the store refused the job (see burstd's log); not queued");
  return reply(201, {{"id", id}, {"state", to_string(JobState::kQueued)}});
}

ApiResponse Api::list_jobs() {
  json out = json::array();
  std::set<std::string> listed;
  const std::vector<JobView> views = scheduler_.jobs();
  for (const auto& j : views) {
    if (j.state == JobState::kRunning) {
      if (auto rec = store_.get_job(j.id); rec.ok()) {
        json v = job_json(*rec);
        v["reason"] = j.reason;
        out.push_back(v);
        listed.insert(j.id);
        continue;
      }
    }
    out.push_back({{"id", j.id},
                   {"pipeline", j.pipeline},
                   {"state", to_string(j.state)},
                   {"phase", to_string(j.state)},
                   {"reason", j.reason},
                   {"held_by", j.held_by},
                   {"why", wait_reason(j, views)}});
    listed.insert(j.id);
  }
  if (auto recent = store_.recent_jobs(50); recent.ok())
    for (const auto& j : *recent)
      if (!listed.count(j.id)) out.push_back(job_json(j));
  return reply(200, out);
}

ApiResponse Api::job_status(const std::string& id) {
  auto rec = store_.get_job(id);
  if (!rec.ok()) {
    const std::vector<JobView> views = scheduler_.jobs();
    for (const auto& j : views)
      if (j.id == id)
        return reply(200, {{"id", j.id},
                           {"pipeline", j.pipeline},
                           {"state", to_string(j.state)},
                           {"phase", to_string(j.state)},
                           {"reason", j.reason},
                           {"held_by", j.held_by},
                           {"why", wait_reason(j, views)},
                           {"phases", json::array()},
                           {"pods", json::array()}});
    return error(404, "no job " + id);
  }
  // One job with its cost and wall time as its report gives them (the same as `burst jobs
  // --json`), its phases and pods: report/job_json.h, as `burst status JOB` reads the store.
  auto detail = job_detail_value(store_, id, SystemClock().now());
  if (!detail.ok()) return error(500, detail.error().message);
  json out = json::parse(detail->dump());
  out["created"] = out["started"];
  return reply(200, out);
}

LogChunk Api::read_log(const std::string& job_id, int64_t offset, size_t max_bytes) {
  LogChunk c;
  c.next_offset = offset;
  auto rec = store_.get_job(job_id);
  bool queued = false;
  for (const auto& j : scheduler_.jobs()) queued = queued || j.id == job_id;
  c.found = rec.ok() || queued;
  c.finished = rec.ok() && rec->state != JobState::kRunning && !scheduler_.is_running(job_id);
  std::ifstream f(config_.logs_dir + "/" + job_id + ".log", std::ios::binary);
  if (!f) return c;
  f.seekg(offset);
  std::string buf(max_bytes, '\0');
  f.read(buf.data(), static_cast<std::streamsize>(max_bytes));
  buf.resize(static_cast<size_t>(f.gcount()));
  c.next_offset = offset + static_cast<int64_t>(buf.size());
  if (buf.size() == max_bytes) c.finished = false;  // more to read first
  c.data = std::move(buf);
  return c;
}

ApiResponse Api::log(const std::string& id, const std::map<std::string, std::string>& query) {
  int64_t offset = 0;
  if (auto it = query.find("offset"); it != query.end()) offset = std::atoll(it->second.c_str());
  LogChunk c = read_log(id, offset < 0 ? 0 : offset);
  if (!c.found) return error(404, "no job " + id);
  ApiResponse r = text(200, c.data, "text/plain");
  r.headers["X-Burst-Log-Offset"] = std::to_string(c.next_offset);
  r.headers["X-Burst-Job-Finished"] = c.finished ? "1" : "0";
  return r;
}

ApiResponse Api::report(const std::string& id) {
  auto rec = store_.get_job(id);
  if (!rec.ok()) return error(404, "no job " + id);
  if (rec->report_path.empty()) return error(404, "job " + id + " has no report yet");
  std::ifstream f(rec->report_path);
  if (!f) return error(404, "report " + rec->report_path + " is missing");
  std::stringstream ss;
  ss << f.rdbuf();
  return text(200, ss.str(), "application/json");
}

ApiResponse Api::pods() {
  auto live = store_.live_pods();
  if (!live.ok()) return error(500, live.error().message);
  json out = json::array();
  for (const auto& p : *live) out.push_back(json::parse(burst::pod_value(p).dump()));
  return reply(200, out);
}

}  // namespace burst::daemon
