#include "daemon/daemon.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "daemon/pipelines.h"
#include "registry.h"
#include "report/job_report.h"

namespace burst::daemon {

bool burst_process_alive(int64_t pid) {
  if (pid <= 0 || kill(static_cast<pid_t>(pid), 0) != 0) return false;
  // The pid of a killed burstd may be reused by anything: on Linux, check the name too.
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  if (!comm || !std::getline(comm, name)) return true;  // no /proc (macOS): trust kill()
  return name.rfind("burst", 0) == 0;
}

Daemon::Daemon(DaemonConfig config, DaemonDeps deps)
    : config_(std::move(config)), d_(std::move(deps)) {
  SchedulerOptions opt;
  opt.max_concurrent = config_.max_concurrent;
  opt.log = d_.log;
  opt.admit = [this](const PipelineSpec& spec) { return admit(spec); };
  opt.clock_rate = d_.clock_rate;
  opt.resume_failed = [this](const std::string& id, const std::string& error) {
    auto job = d_.store.get_job(id);
    if (!job.ok()) return;
    d_.log("job " + id + ": reattach failed: " + error);
    std::lock_guard<std::mutex> lock(reap_mu_);  // the reconciler is not thread-safe
    reconciler_->fail_job(*job, "burstd restarted and could not reattach (" + error + ")");
  };
  scheduler_ = std::make_unique<Scheduler>(d_.clock, d_.store, d_.launcher, opt);
  ReconcileDeps rd{d_.store,
                   d_.clock,
                   d_.providers,
                   d_.make_provider,
                   [this](const JobRecord& j) { return job_alive(j); },
                   config_.burst.reports_dir,
                   [this](const JobRecord& j, const std::string& why) { return reattach(j, why); }};
  reconciler_ = std::make_unique<Reconciler>(rd, config_.orphan_grace);
  api_ = std::make_unique<Api>(*scheduler_, d_.store, config_.burst, [this] { return reap_now(); });
}

Daemon::~Daemon() { stop(); }

bool Daemon::job_alive(const JobRecord& job) const {
  if (scheduler_->is_running(job.id)) return true;  // includes a job being reattached
  if (job.owner_pid == getpid()) return scheduler_->is_running(job.id);
  return burst_process_alive(job.owner_pid);
}

std::vector<PodAction> Daemon::reap_now() {
  std::lock_guard<std::mutex> lock(reap_mu_);
  auto actions = reconciler_->reap();
  for (const auto& a : actions)
    d_.log("reap: " + a.provider + " " + a.pod +
           (a.job_id.empty() ? "" : " (job " + a.job_id + ")") + ": " + a.outcome);
  return actions;
}

bool Daemon::reattach(const JobRecord& job, const std::string& why) {
  std::vector<SpecError> errors;
  auto spec = load_spec_file(job.spec_path, &errors, provider_names());
  if (!spec.ok()) {
    d_.log("job " + job.id + ": cannot reattach: its spec " + job.spec_path +
           " does not load: " + (errors.empty() ? spec.error().message : errors.front().text));
    return false;
  }
  scheduler_->adopt(job.id, std::move(*spec), why);
  return true;
}

// The sum of what every job started this UTC day (month) has cost so far.
void Daemon::spent(double* day_usd, double* month_usd) {
  const TimePoint now = d_.clock.now();
  const std::string today = format_utc(now, "%Y-%m-%d"), month = format_utc(now, "%Y-%m");
  *day_usd = *month_usd = 0;
  if (auto jobs = d_.store.recent_jobs(5000); jobs.ok()) {
    for (const auto& j : *jobs) {
      if (format_utc(from_unix_ms(j.created_ms), "%Y-%m") != month) continue;
      auto r = build_job_report(d_.store, j.id, now);
      if (!r.ok()) continue;
      *month_usd += r->total_usd;
      if (format_utc(from_unix_ms(j.created_ms), "%Y-%m-%d") == today) *day_usd += r->total_usd;
    }
  }
}

std::vector<BudgetCap> Daemon::global_caps() {
  std::vector<BudgetCap> caps;
  if (!config_.usd_per_day && !config_.usd_per_month) return caps;
  double day_usd = 0, month_usd = 0;
  spent(&day_usd, &month_usd);
  if (config_.usd_per_day)
    caps.push_back({std::max(0.0, *config_.usd_per_day - day_usd),
                    "what is left today of burstd budget.usd_per_day"});
  if (config_.usd_per_month)
    caps.push_back({std::max(0.0, *config_.usd_per_month - month_usd),
                    "what is left this month of burstd budget.usd_per_month"});
  return caps;
}

// The global caps, checked before a job starts; global_caps() bounds it while it runs.
std::string Daemon::admit(const PipelineSpec&) {
  if (!config_.usd_per_day && !config_.usd_per_month) return "";
  double day_usd = 0, month_usd = 0;
  spent(&day_usd, &month_usd);
  char buf[160];
  if (config_.usd_per_day && day_usd >= *config_.usd_per_day) {
    std::snprintf(buf, sizeof buf,
                  "global budget: $%.2f spent today (UTC) of budget.usd_per_day $%.2f", day_usd,
                  *config_.usd_per_day);
    return buf;
  }
  if (config_.usd_per_month && month_usd >= *config_.usd_per_month) {
    std::snprintf(buf, sizeof buf,
                  "global budget: $%.2f spent this month of budget.usd_per_month $%.2f", month_usd,
                  *config_.usd_per_month);
    return buf;
  }
  return "";
}

Status Daemon::start(bool socket) {
  for (const auto& line : reconciler_->recover_jobs()) d_.log("recover: " + line);
  (void)reap_now();
  PipelineLoad load = load_pipelines(config_);
  if (!load.errors.empty()) {
    std::string all;
    for (const auto& e : load.errors) all += (all.empty() ? "" : "\n") + e;
    return make_error(ErrorCode::kInvalid, all);
  }
  for (const auto& f : load.unscheduled) d_.log(f + ": no schedule section; submit it to run it");
  for (const auto& p : load.scheduled)
    d_.log("pipeline " + p.spec.name + ": cron \"" + p.cron.text() + "\" in " + p.zone.name());
  scheduler_->set_pipelines(std::move(load.scheduled), /*apply_missed=*/true);
  if (socket) {
    server_ = std::make_unique<SocketServer>(*api_);
    if (Status st = server_->start(config_.socket); !st.ok()) return st;
    d_.log("listening on " + config_.socket);
  }
  if (config_.tcp_port >= 0) {
    tcp_server_ = std::make_unique<SocketServer>(*api_);
    if (Status st = tcp_server_->start_tcp(config_.tcp_host, config_.tcp_port, config_.api_token,
                                           config_.tcp_allow_local_provider);
        !st.ok())
      return st;
    d_.log("listening on tcp " + config_.tcp_host + ":" + std::to_string(tcp_server_->port()) +
           " (every request needs the token from " + config_.token_file + ")");
  }
  loop_ = std::thread([this] { scheduler_->run_loop(); });
  maintenance_ = std::thread([this] { maintenance_loop(); });
  return Status::Ok();
}

void Daemon::maintenance_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    // Unknown pods are deleted once seen for a whole grace period: look again after one.
    if (cv_.wait_for(lock, config_.orphan_grace, [&] { return stopping_; })) return;
    lock.unlock();
    (void)reap_now();
    lock.lock();
  }
}

