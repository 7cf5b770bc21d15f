#include "job/worker_fleet.h"

#include <exception>
#include <map>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "job/artefact_merge.h"
#include "job/job_phases.h"
#include "job/pod_lifecycle.h"
#include "plan/worker_shards.h"

namespace burst {
namespace {

// One provider call at a time: the drivers (and the test fakes) were written for one job thread.
class LockedProvider : public Provider {
  template <typename F>
  auto call(F f) -> decltype(f()) {
    std::lock_guard<std::mutex> lock(mu_);
    return f();
  }

 public:
  explicit LockedProvider(Provider& p) : p_(p) {}
  std::string name() const override { return p_.name(); }
  Result<std::vector<Offer>> offers(bool gpu) override {
    return call([&] { return p_.offers(gpu); });
  }
  Result<Volume> ensure_volume(const std::string& name, int size_gb,
                               const std::string& region) override {
    return call([&] { return p_.ensure_volume(name, size_gb, region); });
  }
  Result<std::vector<Volume>> list_volumes() override {
    return call([&] { return p_.list_volumes(); });
  }
  Status delete_volume(const std::string& id) override {
    return call([&] { return p_.delete_volume(id); });
  }
  bool volume_names_listed() const override { return p_.volume_names_listed(); }
  Result<Pod> create_pod(const PodRequest& r) override {
    return call([&] { return p_.create_pod(r); });
  }
  Result<Pod> get_pod(const std::string& id) override {
    return call([&] { return p_.get_pod(id); });
  }
  Result<std::vector<Pod>> list_pods() override {
    return call([&] { return p_.list_pods(); });
  }
  Status delete_pod(const std::string& id) override {
    return call([&] { return p_.delete_pod(id); });
  }
  Result<AccountCheck> check_account(const std::string& key) override {
    return call([&] { return p_.check_account(key); });
  }

 private:
  Provider& p_;
  std::mutex mu_;
};

// Whole lines from several workers, never interleaved; no transient progress lines (k of them
// would overwrite each other).
class LockedConsole : public Console {
 public:
  explicit LockedConsole(Console& c) : c_(c) {}
  void line(const std::string& t) override {
    call([&] { c_.line(t); });
  }
  void remote_out(const std::string& l) override {
    call([&] { c_.remote_out(l); });
  }
  void remote_err(const std::string& l) override {
    call([&] { c_.remote_err(l); });
  }
  void progress(const std::string&) override {}
  bool confirm(const std::string& q) override {
    std::lock_guard<std::mutex> lock(mu_);
    return c_.confirm(q);
  }
  void phase_started(std::optional<int> worker, Phase phase) override {
    call([&] { c_.phase_started(worker, phase); });
  }

 private:
  template <typename F>
  void call(F f) {
    std::lock_guard<std::mutex> lock(mu_);
    f();
  }
  Console& c_;
  std::mutex mu_;
};

// A worker's first attempt tells the job's fault observer each point twice: as "<point>" and as
// "<point>@w<i>", so the chaos matrix can stop one worker at one phase (docs/chaos.md). A retry
// tells only "<point>": the fault is not injected into the shard's second pod.
class WorkerFaultPoints : public FaultObserver {
 public:
  WorkerFaultPoints(FaultObserver* inner, int index, int attempt)
      : inner_(inner), suffix_(attempt == 0 ? "@w" + std::to_string(index) : "") {}
  void reached(std::string_view point) override {
    inner_->reached(point);
    if (!suffix_.empty()) inner_->reached(std::string(point) + suffix_);
  }

 private:
  FaultObserver* inner_;
  const std::string suffix_;
};

// Whether `provider` (the plan's offer's or a fallback's) bills nothing for a pod it cannot reach.
bool lost_pod_bills_nothing(const Plan& plan, const std::string& provider) {
  if (plan.gpu.provider == provider) return traits_of(plan.gpu).lost_pod_bills_nothing;
  for (const FleetFallback& f : plan.fallbacks)
    if (f.offer.provider == provider) return traits_of(f.offer).lost_pod_bills_nothing;
  return false;
}

class Fleet {
 public:
  Fleet(JobDeps& d, const JobInput& in, Redactor& redact, JobWatchdog& watchdog,
        const std::function<void(Phase)>& on_phase)
      : d_(d),
        in_(in),
        redact_(redact),
        watchdog_(watchdog),
        on_phase_(on_phase),
        console_(d.console) {
    // One lock per provider: the job's own and each one a fallback may move a worker to.
    locked_[d.provider.name()] = std::make_unique<LockedProvider>(d.provider);
    for (const auto& [name, p] : d.providers)
      if (p && !locked_.count(name)) locked_[name] = std::make_unique<LockedProvider>(*p);
  }

