// The roll-up as JSON, Markdown and HTML (tables, a cost-by-pipeline chart and the cost-per-run
// trend by day).
#include <map>
#include <sstream>

#include "json/json_value.h"
#include "report/report_format.h"
#include "report/rollup.h"
#include "report/svg_chart.h"

namespace burst {
using json = JsonValue;
using namespace report_fmt;

namespace {

constexpr int64_t kMsPerDay = 86400000;
constexpr size_t kTrendSeries = 6;  // pipelines drawn; the rest are summed as "other"

json group_json(const RollupGroup& g) {
  return {{"key", g.key},
          {"runs", g.runs},
          {"failed", g.failed},
          {"no_pod", g.no_pod},
          {"usd", g.usd},
          {"failed_usd", g.failed_usd},
          {"gpu_hours", g.gpu_hours}};
}

json groups_json(const std::vector<RollupGroup>& gs) {
  json a = json::array();
  for (const auto& g : gs) a.push_back(group_json(g));
  return a;
}

std::string day_of(int64_t ms) { return format_utc(from_unix_ms(ms), "%Y-%m-%d"); }

void groups_md(std::ostringstream& o, const char* title, const std::vector<RollupGroup>& gs) {
  o << "\n## By " << title << "\n\n| " << title
    << " | runs | failed (cost) | no pod | GPU-hours | cost |\n|---|---|---|---|---|---|\n";
  for (const auto& g : gs)
    o << "| " << g.key << " | " << g.runs << " | " << g.failed << " (" << money(g.failed_usd)
      << ") | " << g.no_pod << " | " << fixed(g.gpu_hours, 2) << " | " << money(g.usd) << " |\n";
}

std::string groups_html(const char* title, const std::vector<RollupGroup>& gs) {
  std::ostringstream o;
  o << "<h2>By " << title << "</h2><table><tr><th>" << title
    << "</th><th>runs</th><th>failed (cost)</th><th>no pod</th><th>GPU-hours</th><th>cost</th>"
       "</tr>";
  for (const auto& g : gs)
    o << "<tr><td>" << html(g.key) << "</td><td class=\"n\">" << g.runs << "</td><td class=\"n\">"
      << g.failed << " (" << money(g.failed_usd) << ")</td><td class=\"n\">" << g.no_pod
      << "</td><td class=\"n\">" << fixed(g.gpu_hours, 2) << "</td><td class=\"n\">" << money(g.usd)
      << "</td></tr>";
  return o.str() + "</table>";
}

// Average cost per run by UTC day, one line per pipeline (the most expensive first).
std::string trend_chart(const Rollup& r) {
  if (r.jobs.empty()) return "<p>No jobs in this period.</p>";
  const int64_t first = r.jobs.front().created_ms / kMsPerDay;
  const int64_t last = r.jobs.back().created_ms / kMsPerDay;
  const size_t days = static_cast<size_t>(last - first + 1);
  std::vector<std::string> labels;
  for (size_t d = 0; d < days; ++d) labels.push_back(day_of((first + d) * kMsPerDay));
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < r.by_pipeline.size() && i < kTrendSeries; ++i)
    index[r.by_pipeline[i].key] = i;
  const size_t n =
      std::min(r.by_pipeline.size(), kTrendSeries) + (r.by_pipeline.size() > kTrendSeries ? 1 : 0);
  std::vector<std::vector<double>> usd(n, std::vector<double>(days, 0));
  std::vector<std::vector<int>> runs(n, std::vector<int>(days, 0));
  for (const RollupJob& j : r.jobs) {
    auto it = index.find(j.pipeline);
    const size_t s = it == index.end() ? n - 1 : it->second;
    const size_t d = static_cast<size_t>(j.created_ms / kMsPerDay - first);
    usd[s][d] += j.usd;
    runs[s][d] += 1;
  }
  std::vector<LineSeries> series;
  for (size_t s = 0; s < n; ++s) {
    LineSeries line{s < kTrendSeries && s < r.by_pipeline.size() ? r.by_pipeline[s].key : "other",
                    chart_color(s),
                    {}};
    for (size_t d = 0; d < days; ++d) line.y.push_back(runs[s][d] ? usd[s][d] / runs[s][d] : -1);
    series.push_back(std::move(line));
  }
  return svg_lines("trend", "Cost per run by day", labels, series, "$",
                   {"day (UTC)", "cost per run, US $"});
}

}  // namespace

std::string rollup_json(const Rollup& r) {
  json j;
  j["period"] = {{"label", r.label},
                 {"from", utc(r.from_ms)},
                 {"to", r.to_ms == INT64_MAX ? "-" : utc(r.to_ms)},
                 {"as_of", utc(r.as_of_ms)}};
  j["total"] = group_json(r.total);
  j["by_pipeline"] = groups_json(r.by_pipeline);
  j["by_provider"] = groups_json(r.by_provider);
  j["by_gpu"] = groups_json(r.by_gpu);
  j["jobs"] = json::array();
  for (const RollupJob& x : r.jobs)
    j["jobs"].push_back({{"id", x.id},
                         {"pipeline", x.pipeline},
                         {"provider", x.provider},
                         {"gpu_type", x.gpu_type},
                         {"outcome", x.outcome},
                         {"no_pod", x.no_pod},
                         {"started", utc(x.created_ms)},
                         {"usd", x.usd},
                         {"gpu_usd", x.gpu_usd},
                         {"cpu_handoff_usd", x.cpu_usd},
                         {"gpu_hours", x.gpu_hours}});
  j["storage"] = json::array();
  for (const StorageLine& l : r.storage)
    j["storage"].push_back(
        {{"provider", l.provider}, {"volumes", l.volumes}, {"gb", l.gb}, {"usd", l.usd}});
  j["rent_vs_buy"] = json::array();
  for (const RentVsBuy& v : r.rent_vs_buy)
    j["rent_vs_buy"].push_back(
        {{"gpu", v.gpu},
         {"gpu_hours_per_month", v.gpu_hours_per_month},
         {"rent_usd_per_month", v.rent_usd_per_month},
         {"own_usd_per_month", v.own_usd_per_month ? json(*v.own_usd_per_month) : json()},
         {"breakeven_hours_per_month",
          v.breakeven_hours_per_month ? json(*v.breakeven_hours_per_month) : json()},
         {"verdict", v.verdict}});
  return j.dump(2) + "\n";
}

