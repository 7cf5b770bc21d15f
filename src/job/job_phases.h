// The body of each job phase; JobRunner drives them in the order phase_machine.h decides.
// Internal to src/job.
#pragma once

#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "job/job_runner.h"
#include "job/job_watchdog.h"
#include "job/phase_machine.h"
#include "job/remote_steps.h"
#include "job/step_container.h"
#include "sync/code_sync.h"

namespace burst {

struct PodHandle {
  PodRecord record;
  SshTarget target;
  std::unique_ptr<RemoteSession> session;
  PodPaths paths;
  // Set when the provider runs steps inside the spec's image on its VMs
  // (ProviderTraits::steps_in_container).
  std::optional<StepContainer> container;
  bool needs_delete() const { return record.row_id != 0 && may_exist(record.state); }
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
  std::map<std::string, std::shared_ptr<std::mutex>> sync_by_volume;  // volume id -> its lock
  // A `prepare:` step on the GPU pods (a provider without CPU pods) runs on one worker of a volume
  // at a time, so two never write the same weights at once; a later one then finds the step's
  // creates: paths and skips it. volume id -> its lock, under sync_mu.
  std::map<std::string, std::shared_ptr<std::mutex>> prepare_by_volume;
  // Capacity is learned at create (Plan::fallbacks): an offer that refused a worker's create for
  // want of capacity, keyed "<provider>/<GPU type>/<region>", with what the provider said. Later
  // workers (and retries) go straight past it to the first fallback that may still have a pod.
  // Under `mu`.
  std::map<std::string, std::string> full;
};

// Each provider's billing rule for the plan's offers: the chosen one and its fleet fallbacks
// (job/budget_guard.h), so a job's pods on several providers are each billed by their own rule.
JobBilling billing_of_plan(const Plan& plan);

// Marks the line a fleet fallback said in its worker's provision row (the report reads it back):
// "<what the create said>; deviated from the plan: <the line>".
inline constexpr const char* kDeviationMarker = "deviated from the plan: ";

class JobPhases {
 public:
  JobPhases(JobDeps& deps, JobInput& input, Redactor& redact);
  ~JobPhases();
  // The job's deadlines (job/job_watchdog.h): sessions are attached to it while they live, the
  // run step sets its runtime limit, and a failure caused by its abort names the deadline.
  void set_watchdog(JobWatchdog* watchdog) { watchdog_ = watchdog; }
  // One worker of several (JobInput::worker.count > 1, job/worker_fleet.h): `stop_reason` says
  // why the fleet stops ("" while it runs on), `provision` serialises the volume binding.
  // Then the budget counts every pod of the job, the watchdog's runtime limit is the fleet's,
  // and every line is prefixed "[w<i>] ".
  void set_fleet(std::function<std::string()> stop_reason, FleetProvision* provision) {
    fleet_stop_ = std::move(stop_reason);
    fleet_provision_ = provision;
  }
  // The run step was stopped by budget.max_runtime, budget.deadline or a money cap (not retried).
  bool stopped_by_deadline() const { return stopped_by_deadline_; }
  // The provider this job's GPU pod is on (a fleet fallback may have moved it), and the line
  // saying why it deviated from the plan ("" when it did not).
  Provider& gpu_provider() const { return *provider_; }
  const std::string& deviation() const { return deviation_; }
  // The GPU pod's row exists and was not confirmed deleted.
  bool gpu_pod_left() const { return gpu_.needs_delete(); }

  // Runs one phase. `detail` gets a short redacted note for the phase's row; a failure's reason
  // also becomes the job's error (the first one wins).
  Outcome execute(Phase phase, std::string* detail);

  const std::string& error() const { return error_; }
  void fail(const std::string& why);
  void say(const std::string& text);
  // Reattach (JobInput::reattach): loads the GPU pod from the store, reconnects with its pinned
  // host key and checks the run step's supervisor files. kConnectionLost when it cannot. A run
  // step whose files are not there never started: the run phase then starts it (once-only).
  Outcome reattach_gpu(std::string* detail);

 private:
  Outcome provision(std::string* detail);
  Outcome sync(std::string* detail);
  // A fleet worker's sync through FleetProvision::shared_code_dir; kFailed with *detail empty
  // when the shared copy cannot serve (then sync() syncs this worker's dir itself).
  Outcome sync_shared(std::string* detail);
  // One code sync into `dir` on the GPU pod, its progress shown and its transfer recorded; the
  // stats and the seconds it took.
  Result<std::pair<SyncStats, double>> sync_into(const std::string& dir);
  // The lock of this worker's volume in one of FleetProvision's per-volume maps.
  std::shared_ptr<std::mutex> volume_lock(
      std::map<std::string, std::shared_ptr<std::mutex>>& locks);
  // Pulls pod.container's image on the pod (once per pod, from connect_pod), its output logged.
  // The run phase: one copy of the run step, or Plan::layout's replicas (job_phases_steps.cpp).
  Outcome run_replicas(std::string* detail);
  int rented_gpus() const;  // GPUs the GPU pod is created with: the planned offer's count
  Outcome pull_step_image(PodHandle& pod, const std::function<bool()>& stop, std::string* detail);
  Outcome step(const std::string& name, const std::string& script, PodHandle& pod,
               double max_seconds, std::string* detail);
  Outcome pull(std::string* detail);
  Outcome delete_pod(PodHandle& pod, std::string* detail);
  Outcome cpu_provision(std::string* detail);
  Outcome upload_local(std::string* detail);
  // The prepare step (plan/prepare.h): its CPU pod on the volume, then the step on that pod or
  // on the GPU pod, skipped when every `creates:` path already exists on the volume.
  Outcome prepare_cpu_provision(std::string* detail);
  Outcome prepare(std::string* detail);
  // Once per job, before the first create: the chosen offer re-checked (job/offer_recheck.h);
  // a fall-over prints the new plan and why before anything is spent. `recheck_note_` keeps it.
  Status recheck_offer_once();
  // Finds or creates the spec's volume (once): the prepare pod and the GPU pod mount the same one.
  Status bind_volume_once();
  // A worker on a provider whose volumes live on one machine: beside the job's volume, or onto
  // the machine of a volume of its own (in_.plan.gpu and volume_id_ then name those).
  Status place_worker_pod();

