// burstd's dashboard under /dashboard (docs/dashboard.md): server-rendered HTML pages that work
// without JavaScript, plus one small script (no dependency, no CDN, served by burstd) for live
// updates. Pages: jobs now and recent, a job (phases, pods, live log, cost against estimate),
// pods alive with a delete button, the month's spend against the caps, the queue and why each
// job waits, a pipeline's recent runs (estimate vs actual, utilization against 70%). Served
// through the Api (daemon/web.h), so it has the API's listeners and auth.
//
// The two actions, deleting a pod and cancelling a job, are POST forms carrying a per-daemon CSRF
// token, refused without same-origin proof (dash_same_origin: an Origin naming this origin, never
// "null"). A cancel is `burst cancel`'s (Scheduler::cancel). A delete goes through the verified
// delete: a pod of a running job cancels the job (its runner deletes and
// verifies its pods); any other pod is left to a reconcile pass (the reaper deletes and verifies
// it). Every text from the store or a log is HTML-escaped; logs and errors are redacted before they
// are written, and rendered as stored.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/reaper.h"
#include "burst/clock.h"
#include "burst/store.h"
#include "daemon/api.h"
#include "daemon/scheduler.h"
#include "job/budget_guard.h"

namespace burst::daemon {

struct DashboardDeps {
  Store& store;
  Scheduler& scheduler;
  Clock& clock;
  Api& api;  // read_log
  std::function<std::vector<PodAction>()> reap;
  std::function<std::vector<BudgetCap>()> caps;
};

class Dashboard {
 public:
  explicit Dashboard(DashboardDeps deps);
  std::optional<ApiResponse> handle(const ApiRequest& request);
  const std::string& csrf_token() const { return csrf_; }

 private:
  std::optional<ApiResponse> route(const ApiRequest& request);
  ApiResponse jobs_page();
  ApiResponse job_page(const std::string& id);
  ApiResponse report_page(const std::string& id);  // the HTML report, as of now
  ApiResponse log_poll(const std::string& id, const std::map<std::string, std::string>& query);
  ApiResponse pods_page(const std::string& notice);
  ApiResponse spend_page();
  ApiResponse pipeline_page(const std::string& pipeline);  // its runs: estimate, utilization
  ApiResponse delete_pod(const ApiRequest& request);
  // POST /dashboard/jobs/cancel (job, csrf): as `burst cancel`; same proofs as delete_pod.
  ApiResponse cancel_job(const ApiRequest& request);
  std::string cancel_form(const std::string& job_id) const;  // the button, with the token

  DashboardDeps d_;
  std::string csrf_;
};

}  // namespace burst::daemon
