// burstd's local API as plain functions of (method, path, query, body) -> (status, JSON), so
// tests call it in-process and the socket server (socket_server.h) is a thin adapter. Endpoints
// (docs/daemon.md):
//   GET  /v1/health                 pid, draining, running and queued counts
//   POST /v1/jobs                   {"path": "/abs/spec.yaml"} or {"spec": "<yaml>", "path": "..."}
//                                   (403 when the job would use `local` and the request may not)
//   GET  /v1/jobs                   queued, running and recent jobs
//   GET  /v1/jobs/<id>              one job with its phases and pods
//   GET  /v1/jobs/<id>/log?offset=N the job's log from byte N (see read_log)
//   POST /v1/jobs/<id>/cancel       queued: dropped; running: stopped, pods deleted
//   GET  /v1/jobs/<id>/report       the job's JSON report
//   GET  /v1/pods                   pods not confirmed deleted
//   POST /v1/reap                   reconcile now: delete pods no live job owns
//   GET  /v1/caps                   the team's caps kept in the store, and their changes
//   POST /v1/caps                   {"scope", "subject", "period", "usd"}: set or remove one
//                                   (daemon/api_caps.h)
// Every POST under /v1 needs "Content-Type: application/json" (415 otherwise), which a page of
// another site cannot send without CORS, and burstd answers no CORS preflight.
// Paths outside /v1 (burstd's /metrics and dashboard, daemon/web.h) go to the handler set_web
// installs, with the same listeners and auth.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "burst/config.h"
#include "burst/store.h"
#include "daemon/reconciler.h"
#include "daemon/scheduler.h"

namespace burst::daemon {

struct ApiRequest {
  std::string method;  // "GET" | "POST"
  std::string path;    // "/v1/jobs/abc"
  std::map<std::string, std::string> query;
  std::string body;
  // Request headers, names lower-cased (the dashboard reads Cookie, Origin, Host).
  std::map<std::string, std::string> headers = {};
  // False for requests over TCP (unless api.tcp_allow_local_provider): a job submitted then may
  // not use the built-in `local` provider, whose `run:` executes here as burstd's user.
  bool local_provider_allowed = true;
  // The dashboard session's path prefix ("/s/<hex>", client/dashboard_session.h) the request came
  // under, so the dashboard's links and redirects stay in it; "" for none.
  std::string dashboard_base = "";
};

struct ApiResponse {
  int status = 200;
  std::string body;  // JSON, or plain text for the log
  std::string content_type = "application/json";
  std::map<std::string, std::string> headers = {};
};

// A piece of a job's log: bytes from `offset`, where the next read starts, and whether the job
// has ended (so a follower that got nothing new can stop).
struct LogChunk {
  std::string data;
  int64_t next_offset = 0;
  bool finished = false;
  bool found = false;
};

class Api {
 public:
  // `reap` runs one reconcile pass (the daemon serialises it with its own).
  Api(Scheduler& scheduler, Store& store, const Config& config,
      std::function<std::vector<PodAction>()> reap);

  ApiResponse handle(const ApiRequest& request);
  LogChunk read_log(const std::string& job_id, int64_t offset, size_t max_bytes = 1 << 16);
  // Answers the paths outside /v1 (nullopt: 404 as any unknown endpoint). Before serving.
  void set_web(std::function<std::optional<ApiResponse>(const ApiRequest&)> web) {
    web_ = std::move(web);
  }

 private:
  ApiResponse submit(const std::string& body, bool local_provider_allowed);
  ApiResponse list_jobs();
  ApiResponse job_status(const std::string& id);
  ApiResponse log(const std::string& id, const std::map<std::string, std::string>& query);
  ApiResponse report(const std::string& id);
  ApiResponse pods();
  ApiResponse health();

  Scheduler& scheduler_;
  Store& store_;
  const Config& config_;
  std::function<std::vector<PodAction>()> reap_;
  std::function<std::optional<ApiResponse>(const ApiRequest&)> web_;
};

}  // namespace burst::daemon
