// `burst submit|status|logs|cancel`: talk to burstd over its Unix socket (docs/daemon.md).
// `burst run` needs no daemon; these do.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "daemon/daemon_client.h"

namespace burst {
namespace {

using nlohmann::json;

// Prints the daemon's error and returns the exit code for it.
int api_error(const daemon::ClientResponse& r) {
  json body = json::parse(r.body, nullptr, false);
  if (body.is_object() && body.contains("error")) {
    std::cerr << "burst: " << body["error"].get<std::string>() << "\n";
    if (body.contains("errors"))
      for (const auto& e : body["errors"]) std::cerr << e.get<std::string>() << "\n";
  } else {
    std::cerr << "burst: burstd answered HTTP " << r.status << ": " << r.body << "\n";
  }
  return r.status == 400 ? kExitUsage : kExitFailure;
}

// Streams the job's log until it ends; returns the job's exit code (0 succeeded, 1 otherwise).
int follow(daemon::DaemonClient& client, const std::string& id) {
  auto st = client.stream("/v1/jobs/" + id + "/log?follow=1&offset=0",
                          [](const std::string& d) { std::cout << d << std::flush; });
  if (!st.ok()) return fail(kExitFailure, st.error().message);
  if (*st != 200) return fail(kExitFailure, "no log for job " + id);
  auto r = client.get("/v1/jobs/" + id);
  if (!r.ok()) return fail(kExitFailure, r.error().message);
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
  auto r = client.post("/v1/jobs", json{{"path", path}}.dump());
  if (!r.ok()) return fail(kExitFailure, r.error().message);
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
  if (!r.ok()) return fail(kExitFailure, r.error().message);
  if (r->status != 200) return api_error(*r);
  json body = json::parse(r->body, nullptr, false);
  if (args.json || body.is_discarded()) {
    std::cout << r->body;
    return kExitOk;
  }
  if (body.is_array()) {
    for (const auto& j : body)
      std::cout << j.value("id", "") << "  " << j.value("pipeline", "") << "  "
                << j.value("state", "") << "  " << j.value("phase", "")
                << (j.value("held_by", "").empty() ? "" : "  waiting for " + j.value("held_by", ""))
                << "\n";
    if (body.empty()) std::cout << "no jobs\n";
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

int cmd_logs(const DaemonArgs& args) {
  daemon::DaemonClient client(daemon::resolve_socket(args.socket));
  if (args.follow) return follow(client, args.target);
  auto r = client.get("/v1/jobs/" + args.target + "/log?offset=0");
  if (!r.ok()) return fail(kExitFailure, r.error().message);
  if (r->status != 200) return api_error(*r);
  std::cout << r->body << std::flush;
  return kExitOk;
}

int cmd_cancel(const DaemonArgs& args) {
  daemon::DaemonClient client(daemon::resolve_socket(args.socket));
  auto r = client.post("/v1/jobs/" + args.target + "/cancel", "{}");
  if (!r.ok()) return fail(kExitFailure, r.error().message);
  if (r->status != 202) return api_error(*r);
  std::cout << "job " << args.target << ": cancel requested; its pods will be deleted\n";
  return kExitOk;
}

}  // namespace burst