std::string rollup_markdown(const Rollup& r) {
  std::ostringstream o;
  o << "# burst costs: " << r.label << "\n\n"
    << r.total.runs << " jobs, " << money(r.total.usd) << " in all; " << r.total.failed
    << " failed or cancelled (" << money(r.total.failed_usd) << "); " << r.total.no_pod
    << " never created a pod ($0). " << fixed(r.total.gpu_hours, 2) << " GPU-hours.\n";
  groups_md(o, "pipeline", r.by_pipeline);
  groups_md(o, "provider", r.by_provider);
  groups_md(o, "GPU type", r.by_gpu);
  if (!r.storage.empty()) o << "\n## Volume storage\n\n";
  for (const StorageLine& l : r.storage)
    o << "- storage " << l.provider << ": " << l.volumes << " volume(s), " << fixed(l.gb, 0)
      << " GB: " << money(l.usd) << "\n";
  if (!r.rent_vs_buy.empty()) {
    o << "\n## Rent vs buy\n\n";
    for (const RentVsBuy& v : r.rent_vs_buy) o << "- " << v.gpu << ": " << v.verdict << "\n";
  }
  // Each job under its actual state: a running job is no failure, whether or not it has a pod yet.
  bool running = false;
  for (const RollupJob& j : r.jobs)
    if (j.outcome == "running") {
      if (!running) o << "\n## Running jobs\n\n";
      o << "- " << j.id << " `" << j.pipeline << "` running: " << money(j.usd) << " so far\n";
      running = true;
    }
  o << "\n## Failed, cancelled and pod-less jobs\n\n";
  bool any = false;
  for (const RollupJob& j : r.jobs)
    if (j.outcome != "running" && (j.outcome != "succeeded" || j.no_pod)) {
      o << "- " << j.id << " `" << j.pipeline << "` " << j.outcome
        << (j.no_pod ? ", no pod created" : "") << ": " << money(j.usd) << "\n";
      any = true;
    }
  if (!any) o << "None.\n";
  return o.str();
}

std::string rollup_html(const Rollup& r) {
  std::ostringstream o;
  o << "<h1>burst costs: " << html(r.label) << "</h1><p>" << r.total.runs << " jobs, <b>"
    << money(r.total.usd) << "</b> in all; " << r.total.failed << " failed or cancelled ("
    << money(r.total.failed_usd) << "); " << r.total.no_pod << " never created a pod ($0). "
    << fixed(r.total.gpu_hours, 2) << " GPU-hours.</p>" << trend_chart(r);
  std::vector<BarItem> bars;
  for (size_t i = 0; i < r.by_pipeline.size() && i < 12; ++i)
    bars.push_back(
        {r.by_pipeline[i].key, r.by_pipeline[i].usd, money(r.by_pipeline[i].usd), chart_color(i)});
  o << svg_bars("cost-by-pipeline", "Cost by pipeline", bars)
    << groups_html("pipeline", r.by_pipeline) << groups_html("provider", r.by_provider)
    << groups_html("GPU type", r.by_gpu);
  if (!r.storage.empty()) o << "<h2>Volume storage</h2><ul>";
  for (const StorageLine& l : r.storage)
    o << "<li>storage " << html(l.provider) << ": " << l.volumes << " volume(s), " << fixed(l.gb, 0)
      << " GB: " << money(l.usd) << "</li>";
  if (!r.storage.empty()) o << "</ul>";
  if (!r.rent_vs_buy.empty()) {
    o << "<h2>Rent vs buy</h2><ul>";
    for (const RentVsBuy& v : r.rent_vs_buy)
      o << "<li><b>" << html(v.gpu) << "</b>: " << html(v.verdict) << "</li>";
    o << "</ul>";
  }
  size_t running = 0;
  for (const RollupJob& j : r.jobs)
    if (j.outcome == "running" && running++ < 200)
      o << (running == 1 ? "<h2>Running jobs</h2><table><tr><th>job</th><th>pipeline</th>"
                           "<th>cost so far</th></tr>"
                         : "")
        << "<tr><td>" << html(j.id) << "</td><td>" << html(j.pipeline) << "</td><td class=\"n\">"
        << money(j.usd) << "</td></tr>";
  if (running) o << "</table>";
  o << "<h2>Failed, cancelled and pod-less jobs</h2><table><tr><th>job</th><th>pipeline</th>"
       "<th>outcome</th><th>cost</th></tr>";
  size_t shown = 0;
  for (const RollupJob& j : r.jobs)
    if (j.outcome != "running" && (j.outcome != "succeeded" || j.no_pod) && shown++ < 200)
      o << "<tr><td>" << html(j.id) << "</td><td>" << html(j.pipeline) << "</td><td>"
        << html(j.outcome + (j.no_pod ? ", no pod created" : "")) << "</td><td class=\"n\">"
        << money(j.usd) << "</td></tr>";
  o << "</table><p class=\"muted\">Built from the store alone at " << utc(r.as_of_ms) << ".</p>";
  return page("burst costs " + r.label, o.str());
}

}  // namespace burst