  FleetResult run() {
    const int k = in_.plan.estimate.workers;
    std::string what =
        k == 1 ? "1 worker, one GPU pod" : std::to_string(k) + " workers, one GPU pod each";
    if (in_.has_items_file)
      what += "; " + std::to_string(in_.items.size()) + " items in contiguous shards of about " +
              std::to_string(in_.items.size() / static_cast<size_t>(k));
    console_.line(what);
    if (plan_rents_spot(in_.plan))
      console_.line("spot pods: a worker the provider takes back keeps its finished items and " +
                    std::string("gives the rest to a new pod: at most ") +
                    std::to_string(kSpotPodsPerWorker) + " spot pods a worker, then on-demand");
    std::vector<std::string> locals;
    for (const Artefact& a : in_.spec.artefacts) locals.push_back(a.local);
    if (in_.spec.resources.merge_flat) clear_merge_staging(locals, k);
    provision_.shared_code_dir = in_.spec.code.remote_dir + "-code";  // job/job_types.h
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(k));
    for (int i = 0; i < k; ++i) threads.emplace_back([this, i] { worker(i); });
    for (std::thread& t : threads) t.join();
    watchdog_.clear_runtime_limit();
    std::lock_guard<std::mutex> lock(mu_);
    // The flat merge rule: what every worker brought home, moved up into one directory.
    if (in_.spec.resources.merge_flat) {
      if (Status st = merge_flat(locals, k); !st.ok()) {
        console_.line(st.error().message);
        result_.failed = true;
        if (first_failure_.empty()) first_failure_ = st.error().message;
      } else {
        console_.line("merged every worker's artefacts into one directory (merge: flat)");
      }
    }
    result_.interrupted = d_.interrupts() > 0;
    result_.error = first_failure_;
    return result_;
  }

 private:
  struct Attempt {
    bool ok = false;
    bool stopped = false;   // by the fleet's stop or a deadline: not retried
    bool pod_left = false;  // its delete was not confirmed: not retried, unless
    // its provider bills nothing for a pod it cannot reach (your own host: ProviderTraits::
    // lost_pod_bills_nothing): then its shard moves like a crashed worker's, its record kept
    bool left_bills_nothing = false;
    std::string pod_id;      // the attempt's GPU pod (provider id), "" when none was created
    bool preempted = false;  // the provider took its pod back (spot): not a crash
    int64_t artefacts_since = 0;
    std::string error;
    JobStop stop = JobStop::kNone;  // the limit behind `error`, if one
  };
  // How a worker's next pod is rented (the spot policy in worker_fleet.h).
  struct Rent {
    bool spot = false;            // the plan's spot choice still stands for this worker
    bool resume = false;          // after a preemption: the done records are kept
    bool next_spot = false;       // if this pod is preempted too, the next one is on spot again
    int64_t artefacts_since = 0;  // the first pod's freshness cut, kept across preemptions
  };

  // Why the fleet stops, or "" while it runs on.
  std::string stop_reason() const {
    if (watchdog_.fired()) return watchdog_.reason();
    if (d_.interrupts() > 0) return "stopped: " + d_.stop_source;
    std::lock_guard<std::mutex> lock(mu_);
    if (failed_worker_ >= 0) return "stopped: worker " + std::to_string(failed_worker_) + " failed";
    return "";
  }

  void worker(int index) {
    const int retries = in_.spec.resources.worker_retries;
    int failures = 0, preemptions = 0;
    Rent rent;
    rent.spot = plan_rents_spot(in_.plan);
    for (int a = 0;; ++a) {
      // This pod is spot pod number preemptions + 1; if it is taken back too, the next is spot
      // pod number preemptions + 2.
      rent.next_spot = rent.spot && preemptions + 2 <= kSpotPodsPerWorker;
      Attempt r;
      try {
        r = attempt(index, a, failures >= retries, rent);
      } catch (const std::exception& e) {
        r.error = std::string("internal error: ") + e.what();
        r.pod_left = true;  // unknown: let reap look
      }
      if (r.ok) return;
      const std::string tag = "[w" + std::to_string(index) + "] ";
      // Taken back by the provider: not the job's fault, so no worker retry is used; the
      // unfinished items go to a new pod, on spot while the policy allows, then on-demand.
      if (r.preempted && !r.stopped && !r.pod_left && stop_reason().empty()) {
        ++preemptions;
        {
          std::lock_guard<std::mutex> lock(mu_);
          ++result_.preemptions;
        }
        console_.line(tag + "preempted (" + r.error + "); its unfinished items run on a new " +
                      (rent.next_spot ? "spot" : "on-demand") + " pod (preemption " +
                      std::to_string(preemptions) + "; at most " +
                      std::to_string(kSpotPodsPerWorker) + " spot pods a worker, then on-demand)");
        rent.spot = rent.next_spot;
        rent.resume = true;
        if (rent.artefacts_since == 0) rent.artefacts_since = r.artefacts_since;
        continue;
      }
      const bool lost_host = r.pod_left && r.left_bills_nothing;
      if (!r.stopped && (!r.pod_left || lost_host) && failures < retries && stop_reason().empty()) {
        ++failures;
        rent.resume = false;  // a crash: its shard runs again whole, as before
        rent.artefacts_since = 0;
        // A lost own host: what it made never came home, so its whole shard runs elsewhere.
        const std::string what =
            lost_host ? "lost its host (" + r.error + "); pod " + r.pod_id +
                            " could not be released and bills nothing while unreachable (its " +
                            "record stays for `burst reap`)"
                      : "failed (" + r.error + ")";
        console_.line(tag + what + "; its shard runs again on a new pod, retry " +
                      std::to_string(failures) + " of " + std::to_string(retries));
        continue;
      }
      std::lock_guard<std::mutex> lock(mu_);
      result_.failed = true;
      if (first_failure_.empty()) {
        first_failure_ = "w" + std::to_string(index) + ": " + r.error;
        result_.stop = r.stop;
      }
      if (failed_worker_ < 0) failed_worker_ = index;  // the others stop (after any real reason)
      return;
    }
  }

