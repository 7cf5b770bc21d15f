#include "daemon/dashboard.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "client/dashboard_session.h"
#include "daemon/dashboard_assets.h"
#include "daemon/dashboard_html.h"
#include "report/job_report.h"

namespace burst::daemon {
namespace {

ApiResponse dash_redirect(const std::string& location) {
  ApiResponse r = dash_reply(303, "", "text/plain");
  r.headers["Location"] = location;
  return r;
}

bool dash_safe_id(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

std::string dash_param(const ApiRequest& r, const std::string& key) {
  auto it = r.query.find(key);
  return it == r.query.end() ? "" : it->second;
}

}  // namespace

Dashboard::Dashboard(DashboardDeps deps) : d_(std::move(deps)), csrf_(dash_random_hex(32)) {}

std::optional<ApiResponse> Dashboard::handle(const ApiRequest& r) {
  std::optional<ApiResponse> answer = route(r);
  // Over a session (`burst dashboard`, the TCP login), links and redirects stay under its prefix.
  if (answer && dash_valid_base(r.dashboard_base)) dash_rebase(*answer, r.dashboard_base);
  return answer;
}

std::optional<ApiResponse> Dashboard::route(const ApiRequest& r) {
  const bool get = r.method == "GET";
  if (r.path == "/" && get) return dash_redirect("/dashboard");
  // Browsers ask for it on every origin (the HTML report has no icon link): nothing, not 404.
  if (r.path == "/favicon.ico" && get) return dash_reply(204, "", "image/x-icon");
  if ((r.path == "/dashboard" || r.path == "/dashboard/") && get) return jobs_page();
  if (r.path == "/dashboard/style.css" && get)
    return dash_reply(200, kDashboardCss, "text/css; charset=utf-8");
  if (r.path == "/dashboard/app.js" && get)
    return dash_reply(200, kDashboardJs, "text/javascript; charset=utf-8");
  if (r.path == "/dashboard/pods" && get) return pods_page(dash_param(r, "notice"));
  if (r.path == "/dashboard/pods/delete" && r.method == "POST") return delete_pod(r);
  if (r.path == "/dashboard/jobs/cancel" && r.method == "POST") return cancel_job(r);
  if (r.path == "/dashboard/spend" && get) return spend_page();
  if (r.path == "/dashboard/pipeline" && get) return pipeline_page(dash_param(r, "name"));
  const std::string prefix = "/dashboard/jobs/";
  if (r.path.rfind(prefix, 0) == 0 && get) {
    std::string rest = r.path.substr(prefix.size());
    std::string sub;
    if (size_t slash = rest.find('/'); slash != std::string::npos) {
      sub = rest.substr(slash + 1);
      rest.resize(slash);
    }
    if (!dash_safe_id(rest)) return dash_html(400, "Not a job id", "<p>Not a job id.</p>");
    if (sub.empty()) return job_page(rest);
    if (sub == "log") return log_poll(rest, r.query);
    if (sub == "report") return report_page(rest);
    if (sub == "report.json") {  // the API's JSON report, so the page needs no /v1 link
      ApiResponse json = d_.api.handle({"GET", "/v1/jobs/" + rest + "/report", {}, ""});
      ApiResponse out = dash_reply(json.status, std::move(json.body), "application/json");
      return out;
    }
  }
  return dash_html(404, "Not found", "<p>No such page.</p>");
}

ApiResponse Dashboard::log_poll(const std::string& id,
                                const std::map<std::string, std::string>& query) {
  int64_t offset = 0;
  if (auto it = query.find("offset"); it != query.end()) offset = std::atoll(it->second.c_str());
  if (offset < 0) offset = 0;
  const bool wait = query.count("wait") > 0;
  LogChunk c = d_.api.read_log(id, offset);
  if (!c.found) return dash_reply(404, "no job " + id + "\n", "text/plain; charset=utf-8");
  // Long polling: up to 8 s for new bytes (the socket's write deadline is 10 s), looking every
  // 200 ms. Only while a page follows a running job; an idle dashboard asks nothing.
  for (int i = 0; wait && i < 40 && c.data.empty() && !c.finished; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    c = d_.api.read_log(id, offset);
  }
  ApiResponse r = dash_reply(200, c.data, "text/plain; charset=utf-8");
  r.headers["X-Burst-Log-Offset"] = std::to_string(c.next_offset);
  r.headers["X-Burst-Job-Finished"] = c.finished ? "1" : "0";
  return r;
}

ApiResponse Dashboard::delete_pod(const ApiRequest& r) {
  // Same-origin proof (an Origin naming this very origin, never "null"; Sec-Fetch-Site, where
  // sent, same-origin) and the form's token, which only a page burstd served carries.
  if (!dash_same_origin(r.headers))
    return dash_html(403, "Refused", "<p>A form from another origin may not delete pods.</p>");
  if (!dash_secret_equal(dash_param(r, "csrf"), csrf_))
    return dash_html(403, "Refused",
                     "<p>The form's token is missing or stale: reload the page.</p>");
  const std::string provider = dash_param(r, "provider"), pod = dash_param(r, "pod");
  auto live = d_.store.live_pods();
  if (!live.ok())
    return dash_html(500, "Error", "<p>" + dash_escape(live.error().message) + "</p>");
  const PodRecord* found = nullptr;
  for (const PodRecord& p : *live)
    if (p.provider == provider && pod_label(p) == pod) found = &p;
  if (!found) return dash_redirect("/dashboard/pods?notice=" + std::string("no+such+live+pod"));
  std::string notice;
  if (d_.scheduler.is_running(found->job_id)) {
    // Its runner owns the pod: cancelling the job makes it delete and verify every pod it has.
    Status st = d_.scheduler.cancel(found->job_id);
    notice = st.ok() ? "job " + found->job_id +
                           " cancelled: its runner deletes its pods and verifies they are gone"
                     : "cancel failed: " + st.error().message;
  } else {
    notice = "reconciled: no action for " + pod;
    for (const PodAction& a : d_.reap())
      if (a.provider == provider && a.pod == pod) notice = pod + ": " + a.outcome;
  }
  return dash_redirect("/dashboard/pods?notice=" + dash_url_component(notice));
}

std::string Dashboard::cancel_form(const std::string& job_id) const {
  return "<form method=\"post\" action=\"/dashboard/jobs/cancel\" class=\"cancel\">"
         "<input type=\"hidden\" name=\"csrf\" value=\"" +
         csrf_ + "\"><input type=\"hidden\" name=\"job\" value=\"" + dash_escape(job_id) +
         "\"><button class=\"delete\" id=\"cancel\" type=\"submit\">cancel job</button></form>";
}

ApiResponse Dashboard::cancel_job(const ApiRequest& r) {
  if (!dash_same_origin(r.headers))
    return dash_html(403, "Refused", "<p>A form from another origin may not cancel jobs.</p>");
  if (!dash_secret_equal(dash_param(r, "csrf"), csrf_))
    return dash_html(403, "Refused",
                     "<p>The form's token is missing or stale: reload the page.</p>");
  const std::string id = dash_param(r, "job");
  if (!dash_safe_id(id)) return dash_html(400, "Not a job id", "<p>Not a job id.</p>");
  // A running job's runner stops its step and deletes and verifies its pods; a queued one is
  // dropped. Either way the job page shows the outcome once the runner has it.
  Status st = d_.scheduler.cancel(id);
  if (!st.ok())
    return dash_html(st.error().code == ErrorCode::kNotFound ? 404 : 500, "Cancel",
                     "<p>Cancel failed: " + dash_escape(st.error().message) + "</p>");
  return dash_redirect("/dashboard/jobs/" + id);
}

}  // namespace burst::daemon
