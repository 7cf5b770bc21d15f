#include "daemon/metrics.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <system_error>

#include "util/api_error_count.h"

namespace burst::daemon {
namespace {

// Label values escaped as the text format requires: backslash, double quote and newline.
std::string metrics_label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string metrics_number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  // The shortest text that reads back as v (0.708, not %.17g's 0.70799999999999996).
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) return "NaN";  // cannot happen: 64 chars hold any double
  return std::string(buf, end);
}

namespace {

void metrics_head(std::string& out, const char* name, const char* type, const char* help) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void metrics_sample(std::string& out, const std::string& name,
                    const std::vector<std::pair<std::string, std::string>>& labels, double v) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    for (size_t i = 0; i < labels.size(); ++i)
      out += (i ? "," : "") + labels[i].first + "=\"" + metrics_label(labels[i].second) + "\"";
    out += '}';
  }
  out += " " + metrics_number(v) + "\n";
}

// Phase durations from a second (SSH waits) to six hours (long runs).
constexpr double kMetricsPhaseBuckets[] = {1,   5,   15,   30,   60,   120,
                                           300, 600, 1800, 3600, 7200, 21600};

}  // namespace

Metrics::JobFigures Metrics::figures(const JobRecord& job,
                                     const std::map<int64_t, std::string>& provider_of) {
  JobFigures f;
  f.state = to_string(job.state);
  f.pipeline = job.pipeline;
  if (auto spend = d_.store.spend_of_job(job.id); spend.ok())
    for (const SpendRecord& s : *spend) {
      auto it = provider_of.find(s.pod_row_id);
      f.usd_by_provider[it == provider_of.end() ? job.provider : it->second] += s.usd;
    }
  if (auto phases = d_.store.phases(job.id); phases.ok())
    for (const PhaseRecord& p : *phases)
      if (p.ended_ms > 0 && p.ended_ms >= p.started_ms)
        f.phase_seconds.emplace_back(to_string(p.phase), (p.ended_ms - p.started_ms) / 1000.0);
  return f;
}

