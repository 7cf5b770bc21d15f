// The dashboard's pages (daemon/dashboard.h): read from the store and the scheduler, rendered
// as HTML with every text escaped, charts from the reports' SVG module (report/svg_chart.h).
#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "daemon/dashboard.h"
#include "daemon/dashboard_html.h"
#include "daemon/dashboard_runs.h"
#include "daemon/wait_reason.h"
#include "report/job_report.h"
#include "report/svg_chart.h"
#include "util/progress_line.h"

namespace burst::daemon {
namespace {

std::string dash_cell(const std::string& text, const char* cls = nullptr) {
  return std::string("<td") + (cls ? std::string(" class=\"") + cls + "\"" : "") + ">" +
         dash_escape(text) + "</td>";
}

std::string dash_state(const std::string& state) {
  return "<td class=\"state-" + dash_escape(state) + "\">" + dash_escape(state) + "</td>";
}

std::string dash_job_link(const std::string& id) {
  return "<a href=\"/dashboard/jobs/" + dash_escape(id) + "\">" + dash_escape(id) + "</a>";
}

std::string dash_pipeline_href(const std::string& pipeline) {
  return "/dashboard/pipeline?name=" + dash_url_component(pipeline);
}

struct DashJobMoney {
  double so_far = 0;
  double estimate = -1;
  int workers = 0;
  std::string gpu;
};

// The job's cost as its report computes it (report/job_report.h), as of its end or now, so the
// dashboard and the report never disagree.
DashJobMoney dash_money(Store& store, const JobRecord& j, int64_t now_ms) {
  DashJobMoney m;
  auto r = build_job_report(store, j.id, from_unix_ms(j.finished_ms ? j.finished_ms : now_ms));
  if (!r.ok()) return m;
  m.so_far = r->total_usd;
  if (r->estimate.known) m.estimate = r->estimate.usd;
  m.workers = r->workers.empty() ? 0 : static_cast<int>(r->workers.size());
  int gpu_pods = 0;
  for (const PodCost& c : r->pods)
    if (c.pod.role == "gpu" && c.pod.state != PodRecordState::kCreateFailed) {
      ++gpu_pods;
      m.gpu = (c.pod.gpu_count > 1 ? std::to_string(c.pod.gpu_count) + "× " : "") + c.pod.gpu_type;
    }
  if (m.workers == 0) m.workers = gpu_pods;
  return m;
}

std::string dash_cost_text(const DashJobMoney& m) {
  return dash_usd(m.so_far) + (m.estimate >= 0 ? " of " + dash_usd(m.estimate) + " est." : "");
}

}  // namespace

ApiResponse Dashboard::jobs_page() {
  const int64_t now = to_unix_ms(d_.clock.now());
  std::string body;
  std::set<std::string> listed;
  bool active = false;
  // The queue, and why each job waits.
  std::vector<JobView> views = d_.scheduler.jobs();
  std::string queue;
  for (const JobView& v : views) {
    if (v.state != JobState::kQueued) continue;
    active = true;
    const std::string why = wait_reason(v, views);  // as `burst status` says it
    queue += "<tr><td>" + dash_escape(v.id) + "</td>" + dash_cell(v.pipeline) +
             dash_cell(v.reason) + dash_cell(dash_duration(now - v.queued_ms), "n") +
             dash_cell(why) + "</tr>";
    listed.insert(v.id);
  }
  body += "<h2>Queue</h2>";
  body += queue.empty() ? "<p>Nothing is waiting.</p>"
                        : "<table><tr><th>job</th><th>pipeline</th><th>reason</th><th>waiting"
                          "</th><th>why it waits</th></tr>" +
                              queue + "</table>";
  body +=
      "<h2>Jobs now and recent</h2><table><tr><th>job</th><th>state</th><th>phase</th>"
      "<th>pipeline</th><th class=\"wide\">provider</th><th>GPU × workers</th><th>elapsed</th>"
      "<th>$ so far / estimate</th></tr>";
  auto recent = d_.store.recent_jobs(30);
  // A job the scheduler started whose runner has not recorded it yet (it is planning): listed
  // as starting, so it never vanishes between the queue and the store.
  std::set<std::string> recorded;
  if (recent.ok())
    for (const JobRecord& j : *recent) recorded.insert(j.id);
  for (const JobView& v : views)
    if (v.state == JobState::kRunning && !recorded.count(v.id) && !d_.store.get_job(v.id).ok()) {
      active = true;
      body += "<tr><td>" + dash_job_link(v.id) + "</td>" + dash_state("running") +
              dash_cell("starting") + dash_cell(v.pipeline) + dash_cell("", "wide") +
              dash_cell("-") + dash_cell(dash_duration(now - v.queued_ms), "n") +
              dash_cell("-", "n") + "</tr>";
    }
  if (recent.ok())
    for (const JobRecord& j : *recent) {
      if (listed.count(j.id)) continue;
      active = active || j.state == JobState::kRunning;
      const DashJobMoney m = dash_money(d_.store, j, now);
      const int64_t end = j.finished_ms ? j.finished_ms : now;
      body += "<tr><td>" + dash_job_link(j.id) + "</td>" + dash_state(to_string(j.state)) +
              dash_cell(to_string(j.phase)) + "<td><a href=\"" + dash_pipeline_href(j.pipeline) +
              "\">" + dash_escape(j.pipeline) + "</a></td>" + dash_cell(j.provider, "wide") +
              dash_cell(m.gpu.empty() ? "-" : m.gpu + " × " + std::to_string(m.workers)) +
              dash_cell(dash_duration(end - j.created_ms), "n") +
              dash_cell(dash_cost_text(m), "n") + "</tr>";
    }
  body += "</table>";
  return dash_html(200, "Jobs", body, active ? 5 : 0);
}

ApiResponse Dashboard::job_page(const std::string& id) {
  auto rec = d_.store.get_job(id);
  if (!rec.ok()) {
    const std::vector<JobView> views = d_.scheduler.jobs();
    for (const JobView& v : views)
      if (v.id == id) {
        const std::string why = wait_reason(v, views);
        return dash_html(
            200, "Job " + id,
            std::string(v.state == JobState::kQueued ? "<p>Queued (" : "<p>Starting (") +
                dash_escape(v.reason) + ")" + (why.empty() ? "" : ": " + dash_escape(why)) +
                ".</p>" + cancel_form(id),
            5);
      }
    return dash_html(404, "No such job", "<p>No job " + dash_escape(id) + ".</p>");
  }
  const JobRecord& j = *rec;
  const int64_t now = to_unix_ms(d_.clock.now());
  const DashJobMoney m = dash_money(d_.store, j, now);
  std::string body = "<table>";
  auto row = [&](const std::string& k, const std::string& v, const char* vid = nullptr) {
    body += "<tr><th>" + dash_escape(k) + "</th><td" +
            (vid ? std::string(" id=\"") + vid + "\"" : "") + ">" + dash_escape(v) + "</td></tr>";
  };
  row("state", to_string(j.state), "job-state");
  row("phase", to_string(j.phase));
  row("pipeline", j.pipeline);
  row("provider", j.provider);
  row("GPU × workers", m.gpu.empty() ? "-" : m.gpu + " × " + std::to_string(m.workers));
  row("elapsed", dash_duration((j.finished_ms ? j.finished_ms : now) - j.created_ms));
  row("cost so far", dash_usd(m.so_far), "job-cost");
  row("estimate", m.estimate >= 0 ? dash_usd(m.estimate) : "none");
  if (!j.error.empty()) row("error", j.error);
  // What the program reported done ("BURST_PROGRESS d/t" lines), every worker's latest summed,
  // as `burst run`'s status line counts it (util/progress_line.h).
  LogChunk tail = d_.api.read_log(id, 0, 1 << 20);
  if (std::optional<ItemsProgress> p = progress_of_log(tail.data))
    row("items done",
        std::to_string(p->done) + " of " + std::to_string(p->total) + " (" +
            std::to_string(static_cast<long>(100.0 * static_cast<double>(p->done) /
                                             static_cast<double>(p->total))) +
            "%)",
        "job-items");
  else if (j.state == JobState::kRunning)  // the script fills it in as reports arrive
    row("items done", "none reported yet", "job-items");
  body += "</table>";
  if (j.state == JobState::kRunning) body += cancel_form(j.id);
  body += "<p><a href=\"" + dash_pipeline_href(j.pipeline) +
          "\">runs of this pipeline</a> (estimate vs actual, utilization)";
  if (!j.report_path.empty())
    body += " · <a href=\"/dashboard/jobs/" + dash_escape(j.id) +
            "/report\">full report</a> · <a href=\"/dashboard/jobs/" + dash_escape(j.id) +
            "/report.json\">JSON</a>";
  body += "</p>";

  // The phase timeline.
  if (auto phases = d_.store.phases(id); phases.ok() && !phases->empty()) {
    std::vector<GanttBar> bars;
    const int64_t origin = phases->front().started_ms;
    double span = 0;
    for (const PhaseRecord& p : *phases) {
      GanttBar b;
      b.label = to_string(p.phase);
      b.start_s = (p.started_ms - origin) / 1000.0;
      b.end_s = ((p.ended_ms ? p.ended_ms : now) - origin) / 1000.0;
      b.color = p.outcome && *p.outcome != Outcome::kOk && *p.outcome != Outcome::kSkipped
                    ? "#c33"
                    : chart_color(bars.size());
      b.tip = b.label + ": " + dash_duration((p.ended_ms ? p.ended_ms : now) - p.started_ms) +
              (p.outcome ? std::string(" (") + to_string(*p.outcome) + ")" : " (in progress)");
      span = std::max(span, b.end_s);
      bars.push_back(b);
    }
    body += "<h2>Phases</h2>" +
            svg_gantt("gantt", "Phase timeline (seconds from start)", bars, span > 0 ? span : 1);
  }
  // Pods (the workers) of the job.
  if (auto pods = d_.store.pods_of_job(id); pods.ok() && !pods->empty()) {
    body +=
        "<h2>Pods</h2><table><tr><th>pod</th><th>role</th><th>GPU</th><th>state</th>"
        "<th>$/h</th></tr>";
    for (const PodRecord& p : *pods)
      body += "<tr>" + dash_cell(pod_label(p)) + dash_cell(p.role) + dash_cell(p.gpu_type) +
              dash_cell(to_string(p.state)) + dash_cell(dash_usd(p.usd_per_hour), "n") + "</tr>";
    body += "</table>";
  }
  // The log: what is there now, then (with the script) what follows.
  // The record's end is the page's: the scheduler may still be settling the job's ledger (the
  // log is complete by then), and a page that followed on would reload a second time.
  const bool finished = tail.finished || j.state != JobState::kRunning;
  std::string text = tail.data;
  if (text.size() > (1 << 18)) text = "[...]\n" + text.substr(text.size() - (1 << 18));
  body += "<h2>Log <small id=\"live\"></small></h2><pre id=\"log\" data-src=\"/dashboard/jobs/" +
          dash_escape(id) + "/log\" data-offset=\"" + std::to_string(tail.next_offset) +
          "\" data-finished=\"" + (finished ? "1" : "0") + "\">" + dash_escape(text) + "</pre>";
  return dash_html(200, "Job " + id, body);
}

ApiResponse Dashboard::report_page(const std::string& id) {
  auto rec = d_.store.get_job(id);
  if (!rec.ok()) return dash_html(404, "No such job", "<p>No job " + dash_escape(id) + ".</p>");
  const int64_t now = to_unix_ms(d_.clock.now());
  auto r = build_job_report(d_.store, id, from_unix_ms(rec->finished_ms ? rec->finished_ms : now));
  if (!r.ok()) return dash_html(500, "Report", "<p>" + dash_escape(r.error().message) + "</p>");
  // The report's own document, with the dashboard's navigation bar (in the report's colours: the
  // dashboard's stylesheet would restyle its tables) so the page is not a dead end.
  std::string html = report_html(*r);
  if (size_t body = html.find("<body>"); body != std::string::npos)
    html.insert(body + 6,
                "<style>body>nav{background:#223;color:#fff;padding:.6em 1em}"
                "body>nav a{color:#cde;margin-left:1em}</style>" +
                    std::string(kDashNav));
  return dash_reply(200, std::move(html), "text/html; charset=utf-8");
}

ApiResponse Dashboard::pods_page(const std::string& notice) {
  const int64_t now = to_unix_ms(d_.clock.now());
  std::string body;
  if (!notice.empty()) body += "<p class=\"notice\" id=\"notice\">" + dash_escape(notice) + "</p>";
  auto live = d_.store.live_pods();
  if (!live.ok()) return dash_html(500, "Pods", "<p>" + dash_escape(live.error().message) + "</p>");
  if (live->empty()) {
    body += "<p id=\"no-pods\">No pod is alive.</p>";
    return dash_html(200, "Pods alive", body);
  }
  body +=
      "<table><tr><th>provider</th><th>pod</th><th>job</th><th>role</th><th>GPU</th>"
      "<th>state</th><th>age</th><th>$/h</th><th>$ so far</th><th></th></tr>";
  for (const PodRecord& p : *live) {
    const std::string pod = pod_label(p);
    const int64_t age = p.created_ms ? now - p.created_ms : 0;
    body += "<tr class=\"pod\">" + dash_cell(p.provider) + dash_cell(pod) + "<td>" +
            dash_job_link(p.job_id) + "</td>" + dash_cell(p.role) + dash_cell(p.gpu_type) +
            dash_cell(to_string(p.state)) + dash_cell(dash_duration(age), "n") +
            dash_cell(dash_usd(p.usd_per_hour), "n") +
            dash_cell(dash_usd(p.usd_per_hour * static_cast<double>(age) / 3.6e6), "n") +
            "<td><form method=\"post\" action=\"/dashboard/pods/delete\">"
            "<input type=\"hidden\" name=\"csrf\" value=\"" +
            csrf_ + "\"><input type=\"hidden\" name=\"provider\" value=\"" +
            dash_escape(p.provider) + "\"><input type=\"hidden\" name=\"pod\" value=\"" +
            dash_escape(pod) + "\"><button class=\"delete\" type=\"submit\">delete</button>" +
            "</form></td></tr>";
  }
  body += "</table>";
  return dash_html(200, "Pods alive", body, 5);
}

ApiResponse Dashboard::spend_page() {
  const TimePoint now = d_.clock.now();
  const std::string month = format_utc(now, "%Y-%m");
  const int64_t now_ms = to_unix_ms(now);
  // Jobs created in the month's first day onwards (spend counts on its job's admission day).
  auto jobs = d_.store.jobs_between(now_ms - 32LL * 86400 * 1000, now_ms + 1);
  std::map<std::string, double> by_day, by_pipeline, by_provider, by_gpu;
  double total = 0;
  if (jobs.ok())
    for (const JobRecord& j : *jobs) {
      auto spend = d_.store.spend_of_job(j.id);
      auto pods = d_.store.pods_of_job(j.id);
      if (!spend.ok()) continue;
      std::map<int64_t, const PodRecord*> pod_of;
      if (pods.ok())
        for (const PodRecord& p : *pods) pod_of[p.row_id] = &p;
      for (const SpendRecord& s : *spend) {
        if (s.month != month) continue;
        total += s.usd;
        by_day[s.day] += s.usd;
        by_pipeline[j.pipeline] += s.usd;
        auto it = pod_of.find(s.pod_row_id);
        by_provider[it != pod_of.end() ? it->second->provider : j.provider] += s.usd;
        by_gpu[it != pod_of.end() ? it->second->gpu_type : "?"] += s.usd;
      }
    }
  std::string body =
      "<p id=\"month-total\">" + dash_escape(month) + ": " + dash_usd(total) + " spent</p>";
  std::optional<double> month_cap;
  std::string caps = "<table><tr><th>cap</th><th>limit</th><th>left</th></tr>";
  if (d_.caps)
    for (const BudgetCap& c : d_.caps()) {
      std::string name = c.name;
      const std::string prefix = "what other jobs leave of ";
      if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
      if (name.find("usd_per_month") != std::string::npos) month_cap = c.usd;
      caps += "<tr>" + dash_cell(name) + dash_cell(dash_usd(c.usd), "n") +
              dash_cell(dash_usd(c.live ? c.live() : c.usd), "n") + "</tr>";
    }
  body += caps + "</table>";
  // Cumulative spend by day against the monthly cap: every day of the month so far.
  const int today = std::atoi(format_utc(now, "%d").c_str());
  std::vector<std::string> days;
  LineSeries cumulative{"cumulative spend", chart_color(0), {}};
  LineSeries cap_line{"monthly cap", "#c33", {}, true};
  double running = 0;
  for (int d = 1; d <= today; ++d) {
    char day[16];
    std::snprintf(day, sizeof day, "%s-%02d", month.c_str(), d);
    days.push_back(day + 5);  // "11-03"
    running += by_day.count(day) ? by_day[day] : 0;
    cumulative.y.push_back(running);
    if (month_cap) cap_line.y.push_back(*month_cap);
  }
  std::vector<LineSeries> lines = {cumulative};
  if (month_cap) lines.push_back(cap_line);
  body += svg_lines("cumulative-spend", "Cumulative spend this month against the cap", days, lines,
                    "$", {"day of the month (UTC)", "spend, US $"});
  auto bars = [&](const char* kind, const char* title, const std::map<std::string, double>& m) {
    std::vector<BarItem> items;
    for (const auto& [k, v] : m)
      items.push_back({k.empty() ? "?" : k, v, dash_usd(v), chart_color(items.size())});
    return items.empty() ? std::string() : svg_bars(kind, title, items);
  };
  body += bars("spend-pipeline", "Spend by pipeline (US $)", by_pipeline);
  body += bars("spend-provider", "Spend by provider (US $)", by_provider);
  body += bars("spend-gpu", "Spend by GPU (US $)", by_gpu);
  return dash_html(200, "Spend this month", body);
}

ApiResponse Dashboard::pipeline_page(const std::string& pipeline) {
  if (pipeline.empty())
    return dash_html(400, "No pipeline", "<p>Which pipeline? (<code>?name=</code>)</p>");
  const std::vector<DashRun> runs = dash_pipeline_runs(d_.store, pipeline);
  std::string body;
  if (!runs.empty())
    body = "<p>Its succeeded runs (" + std::to_string(runs.size()) +
           ", at most 20 of the 500 most recent jobs), oldest first: does the estimate converge "
           "on what a run costs, and do the runs use the GPU time they pay for?</p>";
  return dash_html(200, "Pipeline " + pipeline, body + dash_runs_html(pipeline, runs));
}

}  // namespace burst::daemon