  Attempt attempt(int index, int attempt, bool last, const Rent& rent) {
    const std::string w = std::to_string(index);
    JobInput in = in_;
    in.worker = {index, in_.plan.estimate.workers, attempt, rent.resume, rent.artefacts_since};
    in.items = shard_of(in_.items, index, in.worker.count);
    in.spec.code.remote_dir += "-w" + w;  // each worker its own code dir on a shared volume
    if (in.plan.spot) in.plan.spot->chosen = rent.spot;  // on-demand once the policy says so
    // A spot job of one pod (a fleet of one) brings its artefacts where the spec says.
    const bool one = in_.plan.estimate.workers <= 1;
    for (Artefact& a : in.spec.artefacts)
      a.local = in_.spec.resources.merge_flat ? merge_staging_dir(a.local, index)
                : one                         ? a.local
                                              : a.local + "/w" + w;
    JobDeps deps{d_.store,
                 d_.clock,
                 d_.connector,
                 *locked_.at(d_.provider.name()),
                 console_,
                 d_.config,
                 [this] {
                   // One stop request as the job's: a fleet stop counts as one, never as two
                   // (a second would skip the pull).
                   const int n = d_.interrupts();
                   return n > 0 ? n : (stop_reason().empty() ? 0 : 1);
                 }};
    deps.extra_caps = d_.extra_caps;
    deps.stop_source = d_.stop_source;
    for (const auto& [name, p] : locked_) deps.providers[name] = p.get();
    WorkerFaultPoints faults(d_.faults, index, attempt);
    deps.faults = d_.faults ? &faults : nullptr;
    JobPhases phases(deps, in, redact_);
    phases.set_watchdog(&watchdog_);
    phases.set_fleet([this] { return stop_reason(); }, &provision_);
    // A failed attempt that will be retried pulls nothing: its retry's artefacts replace it.
    JobFacts facts{false, in_.spec.pull_on_failure && last, false};
    // A prepare step the plan put on the GPU pod (a provider without CPU pods) runs on each
    // worker's pod before its sync; one the plan put on a CPU pod ran once, before the fleet.
    if (in_.plan.prepare && in_.spec.prepare && in_.plan.prepare->where == PrepareWhere::kGpuPod)
      facts.prepare = PrepareWhere::kGpuPod;
    bool delete_failed = false;
    bool preempted = false;
    std::string preempted_words;  // "pod <id> (<the provider's words>)"
    Phase phase = Phase::kProvision;
    while (phase != Phase::kReport && phase != Phase::kDone) {
      on_phase_(phase);
      watchdog_.progress();
      phases.phase_started(phase);
      const int64_t start = to_unix_ms(d_.clock.now());
      std::string detail;
      Outcome outcome;
      try {
        outcome = phases.execute(phase, &detail);
      } catch (const std::exception& e) {
        outcome = Outcome::kFailed;
        detail = std::string("internal error: ") + e.what();
        phases.fail(detail);
      }
      if (outcome == Outcome::kFailed || outcome == Outcome::kInterrupted ||
          outcome == Outcome::kConnectionLost)
        facts.job_failed = true;
      if (phase == Phase::kDeleteGpu && outcome == Outcome::kFailed) delete_failed = true;
      // A GPU phase that failed or lost its pod: was the pod taken back? The provider's state
      // says (JobPhases::gpu_preempted); a step's own failure on a running pod is a crash.
      std::string words;
      if (!preempted && (outcome == Outcome::kFailed || outcome == Outcome::kConnectionLost) &&
          phase != Phase::kProvision && phase != Phase::kDeleteGpu &&
          phases.gpu_preempted(&words)) {
        preempted = true;
        preempted_words = words;
        detail += (detail.empty() ? "" : "; ") + std::string(kPreemptionMarker) + words +
                  "; its unfinished items go to a new " + (rent.next_spot ? "spot" : "on-demand") +
                  " pod";
      }
      // A pod resumed after a preemption: what its done records kept (the report reads it).
      if (phase == Phase::kWaitSsh && rent.resume && outcome == Outcome::kOk)
        detail += "; " + std::string(kResumeMarker) + std::to_string(phases.items_kept()) +
                  " items kept, " + std::to_string(phases.items_given()) + " run again";
      // A fallback onto another provider's volume: the prepare step runs on this worker's pod.
      if (phase == Phase::kProvision && in.plan.prepare && in_.spec.prepare &&
          in.plan.prepare->where == PrepareWhere::kGpuPod)
        facts.prepare = PrepareWhere::kGpuPod;
      {
        // The row whole, with its worker and any deviation typed (the report reads those).
        PhaseRecord row{
            in_.job_id,
            phase,
            start,
            to_unix_ms(d_.clock.now()),
            outcome,
            "w" + w + ": " + redact_(detail),
            index,
            phase == Phase::kProvision && outcome == Outcome::kOk ? phases.deviation() : ""};
        (void)d_.store.record_phase(row);
      }
      phase = next_phase(phase, outcome, facts);
    }
    Attempt r;
    r.ok = !facts.job_failed;
    r.error = phases.error();
    r.stop = phases.stop();
    r.pod_left = delete_failed || phases.gpu_pod_left();
    // The provider of the pod this attempt rented (a fallback's, when it fell back), not the
    // plan's.
    r.left_bills_nothing = lost_pod_bills_nothing(in.plan, phases.gpu_pod_provider());
    r.pod_id = phases.gpu_pod_id();
    r.stopped = phases.stopped_by_deadline() || !stop_reason().empty();
    r.preempted = preempted;
    if (preempted) r.error = preempted_words;
    r.artefacts_since = phases.artefacts_since();
    if (!r.ok && r.error.empty()) {
      r.error = stop_reason().empty() ? "stopped" : stop_reason();
      r.stop = watchdog_.fired() ? watchdog_.stopped_by() : JobStop::kNone;  // stop_reason's first
    }
    return r;
  }

