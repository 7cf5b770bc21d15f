// Runs one job through its phases (job/phase_machine.h), recording each transition in the store.
// The GPU pod is deleted on every path out: a failing step, a lost connection, an interrupt or an
// exception all lead through the delete phase. If even that fails, the pod row stays open and
// the job's error tells the user to run `burst reap`.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/console.h"
#include "burst/fault_observer.h"
#include "burst/provider.h"
#include "burst/remote.h"
#include "burst/spec.h"
#include "burst/states.h"
#include "burst/store.h"
#include "job/budget_guard.h"
#include "plan/planner.h"
#include "sync/code_sync.h"
#include "util/redactor.h"

namespace burst {

struct JobDeps {
  Store& store;
  Clock& clock;
  RemoteConnector& connector;
  Provider& provider;
  Console& console;
  const Config& config;
  // How many interrupts (SIGINT/SIGTERM) have arrived. One stops the job gracefully (stop the
  // remote command, pull if asked, delete); two skip the pull too. Deletion is never skipped.
  std::function<int()> interrupts;
  // Caps beyond the spec's budget.max_usd that a running job's accrued cost must not cross
  // (burstd's global daily/monthly caps, less what other jobs spent); see job/budget_guard.h.
  std::vector<BudgetCap> extra_caps = {};
  // What sends the stop requests counted by `interrupts`, named when one stops the job.
  std::string stop_source = "Ctrl-C or SIGTERM";
  // Told at each fault point (burst/fault_observer.h); none in production unless main() installed
  // the chaos matrix's BURST_FAULT hook.
  FaultObserver* faults = nullptr;
  // Every provider the job may use, by name (PreparedJob::providers), `provider` among them: a
  // wide job's worker runs on a fallback offer's provider when the chosen one has no pod for it
  // (Plan::fallbacks, job/worker_fleet.h), and each pod is deleted through its own provider.
  // Empty: `provider` only.
  std::map<std::string, Provider*> providers = {};
};

// Which of a job's workers (GPU pods splitting the items, job/worker_fleet.h) a runner drives.
struct WorkerSlot {
  int index = 0;    // $BURST_WORKER_INDEX
  int count = 1;    // $BURST_WORKER_COUNT; 1: the job's only GPU pod, as always
  int attempt = 0;  // 0, then 1.. for each retry of the shard on a new pod
};

struct JobInput {
  std::string job_id;
  PipelineSpec spec;
  Plan plan;
  ScanResult code;                             // what sync will send
  std::map<std::string, std::string> secrets;  // name -> value, from the local environment
  std::string ssh_public_key;
  // What the report needs to know beyond the store's rows (report/job_facts.h), captured from the
  // spec and the plan by the caller (app/run_job.h); recorded as the job's facts_json.
  std::string facts_json;
  // Reattach (burstd after a restart): the job is in the store with its run phase open and its
  // GPU pod alive; the runner reconnects to the pod, follows the run step's supervisor from the
  // log offsets it saved, and goes on with pull, delete, upload and report as usual. A pod that
  // cannot be reached fails the job through the delete.
  bool reattach = false;
  std::string reattach_why = {};  // recorded in the reattach phase, e.g. "burstd pid 42 stopped"
  // Restart (burstd took over a job whose daemon died before its run step started): the job is
  // in the store, its earlier phases closed and its pods deleted and verified (Reaper::
  // clear_for_restart); the runner runs it again from the plan under the same id and start time
  // (budget.deadline still counts from the first start). The step never ran, so it runs once.
  bool restart = false;
  // workload.items_file's lines (app/items_file.h); a worker's input holds its shard. Written to
  // <pod dir>/items.txt on the pod ($BURST_ITEMS_FILE) when has_items_file.
  bool has_items_file = false;
  std::vector<std::string> items = {};
  WorkerSlot worker = {};
};

// What the runner returns: the job's end state. Its reports, calibration sample and notification
// come after, from the store (app/finish.h).
struct JobResult {
  JobState state = JobState::kFailed;  // kSucceeded | kFailed | kInterrupted
  std::string error;                   // redacted
};

class JobRunner {
 public:
  JobRunner(JobDeps deps, JobInput input);
  ~JobRunner();
  JobResult run();

 private:
  struct LivePod;
  class Phases;
  bool had_workers(const std::string& job_id);
  JobDeps d_;
  JobInput in_;
  Redactor redact_;
};

// A fresh id: "20261122-071500-3fa9".
std::string new_job_id(TimePoint now);

}  // namespace burst
