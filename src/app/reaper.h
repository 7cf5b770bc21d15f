// The one reaper, behind both `burst reap` and burstd's reconciler (docs/daemon.md, "Ownership"
// and "Recovery"). One pass of reap():
//   1. a job recorded `running` whose runner is gone is failed (fail_orphaned_job): its open
//      phases closed, its pods deleted and verified gone, the reason recorded, its report
//      rewritten;
//   2. a pod row of a job that is not running (finished, or failed with its delete unconfirmed)
//      is deleted;
//   3. a `burst-*` pod the provider lists and the store does not know is adopted and deleted when
//      its name carries this installation's id and the store's first-seen time for it is at least
//      `orphan_grace` old (the clock survives restarts: Store::pod_first_seen). Another
//      installation's pods, and untagged ones, are left alone unless `all_installations`.
// Whether a job's runner is alive, the one rule every host uses (job_alive):
//   - this process runs it (`runs_here`: burstd's scheduler);
//   - it is a daemon's job (a row in the store's queue, shared by a team): alive while its lease
//     lives, and for kTakeoverGrace after the lease ended, the time the team's other daemons
//     have to take it over (daemon/scheduler.h); after that no daemon is left to finish it;
//   - otherwise (`burst run`) its owner process lives: pid plus start time (util/proc_start.h),
//     judged only on the host that recorded it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/provider.h"
#include "burst/store.h"

namespace burst {

enum class ReapOutcome {
  kDeleted,      // deleted and verified gone
  kFailed,       // not deleted (or a provider's list failed): it may still be billing
  kSkipped,      // its job's runner is alive and will delete it
  kWaiting,      // ours but unknown to the store, still within the grace period
  kWouldDelete,  // dry run
  kForeign,      // another installation's, or untagged: left alone
};

struct PodAction {
  std::string provider;
  std::string pod;  // provider id, or the name when the id was never learned
  std::string job_id;
  std::string outcome;  // what a person reads: "deleted (confirmed)", "FAILED: ...", ...
  ReapOutcome kind = ReapOutcome::kDeleted;
};

// After a daemon's lease on a running job ends, how long the other daemons have to take it over
// before the reaper fails it (burstd's own `runs_here` already counts every queued job).
inline constexpr Duration kTakeoverGrace = std::chrono::minutes(10);

struct ReaperDeps {
  Store& store;
  Clock& clock;
  std::vector<std::string> providers;  // whose pod lists are searched, in order
  std::function<Result<std::unique_ptr<Provider>>(const std::string&)> make_provider;
  // Whether this very process runs the job (burstd: its scheduler). Empty: it runs none.
  std::function<bool(const JobRecord&)> runs_here;
  std::string reports_dir;  // where a failed job's report is rewritten
  std::string actor;        // "burst reap" | "burstd", named in the errors it records
};

struct ReapOptions {
  Duration orphan_grace{0};  // 0: an unknown pod of ours is deleted at once
  bool dry_run = false;      // changes nothing; says what would be deleted
  bool all_installations = false;
};

class Reaper {
 public:
  explicit Reaper(ReaperDeps deps);

  std::vector<PodAction> reap(const ReapOptions& options,
                              std::vector<std::string>* failed_jobs = nullptr);
  // Fails a job whose runner is gone: closes its open phases as interrupted, deletes its live
  // pods in a "recover" phase, records `why` + what happened to each pod as its error, and
  // rewrites its report. Returns what was done to its pods.
  std::vector<PodAction> fail_orphaned_job(JobRecord job, const std::string& why);
  // Readies a job whose runner died before its run step to run again (burstd's takeover): closes
  // its open phases as interrupted and deletes its live pods in a "recover" phase, verified.
  // True when every pod is gone (the job stays `running`, for JobRunner's restart); false when a
  // delete failed (`detail` says which): the caller fails the job instead.
  bool clear_for_restart(JobRecord job, const std::string& why, std::string* detail);
  // The pods the providers list that belong to another installation (or to none).
  std::vector<PodAction> foreign_pods();

  bool job_alive(const JobRecord& job);
  // The phase a job was in when its runner stopped: its open phase, else the last one recorded.
  std::string open_phase(const JobRecord& job);
  // "the process running it (pid N) stopped during phase P".
  std::string why_stopped(const JobRecord& job);
  // The provider driver (made once), or null with `why`.
  Provider* provider(const std::string& name, std::string* why);

 private:
  PodAction delete_row(PodRecord pod);
  // Closes the job's open phases, opens its recover phase and deletes its live pods; true when
  // every one is verified gone. `detail` says what happened to each.
  bool close_and_delete(const JobRecord& job, std::vector<PodAction>* actions, std::string* detail);
  void unknown_pods(const ReapOptions& o, const std::string& self,
                    const std::vector<PodRecord>& known, std::vector<PodAction>* out);
  PodAction adopt_and_delete(Provider& p, const Pod& pod, const PodNameParts& parts,
                             TimePoint first_seen);

  ReaperDeps d_;
  std::map<std::string, std::unique_ptr<Provider>> providers_;
};

}  // namespace burst