  JobDeps& d_;
  const JobInput& in_;
  Redactor& redact_;
  JobWatchdog& watchdog_;
  const std::function<void(Phase)>& on_phase_;
  std::map<std::string, std::unique_ptr<LockedProvider>> locked_;  // by provider name
  LockedConsole console_;
  FleetProvision provision_;
  mutable std::mutex mu_;
  int failed_worker_ = -1;  // the first worker that failed for good
  std::string first_failure_;
  FleetResult result_;
};

}  // namespace

FleetResult run_fleet(JobDeps& deps, const JobInput& input, Redactor& redact, JobWatchdog& watchdog,
                      const std::function<void(Phase)>& on_phase) {
  return Fleet(deps, input, redact, watchdog, on_phase).run();
}

Status delete_job_pods(JobDeps& deps, const std::string& job_id, const Plan& plan) {
  auto pods = deps.store.pods_of_job(job_id);
  if (!pods.ok()) return pods.error();
  std::string left;
  for (PodRecord& p : *pods) {
    if (!may_exist(p.state)) continue;
    deps.console.line("deleting " + p.role + " pod " + (p.pod_id.empty() ? p.name : p.pod_id));
    // Each pod through its own provider (a fleet fallback may have put it on another). Never
    // through another one: its "not found" would read as deleted while the pod bills on.
    Provider* provider = &deps.provider;
    if (p.provider != deps.provider.name()) {
      auto it = deps.providers.find(p.provider);
      provider = it != deps.providers.end() ? it->second : nullptr;
    }
    if (!provider) {
      left += (left.empty() ? "" : ", ") + p.name + " (on " + p.provider + ")";
      continue;
    }
    Status st = delete_and_verify(deps.store, *provider, deps.clock, &p, deps.faults);
    if (!st.ok() && lost_pod_bills_nothing(plan, p.provider))  // a lost own host (header)
      deps.console.line("pod " + p.pod_id + " did not answer: it bills nothing while " +
                        "unreachable; `burst reap` releases it once its host answers");
    else if (!st.ok())
      left += (left.empty() ? "" : ", ") + p.name;
  }
  if (left.empty()) return Status::Ok();
  return make_error(ErrorCode::kUnavailable,
                    "pods " + left + " may still be running; run `burst reap`");
}

}  // namespace burst
