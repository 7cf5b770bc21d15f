// Makes the store and the clouds agree, so no pod outlives its job (docs/daemon.md, "Recovery"):
//   - recover_jobs(), on start: a job recorded as running whose runner is gone (burstd was killed
//     mid-run) is handed to `reattach` when it stopped in its run phase and its GPU pod is still
//     running (the runner then reconnects over SSH and follows the step's supervisor; a pod it
//     cannot reach fails the job through the delete). Otherwise its pods are deleted and
//     verified gone, its open phases closed, and it is marked failed with the reason; its report
//     is rewritten to say so.
//   - reap(), on start, on request and every orphan grace period: every live pod row of a job
//     whose runner is gone is deleted; a `burst-*` pod the store does not know is deleted once it
//     has been seen for longer than the grace (another machine's burst may have just made it).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/provider.h"
#include "burst/store.h"

namespace burst::daemon {

struct ReconcileDeps {
  Store& store;
  Clock& clock;
  std::vector<std::string> providers;  // names to ask, in order
  std::function<Result<std::unique_ptr<Provider>>(const std::string&)> make_provider;
  // Whether the job's runner is alive (a job of this daemon, or another live `burst run`).
  std::function<bool(const JobRecord&)> job_alive;
  std::string reports_dir;  // where the recovered job's report is rewritten
  // Takes over a job to reattach (true), or declines (false: the job is failed). Empty: never.
  std::function<bool(const JobRecord&, const std::string& why)> reattach = {};
};

struct PodAction {
  std::string provider;
  std::string pod;  // provider id, or the name when the id was never learned
  std::string job_id;
  std::string outcome;  // "deleted (confirmed)", "FAILED: ...", "unknown: deleted after ..."
};

class Reconciler {
 public:
  Reconciler(ReconcileDeps deps, Duration orphan_grace);

  // Returns one line per job failed or reattached, saying what happened.
  std::vector<std::string> recover_jobs();
  std::vector<PodAction> reap();
  // Fails a job whose runner is gone: closes its open phases, deletes its pods, records why.
  void fail_job(JobRecord job, const std::string& why);

 private:
  Provider* provider(const std::string& name, std::string* why);
  bool gpu_pod_running(const JobRecord& job);
  std::string open_phase(const JobRecord& job);  // the phase it was in when its runner died

  ReconcileDeps d_;
  Duration grace_;
  std::map<std::string, std::unique_ptr<Provider>> providers_;
  std::map<std::string, TimePoint> first_seen_;  // "provider/id" of unknown pods
};

}  // namespace burst::daemon
