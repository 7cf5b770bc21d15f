// burstd assembled: the scheduler, the reconciler, the API and its socket, wired to one Store,
// Clock and JobLauncher passed in (tests pass fakes). main.cpp adds signals and logging.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "burst/clock.h"
#include "burst/store.h"
#include "client/daemon_config.h"
#include "daemon/api.h"
#include "daemon/job_launcher.h"
#include "daemon/ledger.h"
#include "daemon/reconciler.h"
#include "daemon/scheduler.h"
#include "daemon/socket_server.h"
#include "daemon/web.h"

namespace burst::daemon {

struct DaemonDeps {
  Clock& clock;
  Store& store;
  JobLauncher& launcher;
  std::vector<std::string> providers;  // names the reconciler asks
  std::function<Result<std::unique_ptr<Provider>>(const std::string&)> make_provider;
  std::function<void(const std::string&)> log;
};

class Daemon {
 public:
  Daemon(DaemonConfig config, DaemonDeps deps);
  ~Daemon();

  // Recovers jobs a dead burstd left running, reaps, loads the pipelines (an invalid one fails
  // the start with every error, one per line), opens the socket (unless `socket` is false, for
  // in-process tests), the TCP listener when api.tcp is configured (even without `socket`), and
  // starts the scheduler loop.
  Status start(bool socket = true);
  // SIGHUP: re-reads the pipelines (and concurrency) from `config`; on errors keeps the old set.
  Status reload(const DaemonConfig& config);
  // SIGTERM: no new job starts; waits up to drain_timeout for running jobs, then cancels them
  // (their pods are deleted). `interrupt_now` cancels at once (a second SIGTERM).
  void drain();
  void interrupt_now();
  void stop();  // closes the socket and stops the loop; call after drain()

  Api& api() { return *api_; }
  int tcp_port() const { return tcp_server_ ? tcp_server_->port() : -1; }
  Scheduler& scheduler() { return *scheduler_; }
  Reconciler& reconciler() { return *reconciler_; }
  // One reconcile pass, serialised with the periodic one.
  std::vector<PodAction> reap_now();
  // The global daily/monthly caps as they apply to one job: what other jobs leave of them
  // (daemon/ledger.h), asked live; the runner stops the job whose accrued cost would cross one.
  std::vector<BudgetCap> caps_for(const std::string& job_id) { return ledger_.caps_for(job_id); }
  Ledger& ledger() { return ledger_; }
  Web& web() { return *web_; }

 private:
  bool reattach(const JobRecord& job, const std::string& why, bool restart = false);
  bool daemon_job(const std::string& job_id);
  void take_over(const JobRecord& job);  // Scheduler's take_over: reattach or fail, then settle
  void maintenance_loop();

  DaemonConfig config_;
  DaemonDeps d_;
  Ledger ledger_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<Reconciler> reconciler_;
  std::unique_ptr<Api> api_;
  std::unique_ptr<Web> web_;  // /metrics and the dashboard, served through api_
  std::unique_ptr<SocketServer> server_;
  std::unique_ptr<SocketServer> tcp_server_;  // only with api.tcp and its token
  std::thread loop_, maintenance_;
  std::mutex reap_mu_;
  std::atomic<int64_t> reconcile_runs_{0};  // /metrics: burst_reconcile_runs_total
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
};

}  // namespace burst::daemon