std::string Metrics::render() {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t kAll = std::numeric_limits<int64_t>::max();
  std::map<int64_t, std::string> provider_of;
  if (auto pods = d_.store.pods_of_jobs_between(0, kAll); pods.ok())
    for (const PodRecord& p : *pods) provider_of[p.row_id] = p.provider;

  std::map<std::string, double> jobs_by_state = {
      {"queued", 0}, {"running", 0}, {"succeeded", 0}, {"failed", 0}, {"interrupted", 0}};
  std::map<std::pair<std::string, std::string>, double> spend;  // (provider, pipeline)
  std::map<std::string, std::vector<double>> phase_seconds;
  int64_t queued = 0;
  for (const JobView& j : d_.scheduler.jobs()) queued += j.state == JobState::kQueued;
  jobs_by_state["queued"] = static_cast<double>(queued);

  auto add = [&](const JobFigures& f) {
    jobs_by_state[f.state] += 1;
    for (const auto& [provider, usd] : f.usd_by_provider) spend[{provider, f.pipeline}] += usd;
    for (const auto& [phase, s] : f.phase_seconds) phase_seconds[phase].push_back(s);
  };
  if (auto jobs = d_.store.jobs_between(0, kAll); jobs.ok()) {
    for (const JobRecord& job : *jobs) {
      if (auto it = finished_.find(job.id); it != finished_.end()) {
        add(it->second);
        continue;
      }
      JobFigures f = figures(job, provider_of);
      add(f);
      // Final once the job ended and its thread settled the ledger (the scheduler forgets it
      // only after that).
      if (job.state != JobState::kRunning && job.finished_ms > 0 &&
          !d_.scheduler.is_running(job.id))
        finished_.emplace(job.id, std::move(f));
    }
  }

  std::string out;
  metrics_head(out, "burst_jobs", "gauge", "Jobs by state (queued: this burstd's queue).");
  for (const auto& [state, n] : jobs_by_state)
    metrics_sample(out, "burst_jobs", {{"state", state}}, n);

  metrics_head(out, "burst_queue_length", "gauge", "Jobs waiting in this burstd's queue.");
  metrics_sample(out, "burst_queue_length", {}, static_cast<double>(queued));

  std::map<std::string, double> pods_alive, pods_past_job;
  for (const auto& p : d_.providers) pods_alive[p] = pods_past_job[p] = 0;
  if (auto live = d_.store.live_pods(); live.ok())
    for (const PodRecord& p : *live) {
      pods_alive[p.provider] += 1;
      pods_past_job.emplace(p.provider, 0);
      auto job = d_.store.get_job(p.job_id);
      if (!job.ok() || job->state != JobState::kRunning) pods_past_job[p.provider] += 1;
    }
  metrics_head(out, "burst_pods_alive", "gauge", "Pods not confirmed deleted, by provider.");
  for (const auto& [provider, n] : pods_alive)
    metrics_sample(out, "burst_pods_alive", {{"provider", provider}}, n);

  metrics_head(out, "burst_pods_alive_past_job", "gauge",
               "Pods not confirmed deleted whose job is not running (the reaper's to delete).");
  for (const auto& [provider, n] : pods_past_job)
    metrics_sample(out, "burst_pods_alive_past_job", {{"provider", provider}}, n);

  metrics_head(out, "burst_spend_usd_total", "counter",
               "Spend recorded by the ledger in US dollars, by provider and pipeline.");
  for (const auto& [key, usd] : spend)
    metrics_sample(out, "burst_spend_usd_total",
                   {{"provider", key.first}, {"pipeline", key.second}}, usd);

  metrics_head(out, "burst_budget_remaining_usd", "gauge",
               "What jobs leave of each burstd budget cap, in US dollars.");
  std::vector<std::pair<std::string, double>> limits;
  if (d_.caps)
    for (const BudgetCap& cap : d_.caps()) {
      std::string name = cap.name;
      const std::string prefix = "what other jobs leave of ";
      if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
      metrics_sample(out, "burst_budget_remaining_usd", {{"cap", name}},
                     cap.live ? cap.live() : cap.usd);
      limits.emplace_back(name, cap.usd);
    }
  metrics_head(out, "burst_budget_cap_usd", "gauge", "Each burstd budget cap, in US dollars.");
  for (const auto& [name, usd] : limits)
    metrics_sample(out, "burst_budget_cap_usd", {{"cap", name}}, usd);

  metrics_head(out, "burst_phase_duration_seconds", "histogram",
               "Duration of every ended job phase in seconds.");
  for (auto& [phase, values] : phase_seconds) {
    double sum = 0;
    for (double v : values) sum += v;
    for (double le : kMetricsPhaseBuckets) {
      double n = 0;
      for (double v : values) n += v <= le;
      metrics_sample(out, "burst_phase_duration_seconds_bucket",
                     {{"phase", phase}, {"le", metrics_number(le)}}, n);
    }
    metrics_sample(out, "burst_phase_duration_seconds_bucket", {{"phase", phase}, {"le", "+Inf"}},
                   static_cast<double>(values.size()));
    metrics_sample(out, "burst_phase_duration_seconds_sum", {{"phase", phase}}, sum);
    metrics_sample(out, "burst_phase_duration_seconds_count", {{"phase", phase}},
                   static_cast<double>(values.size()));
  }

  metrics_head(out, "burst_provider_api_errors_total", "counter",
               "Failed cloud API calls (each attempt), by provider and error kind.");
  for (const auto& [key, n] : api_error_counts())
    metrics_sample(out, "burst_provider_api_errors_total",
                   {{"provider", key.first}, {"kind", key.second}}, static_cast<double>(n));

  metrics_head(out, "burst_reconcile_runs_total", "counter", "Reconcile (reap) passes run.");
  metrics_sample(out, "burst_reconcile_runs_total", {},
                 d_.reconcile_runs ? static_cast<double>(d_.reconcile_runs()) : 0);
  return out;
}

}  // namespace burst::daemon