  // With `no_capacity` set, a create the provider refuses for want of capacity is returned there
  // (kFailed, nothing said, the job's error untouched) for the caller to fall over.
  Outcome create_pod(PodHandle& pod, bool gpu, std::string* detail, Error* no_capacity = nullptr);
  // A wide job's worker whose pod the chosen offer cannot give (`why`, the provider's words):
  // the plan's fallbacks in order, each after one line saying what changed, why and what it costs
  // against the plan (FleetProvision::full holds those already refused).
  Outcome provision_fallback(const Offer& refused, const std::string& why, std::string* detail);
  bool can_fall_back() const { return fleet_provision_ && !in_.plan.fallbacks.empty(); }
  // The provider of that name among JobDeps::providers, else JobDeps::provider.
  Provider& provider_named(const std::string& name) const;
  void adopt_session(PodHandle& pod, std::unique_ptr<RemoteSession> session);
  void drop_session(PodHandle& pod);
  void moving() {
    if (watchdog_) watchdog_->progress();
  }
  // Tells JobDeps::faults (if any) that the job is at `point` + `suffix` ("mid-" + "run").
  void fault(std::string_view point, std::string_view suffix = {});
  // With `start_error` set, a pod the provider reports unable to start (Pod::start_failed) is
  // returned there (kFailed, the job's error untouched) for the caller to replace.
  Outcome connect_pod(PodHandle& pod, std::string* detail, bool reattach = false,
                      Error* start_error = nullptr);
  // The GPU pod's wait-for-ssh phase. A pod whose container the provider reports unable to start
  // is deleted (verified) and replaced on another machine, within the job's caps, at most
  // kMaxStartRetries times (job/job_phases_start_retry.cpp); a wide job's fleet retries instead.
  Outcome wait_gpu_pod(std::string* detail);
  Outcome replace_unstarted_gpu_pod(const Error& start_error, int retry, std::string* detail);
  static constexpr int kMaxStartRetries = 2;
  int start_retries_ = 0;  // GPU pods replaced so far: the next one's name ends "gpur<n>"
  std::vector<std::string> start_failed_regions_;  // where they were (never chosen again)
  std::string budget_exceeded() const;             // "" or why the budget guard stops the job
  StepOffsets load_offsets(const std::string& step) const;
  void save_offsets(const std::string& step, const StepOffsets& o) const;
  std::string offsets_path(const std::string& step) const;
  Outcome failed(const Error& e, const std::string& what, std::string* detail);
  void remote_line(bool is_err, const std::string& line);
  // A stop request, or budget.deadline passed (job/job_watchdog.h): whatever polls for a stop.
  bool interrupted() const { return d_.interrupts() > 0 || past_deadline(); }
  bool past_deadline() const { return watchdog_ && watchdog_->deadline_passed(); }
  // The end of a phase that did its work: kOk, kInterrupted after a stop request, or the failure
  // "<what>: stopped: budget.deadline (N s) reached" once the deadline has passed.
  Outcome unless_stopped(const std::string& what, std::string* detail);

  JobDeps& d_;
  JobInput& in_;
  Redactor& redact_;
  PodHandle gpu_, cpu_, prep_;  // prep_: the prepare step's CPU pod
  std::string workdir_;
  std::string volume_id_;        // the provider's id for the spec's volume (ensure_volume)
  std::string volume_region_;    // where that volume is (bind_volume_once)
  bool run_unstarted_ = false;   // reattach: the run phase was open, its step never started
  int64_t artefacts_since_ = 0;  // pod clock (s) at the first step; the pull's freshness cut
  std::string error_;
  std::ofstream log_;
  std::vector<BudgetCap> caps_;         // budget.max_usd and the extra caps from JobDeps
  mutable BillingClock billing_clock_;  // the budget check's time: never runs backwards
  JobWatchdog* watchdog_ = nullptr;
  // Writes the pod's Host entry into burst's ssh_config (util/ssh_hosts_file.h).
  void publish_ssh_host(const PodHandle& pod, bool cpu);
  bool wide() const { return in_.worker.count > 1; }
  std::string tag_;  // "[w2] " for a worker of several, else ""
  std::function<std::string()> fleet_stop_;
  FleetProvision* fleet_provision_ = nullptr;
  bool stopped_by_deadline_ = false;
  bool offer_checked_ = false;
  Provider* provider_;        // the GPU pod's provider: JobDeps::provider, or a fallback's
  const Offer planned_gpu_;   // the plan's offer, as the plan the user saw named it
  std::string deviation_;     // what a fallback changed, "" when the pod is where the plan said
  const JobBilling billing_;  // each provider's rule, for the budget (billing_of_plan)
  std::string recheck_note_;  // what the re-check changed, "" when nothing

 public:
  const std::vector<BudgetCap>& caps() const { return caps_; }
};

}  // namespace burst
