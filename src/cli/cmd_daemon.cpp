// `burst submit|status|logs|cancel|caps`: talk to burstd over its Unix socket (docs/daemon.md).
// `burst run` needs no daemon; these do.
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/job_json.h"
#include "cli/table.h"
#include "client/daemon_client.h"

namespace burst {
namespace {

using nlohmann::json;

// Prints the daemon's error and returns the exit code for it: 400 a usage error, 404 not found.
int api_error(const daemon::ClientResponse& r) {
  const int code = r.status == 400 ? kExitUsage : r.status == 404 ? kExitNotFound : kExitFailure;
  json body = json::parse(r.body, nullptr, false);
  if (body.is_object() && body.contains("error") && body["error"].is_string()) {
    std::vector<std::string> more;
    if (body.contains("errors"))
      for (const auto& e : body["errors"])
        if (e.is_string()) more.push_back(e.get<std::string>());
    return fail(code, body["error"].get<std::string>(), more);
  }
  return fail(code, "burstd answered HTTP " + std::to_string(r.status) + ": " + r.body);
}

// A request that reached no burstd: exit 5.
int unreachable(const Error& e) { return fail(e, ErrorOrigin::kDaemon); }

// Streams the job's log until it ends; returns the job's exit code (0 succeeded, 1 otherwise).
int follow(daemon::DaemonClient& client, const std::string& id) {
  auto st = client.stream("/v1/jobs/" + id + "/log?follow=1&offset=0",
                          [](const std::string& d) { std::cout << d << std::flush; });
  if (!st.ok()) return unreachable(st.error());
  if (*st != 200) return fail(kExitNotFound, "no log for job " + id);
  auto r = client.get("/v1/jobs/" + id);
  if (!r.ok()) return unreachable(r.error());
  json job = json::parse(r->body, nullptr, false);
  if (!job.is_object()) return kExitFailure;
  std::string state = job.value("state", "");
  std::cout << "job " << id << " " << state;
  if (!job.value("error", "").empty()) std::cout << ": " << job.value("error", "");
  if (!job.value("report", "").empty()) std::cout << " (report: " << job.value("report", "") << ")";
  std::cout << std::endl;
  return state == "succeeded" ? kExitOk : kExitFailure;
}

}  // namespace

int cmd_submit(const DaemonArgs& args) {
  std::error_code ec;
  std::string path = std::filesystem::absolute(args.target, ec).lexically_normal().string();
  // A missing file is exit 4 here as in every command that reads one (burstd would say 400).
  if (!std::filesystem::is_regular_file(path, ec))
    return fail(kExitNotFound, args.target + ": no such file");
  daemon::DaemonClient client(daemon::resolve_socket(args.socket));
  const passwd* pw = getpwuid(getuid());  // the per-user budget caps (docs/daemon.md)
  auto r = client.post("/v1/jobs", json{{"path", path}, {"user", pw ? pw->pw_name : ""}}.dump());
  if (!r.ok()) return unreachable(r.error());
  if (r->status != 201) return api_error(*r);
  json out = json::parse(r->body, nullptr, false);
  std::string id = out.value("id", "");
  canonical_job_keys(&out);
  if (args.json && !args.follow)
    std::cout << out.dump(2) << std::endl;
  else
    std::cout << "job " << id << " queued" << std::endl;
  return args.follow ? follow(client, id) : kExitOk;
}

// `status JOB` from the state dir: what the store recorded (no daemon needed). Returns -1 when
// the store has no such job, having printed nothing.
int stored_status(const DaemonArgs& args) {
  auto config = load_config_or_print();
  if (!config.ok()) return fail(config.error(), ErrorOrigin::kConfig);
  std::error_code ec;
  if (!std::filesystem::exists(config->db_path, ec) && config->store_url.empty()) return -1;
  auto store = open_store(*config);
  if (!store.ok()) return fail(store.error(), ErrorOrigin::kConfig);
  std::string id = args.target;
  if (id.empty()) {
    auto latest = latest_job_id(**store);
    if (!latest.ok()) return fail(latest.error());
    id = *latest;
  }
  SystemClock clock;
  auto job = stored_job_detail(**store, id, clock.now());
  if (!job.ok()) return -1;
  std::cout << (args.json ? job->dump(2) + "\n" : job_detail_text(*job));
  return kExitOk;
}

int cmd_status(const DaemonArgs& args) {
  const std::string socket = daemon::resolve_socket(args.socket);
  std::error_code ec;
  // One job and no burstd to ask (no socket named, none on disk): the state dir answers.
  if (!args.target.empty() && args.socket.empty() && !std::filesystem::exists(socket, ec)) {
    int rc = stored_status(args);
    if (rc >= 0) return rc;
    return fail(kExitNotFound,
                "no job " + args.target + " in the state dir (burst jobs lists them)");
  }
  daemon::DaemonClient client(socket);
  auto r = client.get(args.target.empty() ? "/v1/jobs" : "/v1/jobs/" + args.target);
  if (!r.ok() || (r->status == 404 && !args.target.empty())) {
    // burstd is gone or does not know the job: a job `burst run` ran is in the state dir.
    if (!args.target.empty())
      if (int rc = stored_status(args); rc >= 0) return rc;
    if (!r.ok()) return unreachable(r.error());
  }
  if (r->status != 200) return api_error(*r);
  json body = json::parse(r->body, nullptr, false);
  if (body.is_discarded()) {
    std::cout << r->body;
    return kExitOk;
  }
  if (body.is_array())
    for (auto& j : body) canonical_job_keys(&j);
  else
    canonical_job_keys(&body);
  if (args.json) {
    std::cout << body.dump(2) << "\n";
    return kExitOk;
  }
  if (body.is_array()) {
    Table table({{"JOB"}, {"PIPELINE"}, {"STATE"}, {"PHASE"}, {"WHY"}});
    for (const auto& j : body) {
      // A queued job says why it waits, in burstd's words (daemon/wait_reason.h: the dashboard
      // says the same); a burstd from before `why` gives the cap holding it.
      std::string why = j.value("why", "");
      if (why.empty() && !j.value("held_by", "").empty())
        why = "waiting for " + j.value("held_by", "");
      table.add({j.value("id", ""), j.value("pipeline", ""), j.value("state", ""),
                 j.value("phase", ""), why});
    }
    std::cout << (body.empty() ? "no jobs\n" : table.render());
    return kExitOk;
  }
  std::cout << job_detail_text(body);
  return kExitOk;
}

int cmd_daemon_logs(const DaemonArgs& args) {
  daemon::DaemonClient client(daemon::resolve_socket(args.socket));
  if (args.follow && !args.json) return follow(client, args.target);
  auto r = client.get("/v1/jobs/" + args.target + "/log?offset=0");
  if (!r.ok()) return unreachable(r.error());
  if (r->status != 200) return api_error(*r);
  if (args.json)
    std::cout << json{{"job_id", args.target},
                      {"job", args.target},
                      {"source", "burstd"},
                      {"log", r->body}}
                     .dump(2)
              << std::endl;
  else
    std::cout << r->body << std::flush;
  return kExitOk;
}

// The job `cancel` acts on when none is named: burstd's newest job that has not ended.
Result<std::string> latest_unfinished(daemon::DaemonClient& client) {
  auto r = client.get("/v1/jobs");
  if (!r.ok()) return r.error();
  json body = json::parse(r->body, nullptr, false);
  if (r->status == 200 && body.is_array())
    for (const auto& j : body)  // newest first, as burstd lists them
      if (j.is_object() && (j.value("state", "") == "queued" || j.value("state", "") == "running"))
        return j.value("id", "");
  return make_error(ErrorCode::kNotFound, "no queued or running job on burstd to cancel");
}

int cmd_cancel(const DaemonArgs& given) {
  daemon::DaemonClient client(daemon::resolve_socket(given.socket));
  DaemonArgs args = given;
  if (args.target.empty()) {
    auto id = latest_unfinished(client);
    if (!id.ok()) return fail(id.error(), ErrorOrigin::kDaemon);
    args.target = *id;
  }
  auto r = client.post("/v1/jobs/" + args.target + "/cancel", "{}");
  if (!r.ok()) return unreachable(r.error());
  if (r->status != 202) return api_error(*r);
  if (args.json) {
    std::cout << json{{"job_id", args.target}, {"job", args.target}, {"cancel", "requested"}}.dump(
                     2)
              << std::endl;
    return kExitOk;
  }
  std::cout << "job " << args.target << ": cancel requested; its pods will be deleted\n";
  return kExitOk;
}

namespace {

std::string dollars(const json& v) {
  if (!v.is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", v.get<double>());
  return buf;
}

}  // namespace

int cmd_caps(const CapsArgs& args) {
  daemon::DaemonClient client(daemon::resolve_socket(args.socket));
  if (args.set) {
    json req = {{"scope", args.scope}, {"subject", args.subject}, {"period", args.period}};
    if (args.usd == "none") {
      req["usd"] = nullptr;
    } else {
      char* end = nullptr;
      const double usd = std::strtod(args.usd.c_str(), &end);
      if (args.usd.empty() || *end != '\0' || !(usd >= 0) || usd > 1e12)
        return fail(kExitUsage,
                    "caps set: USD must be a number of dollars, 0 or more, or none (not " +
                        json(args.usd).dump() + ")");
      req["usd"] = usd;
    }
    const passwd* pw = getpwuid(getuid());  // the audit says who
    req["user"] = pw ? pw->pw_name : "";
    auto r = client.post("/v1/caps", req.dump());
    if (!r.ok()) return unreachable(r.error());
    if (r->status != 200) return api_error(*r);
    json body = json::parse(r->body, nullptr, false);
    if (args.json) {
      std::cout << (body.is_discarded() ? r->body : body.dump(2)) << "\n";
      return kExitOk;
    }
    const std::string what = args.scope + " " + args.subject + " per " + args.period;
    const json old = body.is_object() ? body.value("old_usd", json()) : json();
    std::cout << "cap " << what << ": " << (args.usd == "none" ? "removed" : dollars(req["usd"]))
              << " (was " << (old.is_number() ? dollars(old) : std::string("not set")) << ")\n";
    return kExitOk;
  }
  auto r = client.get("/v1/caps");
  if (!r.ok()) return unreachable(r.error());
  if (r->status != 200) return api_error(*r);
  json body = json::parse(r->body, nullptr, false);
  if (!body.is_object()) return fail(kExitFailure, "burstd's answer is not JSON");
  if (args.json) {
    std::cout << body.dump(2) << "\n";
    return kExitOk;
  }
  Table caps({{"SCOPE"}, {"SUBJECT"}, {"PERIOD"}, {"USD", Table::kRight}, {"SET BY"}, {"SET"}});
  for (const auto& c : body.value("caps", json::array()))
    caps.add({c.value("scope", ""), c.value("subject", ""), c.value("period", ""),
              dollars(c.value("usd", json())), c.value("set_by", ""), c.value("set", "")});
  std::cout << (caps.empty() ? "no caps in the store (burstd.yaml's budget: still holds)\n"
                             : caps.render());
  Table changes({{"WHEN"},
                 {"SCOPE"},
                 {"SUBJECT"},
                 {"PERIOD"},
                 {"FROM", Table::kRight},
                 {"TO", Table::kRight},
                 {"BY"}});
  for (const auto& c : body.value("changes", json::array()))
    changes.add({c.value("at", ""), c.value("scope", ""), c.value("subject", ""),
                 c.value("period", ""), dollars(c.value("old_usd", json())),
                 dollars(c.value("new_usd", json())), c.value("set_by", "")});
  if (!changes.empty()) std::cout << "\nchanges, newest first:\n" << changes.render();
  return kExitOk;
}

}  // namespace burst
