// Makes the store and the clouds agree, so no pod outlives its job (docs/daemon.md, "Recovery"),
// through the one reaper (app/reaper.h) that `burst reap` uses too:
//   - recover_jobs(), on start: a job recorded as running whose runner is gone (burstd was killed
//     mid-run) is handed to `reattach` when it stopped in its run phase and its GPU pod is still
//     running (the runner then reconnects over SSH and follows the step's supervisor; a pod it
//     cannot reach fails the job through the delete). Otherwise it is failed by the reaper: its
//     pods deleted and verified gone, its open phases closed, the reason recorded, its report
//     rewritten.
//   - reap(), on start, on request and every orphan grace period: the reaper's pass with the
//     orphan grace (a pod of this installation unknown to the store is deleted once the store
//     first saw it longer ago than the grace, across restarts); pods left to a live job are not
//     listed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/reaper.h"
#include "burst/clock.h"
#include "burst/provider.h"
#include "burst/store.h"

namespace burst::daemon {

struct ReconcileDeps {
  Store& store;
  Clock& clock;
  std::vector<std::string> providers;  // names to ask, in order
  std::function<Result<std::unique_ptr<Provider>>(const std::string&)> make_provider;
  // Whether this burstd runs the job (its scheduler, reattached jobs included). Any other job's
  // runner is judged by the reaper's owner-liveness rule (pid + start time).
  std::function<bool(const JobRecord&)> runs_here;
  std::string reports_dir;  // where the recovered job's report is rewritten
  // Takes over a job to reattach (true), or declines (false: the job is failed). Empty: never.
  std::function<bool(const JobRecord&, const std::string& why)> reattach = {};
  // Takes over a job to run again from its plan (true), or declines (false: the job is failed):
  // a daemon's job whose lease ended before its run step ever started. Empty: never.
  std::function<bool(const JobRecord&, const std::string& why)> restart = {};
};

// How often one job is run again after its daemon died before its step (Reconciler, takeover).
inline constexpr int kMaxRestarts = 2;

class Reconciler {
 public:
  Reconciler(ReconcileDeps deps, Duration orphan_grace);

  // Returns one line per job failed or reattached, saying what happened.
  std::vector<std::string> recover_jobs();
  // One job whose runner is gone: reattached (run or pull phase, GPU pod running, `reattach`
  // takes it);
  // on a takeover (`take_over`: its daemon's lease ended, rather than this burstd restarting) of
  // a job whose run step never started and that has no worker pods, its pods are deleted and
  // verified and it runs again from its plan (`restart`, at most kMaxRestarts times); otherwise
  // failed, its pods deleted and verified. Returns the line saying which.
  std::string recover_job(const JobRecord& job, bool take_over);
  // What the pass did, less the pods left to a live job; `failed_jobs` as Reaper::reap.
  std::vector<PodAction> reap(std::vector<std::string>* failed_jobs = nullptr);
  // Fails a job whose runner is gone (Reaper::fail_orphaned_job).
  void fail_job(JobRecord job, const std::string& why);

 private:
  bool gpu_pod_running(const JobRecord& job);
  // A job reattached in its pull: the old pull row is closed as interrupted (the reattached
  // runner follows the finished step and pulls again). False when its phases cannot be read.
  bool close_pull(const JobRecord& job);
  // "" when the job may run again from its plan: no run phase ever began, no worker pod, fewer
  // than kMaxRestarts restarts; otherwise why not.
  std::string why_not_restartable(const JobRecord& job);

  ReconcileDeps d_;
  Duration grace_;
  Reaper reaper_;
};

}  // namespace burst::daemon
