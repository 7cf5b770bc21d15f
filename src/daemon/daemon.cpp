#include "daemon/daemon.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "daemon/dashboard.h"
#include "daemon/pipelines.h"
#include "registry.h"

namespace burst::daemon {

Daemon::Daemon(DaemonConfig config, DaemonDeps deps)
    : config_(std::move(config)), d_(std::move(deps)), ledger_(d_.store, d_.clock) {
  ledger_.set_caps(config_.usd_per_day, config_.usd_per_month);
  ledger_.set_scoped_caps(config_.team, config_.team_usd_per_day, config_.team_usd_per_month,
                          config_.user_usd_per_day, config_.user_usd_per_month);
  SchedulerOptions opt;
  opt.max_concurrent = config_.max_concurrent;
  opt.log = d_.log;
  opt.admit = [this](const std::string& id, const PipelineSpec& spec) {
    return ledger_.reserve(id, spec);
  };
  opt.ended = [this](const std::string& id) { ledger_.settle(id); };
  opt.resume_failed = [this](const std::string& id, const std::string& error) {
    auto job = d_.store.get_job(id);
    if (!job.ok()) return;
    d_.log("job " + id + ": reattach failed: " + error);
    std::lock_guard<std::mutex> lock(reap_mu_);  // the reconciler is not thread-safe
    reconciler_->fail_job(*job, "burstd could not resume it (" + error + ")");
  };
  opt.lease = config_.lease;
  // A shared store (PostgreSQL): other daemons queue and leave jobs; look every third of a lease.
  if (is_postgres_url(config_.burst.store_url)) opt.poll = config_.lease / 3;
  opt.take_over = [this](const JobRecord& job) { take_over(job); };
  scheduler_ = std::make_unique<Scheduler>(d_.clock, d_.store, d_.launcher, opt);
  ReconcileDeps rd{d_.store,
                   d_.clock,
                   d_.providers,
                   d_.make_provider,
                   [this](const JobRecord& j) { return daemon_job(j.id); },
                   config_.burst.reports_dir,
                   [this](const JobRecord& j, const std::string& why) { return reattach(j, why); },
                   [this](const JobRecord& j, const std::string& why) {
                     return reattach(j, why, /*restart=*/true);
                   }};
  reconciler_ = std::make_unique<Reconciler>(rd, config_.orphan_grace);
  api_ = std::make_unique<Api>(*scheduler_, d_.store, config_.burst, [this] { return reap_now(); });
  MetricsDeps md{d_.store, *scheduler_, d_.providers, [this] { return ledger_.caps_for(""); },
                 [this] { return reconcile_runs_.load(); }};
  web_ = std::make_unique<Web>(
      std::move(md), std::make_unique<Dashboard>(DashboardDeps{
                         d_.store, *scheduler_, d_.clock, *api_, [this] { return reap_now(); },
                         [this] { return ledger_.caps_for(""); }}));
  api_->set_web([this](const ApiRequest& r) { return web_->handle(r); });
}

Daemon::~Daemon() { stop(); }

std::vector<PodAction> Daemon::reap_now() {
  std::lock_guard<std::mutex> lock(reap_mu_);
  ++reconcile_runs_;
  std::vector<std::string> failed;
  auto actions = reconciler_->reap(&failed);
  for (const auto& line : failed) d_.log("reap: " + line);
  for (const auto& a : actions)
    if (a.kind != ReapOutcome::kForeign)  // another installation's: not ours to report each pass
      d_.log("reap: " + a.provider + " " + a.pod +
             (a.job_id.empty() ? "" : " (job " + a.job_id + ")") + ": " + a.outcome);
  return actions;
}

bool Daemon::daemon_job(const std::string& job_id) {
  // A job in the store's queue is a daemon's (this one's or another's): its recovery is the lease
  // protocol's (Scheduler::tick), never the reaper's pid rule, which cannot see other hosts.
  return scheduler_->is_running(job_id) || scheduler_->queued_in_store(job_id);
}

void Daemon::take_over(const JobRecord& job) {
  std::string line;
  {
    std::lock_guard<std::mutex> lock(reap_mu_);  // the reconciler is not thread-safe
    line = reconciler_->recover_job(job, /*take_over=*/true);
  }
  d_.log("take-over: " + line);
  if (scheduler_->is_running(job.id)) return;  // reattached: its end settles it
  ledger_.settle(job.id);                      // before the row goes (Scheduler::finished)
  (void)d_.store.remove_queued(job.id);
}

bool Daemon::reattach(const JobRecord& job, const std::string& why, bool restart) {
  std::vector<SpecError> errors;
  auto spec = load_spec_file(job.spec_path, &errors, provider_names());
  if (!spec.ok()) {
    d_.log("job " + job.id + ": cannot reattach: its spec " + job.spec_path +
           " does not load: " + (errors.empty() ? spec.error().message : errors.front().text));
    return false;
  }
  scheduler_->adopt(job.id, std::move(*spec), why, restart);
  return true;
}

Status Daemon::start(bool socket) {
  for (const auto& line : reconciler_->recover_jobs()) d_.log("recover: " + line);
  (void)reap_now();
  // Reattached jobs and jobs still in the queue (running on another daemon, or to be taken over)
  // keep their reservations; every other one's job ended while burstd was down.
  ledger_.settle_stale([this](const std::string& id) { return daemon_job(id); });
  scheduler_->restore_queue();
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
  // The first tick before the socket answers: a dead burstd's jobs whose leases this one may end
  // (daemon/lease_owner.h: a restart on the same host) are reattached or failed by then.
  (void)scheduler_->tick();
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
  config_.team = config.team;
  config_.team_usd_per_day = config.team_usd_per_day;
  config_.team_usd_per_month = config.team_usd_per_month;
  config_.user_usd_per_day = config.user_usd_per_day;
  config_.user_usd_per_month = config.user_usd_per_month;
  ledger_.set_caps(config_.usd_per_day, config_.usd_per_month);
  ledger_.set_scoped_caps(config_.team, config_.team_usd_per_day, config_.team_usd_per_month,
                          config_.user_usd_per_day, config_.user_usd_per_month);
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