Status Daemon::reload(const DaemonConfig& config) {
  PipelineLoad load = load_pipelines(config);
  if (!load.errors.empty()) {
    for (const auto& e : load.errors) d_.log("reload: " + e);
    return make_error(ErrorCode::kInvalid, "reload: kept the previous pipelines");
  }
  config_.pipelines = config.pipelines;
  config_.pipelines_dir = config.pipelines_dir;
  config_.usd_per_day = config.usd_per_day;
  config_.usd_per_month = config.usd_per_month;
  d_.log("reload: " + std::to_string(load.scheduled.size()) + " scheduled pipeline(s)");
  scheduler_->set_pipelines(std::move(load.scheduled), /*apply_missed=*/false);
  return Status::Ok();
}

void Daemon::drain() {
  scheduler_->drain();
  if (scheduler_->wait_idle(config_.drain_timeout)) return;
  d_.log("drain: jobs still running after the drain timeout; cancelling them");
  interrupt_now();
}

void Daemon::interrupt_now() {
  scheduler_->interrupt_all();
  (void)scheduler_->wait_idle(std::chrono::minutes(10));
}

void Daemon::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (server_) server_->stop();
  if (tcp_server_) tcp_server_->stop();
  scheduler_->stop();
  if (loop_.joinable()) loop_.join();
  if (maintenance_.joinable()) maintenance_.join();
}

}  // namespace burst::daemon
