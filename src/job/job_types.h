// The types the job engine's parts share: what a job is given (JobDeps, JobInput), its pods
// (JobPods) and what a wide job's workers share while they provision (FleetProvision). Internal
// to src/job. Includes no engine part (job_runner, job_phases, worker_fleet, the parts of
// job_phases): every part includes this header, so no part need include another's for a type,
// and none includes one that includes it back (ctest layering.job_include_cycles).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
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
#include "job/remote_steps.h"
#include "job/step_container.h"
#include "plan/planner.h"
#include "sync/code_sync.h"

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
  // The previous attempt's pod was taken back by the provider (spot, job/worker_fleet.h): this
  // pod is given only the items its done records do not show finished (job/spot_items.h).
  bool resume = false;
  // With `resume`: the preempted pod's freshness cut (JobPods::artefacts_since), so the pull
  // still takes what it made on the volume; 0: this pod's own.
  int64_t artefacts_since = 0;
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

// Which of a job's pods a handle is: the GPU pod, the upload's CPU pod, the prepare step's.
enum class PodKind { kGpu, kCpu, kPrep };

struct PodHandle {
  explicit PodHandle(PodKind k) : kind(k) {}
  PodKind kind;
  PodRecord record;
  SshTarget target;
  std::unique_ptr<RemoteSession> session;
  PodPaths paths;
  // Set when the provider runs steps inside the spec's image on its VMs
  // (ProviderTraits::steps_in_container).
  std::optional<StepContainer> container;
  bool needs_delete() const { return record.row_id != 0 && may_exist(record.state); }
};

// A job's pods (a wide job's worker: its own), and what the parts learn on them as it runs.
struct JobPods {
  PodHandle gpu{PodKind::kGpu};
  PodHandle cpu{PodKind::kCpu};
  PodHandle prep{PodKind::kPrep};  // the prepare step's CPU pod
  // The spec's code.remote_dir on the pod ($BURST_WORKDIR), set at each connection.
  std::string workdir;
  // Pod clock (s) at the job's first step on the GPU pod: the pull's freshness cut (issue 21).
  int64_t artefacts_since = 0;
  // The rows of the pods this handle set created (what the budget counts for a one-pod job).
  std::vector<PodRecord> records() const;
  // Spot recovery (job/worker_fleet.h): the items this pod runs, once the worker's done records
  // ($BURST_DONE_FILE, on the volume) showed `items_kept` of its shard finished by an earlier,
  // preempted pod. Unset: the whole shard (JobInput::items).
  std::optional<std::vector<std::string>> items_left;
  long items_kept = 0;
};

// What the workers of one wide job share while they provision (job/worker_fleet.h).
struct FleetProvision {
  std::mutex mu;  // one worker at a time binds the volume (and, see below, places its pod)
  // Volumes on one machine (ProviderTraits::volumes_machine_local): the plan's offer as the first
  // worker re-checked it. The others take it rather than re-check (the earlier workers' pods may
  // have taken that offer, which is no reason to plan the job's volume anew elsewhere): each is
  // placed beside the volume or on a volume of its own (job/volume_binding.h, place_worker),
  // its create made under `mu` so the next one sees the GPU taken.
  std::optional<Offer> checked_gpu;
  // One code sync per volume the workers share (issue 19: "each pod syncs; on a shared network
  // volume, once"): the first worker on a volume id syncs into `shared_code_dir` (the spec's
  // code.remote_dir + "-code", $BURST_VOLUME unexpanded) and marks it done in the volume's
  // .burst/sync/<job id>.code; each worker then copies it into its own code dir on its pod. A
  // worker whose pod does not see the mark (its volume is not really shared) syncs itself.
  // Empty: every worker syncs.
  std::string shared_code_dir;
  std::mutex sync_mu;
  std::map<std::string, std::shared_ptr<std::mutex>> sync_by_volume;  // volume key -> its lock
  // A `prepare:` step on the GPU pods (a provider without CPU pods) runs on one worker of a volume
  // at a time, so two never write the same weights at once; a later one then finds the step's
  // creates: paths and skips it. volume key -> its lock, under sync_mu.
  std::map<std::string, std::shared_ptr<std::mutex>> prepare_by_volume;
  // Capacity is learned at create (Plan::fallbacks): an offer that refused a worker's create for
  // want of capacity, keyed "<provider>/<GPU type>/<region>", with what the provider said. Later
  // workers (and retries) go straight past it to the first fallback that may still have a pod.
  // Under `mu`.
  std::map<std::string, std::string> full;

  // The lock of one volume ("<provider>/<volume id>": one provider's ids are not another's) in
  // sync_by_volume or prepare_by_volume, made on first use.
  std::shared_ptr<std::mutex> volume_lock(std::map<std::string, std::shared_ptr<std::mutex>>& locks,
                                          const std::string& volume_key);
};

// Each provider's billing rule for the plan's offers: the chosen one and its fleet fallbacks
// (job/budget_guard.h), so a job's pods on several providers are each billed by their own rule.
JobBilling billing_of_plan(const Plan& plan);

// GPUs the GPU pod is created with: the planned offer's count (a hand-made offer, in tests or
// --offers, may leave it 0: then the spec's count, at least 1).
int rented_gpus(const JobInput& in);

// `path` with a leading "$BURST_VOLUME" replaced by the pod's volume root.
std::string expand_volume(std::string path, const std::string& volume);
// Seconds from `t` to now: wall time (a step's runtime, from its phase's recorded start), or the
// monotonic clock (what a transfer or a wait took).
double seconds_since(Clock& clock, TimePoint t);
double seconds_since(Clock& clock, MonoTime t);

// Marks the line a fleet fallback said in its worker's provision row (the report reads it back):
// "<what the create said>; deviated from the plan: <the line>".
inline constexpr const char* kDeviationMarker = "deviated from the plan: ";

}  // namespace burst
