// `burst submit|status|logs|cancel`: talk to burstd over its Unix socket (docs/daemon.md).
// `burst run` needs no daemon; these do.
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/table.h"
#include "daemon/daemon_client.h"

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
  daemon::DaemonClient client(daemon::resolve_socket(args.socket));
  std::error_code ec;
  std::string path = std::filesystem::absolute(args.target, ec).lexically_normal().string();
  const passwd* pw = getpwuid(getuid());  // the per-user budget caps (docs/daemon.md)
  auto r = client.post("/v1/jobs", json{{"path", path}, {"user", pw ? pw->pw_name : ""}}.dump());
  if (!r.ok()) return unreachable(r.error());
  if (r->status != 201) return api_error(*r);
  json out = json::parse(r->body, nullptr, false);
  std::string id = out.value("id", "");
  if (args.json && !args.follow)
    std::cout << out.dump(2) << std::endl;
  else
    std::cout << "job " << id << " queued" << std::endl;
  return args.follow ? follow(client, id) : kExitOk;
}

int cmd_status(const DaemonArgs& args) {
  daemon::DaemonClient client(daemon::resolve_socket(args.socket));
  auto r = client.get(args.target.empty() ? "/v1/jobs" : "/v1/jobs/" + args.target);
  if (!r.ok()) return unreachable(r.error());
  if (r->status != 200) return api_error(*r);
  json body = json::parse(r->body, nullptr, false);
  if (args.json || body.is_discarded()) {
    std::cout << r->body;
    return kExitOk;
  }
  if (body.is_array()) {
    Table table({{"JOB"}, {"PIPELINE"}, {"STATE"}, {"PHASE"}, {"WHY"}});
    for (const auto& j : body) {
      // A queued job says why it waits: the budget cap holding it, else why it was queued.
      std::string why =
          j.value("held_by", "").empty() ? "" : "waiting for " + j.value("held_by", "");
      if (why.empty() && j.value("state", "") == "queued") why = j.value("reason", "");
      table.add({j.value("id", ""), j.value("pipeline", ""), j.value("state", ""),
                 j.value("phase", ""), why});
    }
    std::cout << (body.empty() ? "no jobs\n" : table.render());
    return kExitOk;
  }
  std::cout << "job " << body.value("id", "") << " (" << body.value("pipeline", "")
            << "): " << body.value("state", "") << ", phase " << body.value("phase", "") << "\n";
  if (!body.value("error", "").empty()) std::cout << "  error: " << body.value("error", "") << "\n";
  if (!body.value("held_by", "").empty())
    std::cout << "  waiting for " << body.value("held_by", "") << "\n";
  for (const auto& p : body["phases"])
    std::cout << "  " << p.value("phase", "") << "  " << p.value("outcome", "running") << "  "
              << p.value("detail", "") << "\n";
  for (const auto& p : body["pods"])
    std::cout << "  pod " << p.value("provider", "") << " " << p.value("pod", "") << " ("
              << p.value("role", "") << "): " << p.value("state", "") << "\n";
  return kExitOk;
}

int cmd_daemon_logs(const DaemonArgs& args) {
  daemon::DaemonClient client(daemon::resolve_socket(args.socket));
  if (args.follow && !args.json) return follow(client, args.target);
  auto r = client.get("/v1/jobs/" + args.target + "/log?offset=0");
  if (!r.ok()) return unreachable(r.error());
  if (r->status != 200) return api_error(*r);
  if (args.json)
    std::cout << json{{"job", args.target}, {"source", "burstd"}, {"log", r->body}}.dump(2)
              << std::endl;
  else
    std::cout << r->body << std::flush;
  return kExitOk;
}

int cmd_cancel(const DaemonArgs& args) {
  daemon::DaemonClient client(daemon::resolve_socket(args.socket));
  auto r = client.post("/v1/jobs/" + args.target + "/cancel", "{}");
  if (!r.ok()) return unreachable(r.error());
  if (r->status != 202) return api_error(*r);
  if (args.json) {
    std::cout << json{{"job", args.target}, {"cancel", "requested"}}.dump(2) << std::endl;
    return kExitOk;
  }
  std::cout << "job " << args.target << ": cancel requested; its pods will be deleted\n";
  return kExitOk;
}

}  // namespace burst
