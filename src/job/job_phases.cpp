#include "job/job_phases.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "job/container_checks.h"
#include "job/local_step.h"
#include "job/offer_recheck.h"
#include "job/pod_lifecycle.h"
#include "job/volume_binding.h"
#include "job/volume_read.h"
#include "plan/load_history.h"
#include "plan/plan_summary.h"
#include "plan/worker_shards.h"
#include "sync/artefact_pull.h"
#include "sync/transfer_progress.h"
#include "util/private_file.h"
#include "util/shell.h"
#include "util/ssh_hosts_file.h"
#include "util/terminal_text.h"

namespace burst {
namespace fs = std::filesystem;

namespace {

// FleetProvision::full's key of an offer.
std::string fleet_offer_key(const Offer& o) {
  return o.provider + "/" + o.gpu_type + "/" + o.region;
}

std::string fleet_money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, usd != 0 && usd < 0.01 ? "$%.4f" : "$%.2f", usd);
  return buf;
}

std::string replace_volume(std::string path, const std::string& volume) {
  const std::string var = "$BURST_VOLUME";
  if (path.rfind(var, 0) == 0) path = volume + path.substr(var.size());
  return path;
}

double seconds_since(Clock& clock, TimePoint t) {
  return std::chrono::duration<double>(clock.now() - t).count();
}
// Elapsed time on the monotonic clock: what a transfer or a wait took.
double seconds_since(Clock& clock, MonoTime t) {
  return std::chrono::duration<double>(clock.mono_now() - t).count();
}

}  // namespace

JobBilling billing_of_plan(const Plan& plan) {
  JobBilling b(traits_of(plan.gpu).billing);
  b.by_provider[plan.gpu.provider] = b.rule;
  for (const FleetFallback& f : plan.fallbacks)
    b.by_provider.emplace(f.offer.provider, traits_of(f.offer).billing);
  return b;
}

void JobPhases::fault(std::string_view point, std::string_view suffix) {
  if (!d_.faults) return;
  if (suffix.empty()) return d_.faults->reached(point);
  std::string name(point);
  name += suffix;
  d_.faults->reached(name);
}

JobPhases::JobPhases(JobDeps& deps, JobInput& input, Redactor& redact)
    : d_(deps),
      in_(input),
      redact_(redact),
      billing_clock_([this] { return d_.clock.mono_now(); }),
      provider_(&deps.provider),
      planned_gpu_(input.plan.gpu),
      billing_(billing_of_plan(input.plan)) {
  std::error_code ec;
  fs::create_directories(d_.config.logs_dir, ec);
  // Created 0600 before the stream opens it (util/private_file.h): the log is the user's alone.
  (void)touch_private_file(d_.config.logs_dir + "/" + in_.job_id + ".log");
  log_.open(d_.config.logs_dir + "/" + in_.job_id + ".log", std::ios::app);
  if (in_.spec.budget.max_usd) caps_.push_back({*in_.spec.budget.max_usd, "budget.max_usd"});
  caps_.insert(caps_.end(), d_.extra_caps.begin(), d_.extra_caps.end());
  if (wide()) tag_ = "[w" + std::to_string(in_.worker.index) + "] ";
}

JobPhases::~JobPhases() {
  drop_session(gpu_);
  drop_session(cpu_);
  drop_session(prep_);
}

void JobPhases::adopt_session(PodHandle& pod, std::unique_ptr<RemoteSession> session) {
  drop_session(pod);
  pod.session = std::move(session);
  if (watchdog_ && pod.session) watchdog_->attach(pod.session.get());
}

void JobPhases::drop_session(PodHandle& pod) {
  if (!pod.session) return;
  if (watchdog_) watchdog_->detach(pod.session.get());
  pod.session.reset();
}

void JobPhases::say(const std::string& text) {
  std::string clean = tag_ + terminal_safe(redact_(text));  // errors may quote what a pod said
  d_.console.line(clean);
  log_ << format_utc(d_.clock.now()) << " " << clean << "\n" << std::flush;
}

void JobPhases::fail(const std::string& why) {
  if (error_.empty()) error_ = terminal_safe(redact_(why));
}

Outcome JobPhases::failed(const Error& error, const std::string& what, std::string* detail) {
  Error e = error;
  if (past_deadline() && (e.code == ErrorCode::kInterrupted || e.code == ErrorCode::kConnection ||
                          e.code == ErrorCode::kTimeout)) {
    // budget.deadline passed: the call was stopped for it, or broken by the watchdog's abort.
    e.message = watchdog_->deadline_reason();
    e.code = ErrorCode::kTimeout;
  } else if (watchdog_ && watchdog_->aborted() &&
             (e.code == ErrorCode::kInterrupted || e.code == ErrorCode::kConnection)) {
    // The watchdog broke the session (job/job_watchdog.h): its deadline is the cause.
    e.message = watchdog_->reason();
    e.code = e.message.rfind("stopped: " + d_.stop_source, 0) == 0 ? ErrorCode::kInterrupted
                                                                   : ErrorCode::kTimeout;
  } else if (e.code == ErrorCode::kTimeout && e.message.rfind("no bytes from the pod", 0) == 0) {
    e.message = "stopped: " + e.message;  // the no-progress timeout (libssh adapter)
  } else if (e.code == ErrorCode::kInterrupted && fleet_stop_ && !fleet_stop_().empty()) {
    // A worker stopped with its fleet: a stop request, a deadline, or another worker's failure.
    e.message = fleet_stop_();
    if (e.message != "stopped: " + d_.stop_source) e.code = ErrorCode::kRemoteFailed;
  } else if (e.code == ErrorCode::kInterrupted && d_.interrupts() > 0) {
    e.message = "stopped: " + d_.stop_source;  // a step saw the stop request before the watchdog
  }
  *detail = terminal_safe(redact_(what + ": " + e.message));
  fail(*detail);
  say("error: " + *detail);
  if (e.code == ErrorCode::kInterrupted) return Outcome::kInterrupted;
  if (e.code == ErrorCode::kConnection) return Outcome::kConnectionLost;
  return Outcome::kFailed;
}

void JobPhases::remote_line(bool is_err, const std::string& line) {
  std::string clean =
      tag_ + terminal_safe(redact_(line));  // no pod's escape sequence reaches a terminal
  if (is_err)
    d_.console.remote_err(clean);
  else
    d_.console.remote_out(clean);
  log_ << format_utc(d_.clock.now()) << (is_err ? " ! " : " | ") << clean << "\n" << std::flush;
}

Outcome JobPhases::unless_stopped(const std::string& what, std::string* detail) {
  if (past_deadline())
    return failed(make_error(ErrorCode::kTimeout, watchdog_->deadline_reason()), what, detail);
  return d_.interrupts() > 0 ? Outcome::kInterrupted : Outcome::kOk;
}

namespace {

// Phases that only tear down or record: they run whatever the deadline says.
bool runs_after_deadline(Phase p) {
  return p == Phase::kPlan || p == Phase::kDeleteGpu || p == Phase::kDeleteCpu ||
         p == Phase::kDeletePrepareCpu || p == Phase::kReport || p == Phase::kDone ||
         p == Phase::kReattach || p == Phase::kRecover;
}

}  // namespace

Outcome JobPhases::execute(Phase phase, std::string* detail) {
  // Past budget.deadline no work starts: no pod is created, nothing pulled, no step run.
  if (past_deadline() && !runs_after_deadline(phase))
    return failed(make_error(ErrorCode::kTimeout, watchdog_->deadline_reason()), to_string(phase),
                  detail);
  switch (phase) {
    case Phase::kPlan: {
      const Plan& p = in_.plan;
      char usd[32];
      std::snprintf(usd, sizeof usd, "$%.4f", p.estimate.usd);
      *detail = p.gpu.provider + " " + p.gpu.gpu_type + ", estimate " + usd;
      if (p.estimate.workers > 1) *detail += ", " + std::to_string(p.estimate.workers) + " workers";
      if (p.handoff && in_.spec.upload) {
        *detail += "; hand-off: " + p.handoff->why;
        say("hand-off: " + p.handoff->why);
      }
      if (p.prepare && in_.spec.prepare) *detail += "; prepare: " + p.prepare->why;
      return Outcome::kOk;
    }
    case Phase::kPrepareCpu:
      return prepare_cpu_provision(detail);
    case Phase::kPrepare:
      return prepare(detail);
    case Phase::kDeletePrepareCpu:
      return delete_pod(prep_, detail);
    case Phase::kProvision:
      return provision(detail);
    case Phase::kWaitSsh:
      return wait_gpu_pod(detail);
    case Phase::kSync:
      return sync(detail);
    case Phase::kSetup:
      if (in_.spec.setup.empty()) return Outcome::kSkipped;
      return step("setup", in_.spec.setup, gpu_, 0, detail);
    case Phase::kRun:
      if (in_.reattach && !gpu_.session) {  // reattach_gpu failed; it said why
        *detail = "not reattached";
        return Outcome::kConnectionLost;
      }
      return run_replicas(detail);  // job_phases_steps.cpp
    case Phase::kPull:
      return pull(detail);
    case Phase::kDeleteGpu:
      return delete_pod(gpu_, detail);
    case Phase::kCpuProvision:
      return cpu_provision(detail);
    case Phase::kUpload:
      return step("upload", in_.spec.upload->run, cpu_, 0, detail);
    case Phase::kDeleteCpu:
      return delete_pod(cpu_, detail);
    case Phase::kUploadOnGpu:  // hand-off "gpu-pod": same pod, workdir and env as run
      return step("upload", in_.spec.upload->run, gpu_, 0, detail);
    case Phase::kUploadLocal:
      return upload_local(detail);
    case Phase::kReport:
    case Phase::kDone:
      return Outcome::kOk;
    case Phase::kReattach:  // recorded rows, never executed as a machine phase
    case Phase::kRecover:
      *detail = std::string("not a phase the runner executes: ") + to_string(phase);
      return Outcome::kFailed;
  }
  return Outcome::kFailed;
}

Outcome JobPhases::provision(std::string* detail) {
  // Workers bind the one volume in turn: the first creates it, the others find it.
  std::unique_lock<std::mutex> one_at_a_time;
  if (fleet_provision_) one_at_a_time = std::unique_lock<std::mutex>(fleet_provision_->mu);
  // A volume on one machine (FleetProvision): one re-check for the fleet, then each worker placed.
  const bool machine_local = fleet_provision_ && traits_of(in_.plan.gpu).volumes_machine_local;
  if (machine_local && fleet_provision_->checked_gpu) {
    in_.plan.gpu = *fleet_provision_->checked_gpu;
    offer_checked_ = true;
  }
  // An offer an earlier worker found full: straight to the fallbacks (FleetProvision::full).
  if (can_fall_back()) {
    auto full = fleet_provision_->full.find(fleet_offer_key(in_.plan.gpu));
    if (full != fleet_provision_->full.end()) {
      const std::string why = full->second;
      if (one_at_a_time.owns_lock()) one_at_a_time.unlock();
      return provision_fallback(in_.plan.gpu, why, detail);
    }
  }
  // job/offer_recheck.h: the chosen offer may have gone since planning
  if (Status st = recheck_offer_once(); !st.ok()) {
    if (st.error().code != ErrorCode::kNoCapacity || !can_fall_back())
      return failed(st.error(), "re-check offer", detail);
    fleet_provision_->full[fleet_offer_key(in_.plan.gpu)] = st.error().message;
    if (one_at_a_time.owns_lock()) one_at_a_time.unlock();
    return provision_fallback(in_.plan.gpu, st.error().message, detail);
  }
  if (machine_local && !fleet_provision_->checked_gpu) fleet_provision_->checked_gpu = in_.plan.gpu;
  Status bound = bind_volume_once();
  if (bound.ok() && machine_local) bound = place_worker_pod();
  // No machine of the chosen provider has a GPU for this worker (place_worker): the fallbacks.
  if (!bound.ok() && bound.error().code == ErrorCode::kNoCapacity && can_fall_back()) {
    fleet_provision_->full[fleet_offer_key(in_.plan.gpu)] = bound.error().message;
    one_at_a_time.unlock();
    return provision_fallback(in_.plan.gpu, bound.error().message, detail);
  }
  if (one_at_a_time.owns_lock() && !machine_local) one_at_a_time.unlock();
  if (!bound.ok()) return failed(bound.error(), "volume " + in_.spec.volume.name, detail);
  gpu_.record.gpu_type = in_.plan.gpu.gpu_type;
  Error no_capacity;
  Outcome created = create_pod(gpu_, true, detail, can_fall_back() ? &no_capacity : nullptr);
  if (created == Outcome::kFailed && no_capacity.code == ErrorCode::kNoCapacity) {
    if (!one_at_a_time.owns_lock())
      one_at_a_time = std::unique_lock<std::mutex>(fleet_provision_->mu);
    fleet_provision_->full[fleet_offer_key(in_.plan.gpu)] = no_capacity.message;
    one_at_a_time.unlock();
    return provision_fallback(in_.plan.gpu, no_capacity.message, detail);
  }
  if (!recheck_note_.empty()) *detail += "; " + redact_(recheck_note_);
  return created;
}

Provider& JobPhases::provider_named(const std::string& name) const {
  if (name.empty() || name == d_.provider.name()) return d_.provider;
  auto it = d_.providers.find(name);
  return it != d_.providers.end() && it->second ? *it->second : d_.provider;
}

Outcome JobPhases::provision_fallback(const Offer& refused, const std::string& why,
                                      std::string* detail) {
  std::string last_why = why;
  Offer last = refused;
  std::string tried;  // "<offer>: <why>" of each refusal, for the error when none is left
  auto add_tried = [&] {
    tried += (tried.empty() ? "" : "; ") + last.provider + " " + last.gpu_type + ": " + last_why;
  };
  add_tried();
  const std::string w = "w" + std::to_string(in_.worker.index);
  for (const FleetFallback& f : in_.plan.fallbacks) {
    if (interrupted())  // a stop (Ctrl-C, a deadline, another worker's failure): no more creates
      return failed(make_error(ErrorCode::kInterrupted, "stopped before create"), "create gpu pod",
                    detail);
    std::unique_lock<std::mutex> one_at_a_time(fleet_provision_->mu);
    if (auto full = fleet_provision_->full.find(fleet_offer_key(f.offer));
        full != fleet_provision_->full.end()) {
      last = f.offer;
      last_why = full->second;
      add_tried();
      continue;
    }
    if (f.offer.provider != d_.provider.name() && !d_.providers.count(f.offer.provider)) {
      last = f.offer;  // a provider this job holds no client of (none configured): never create
      last_why = "not configured for this job";
      add_tried();
      continue;
    }
    // One line before the create: what changed, why, and what it costs against the plan.
    const double extra = f.worker_usd - in_.plan.worker_usd;
    const std::string line =
        last.provider + " has no " + last.gpu_type + " left (provider said: " + last_why + "); " +
        w + " runs on " + f.offer.provider + " " + f.offer.gpu_type +
        (f.offer.region.empty() ? "" : " in " + f.offer.region) + " at " + fleet_money(f.price) +
        "/h instead of " + fleet_money(planned_gpu_.usd_per_hour) + "/h (" +
        (extra < 0 ? "-" : "+") + fleet_money(std::fabs(extra)) + " estimated)";
    say(line);
    const bool elsewhere =
        f.offer.provider != provider_->name() || f.offer.region != in_.plan.gpu.region;
    in_.plan.gpu = f.offer;
    in_.plan.layout = f.layout;  // its GPU type's split of the cards (plan/pod_layout.h)
    provider_ = &provider_named(f.offer.provider);
    if (elsewhere) {  // the spec's volume as that provider (and region) has it
      volume_id_.clear();
      volume_region_.clear();
    }
    // A prepare step the plan ran once on a CPU pod staged the chosen provider's volume only:
    // a worker on another provider's volume runs it on its own GPU pod (skipped when creates:
    // are there), one worker per volume at a time.
    if (in_.plan.prepare && in_.plan.prepare->where == PrepareWhere::kCpuPod &&
        f.offer.provider != planned_gpu_.provider)
      in_.plan.prepare->where = PrepareWhere::kGpuPod;
    const bool machine_local = traits_of(f.offer).volumes_machine_local;
    Status bound = bind_volume_once();
    if (bound.ok() && machine_local) bound = place_worker_pod();
    if (!machine_local) one_at_a_time.unlock();
    if (!bound.ok()) return failed(bound.error(), "volume " + in_.spec.volume.name, detail);
    gpu_.record = PodRecord{};
    gpu_.record.gpu_type = in_.plan.gpu.gpu_type;
    Error no_capacity;
    Outcome created = create_pod(gpu_, true, detail, &no_capacity);
    if (created == Outcome::kFailed && no_capacity.code == ErrorCode::kNoCapacity) {
      if (!one_at_a_time.owns_lock()) one_at_a_time.lock();
      fleet_provision_->full[fleet_offer_key(f.offer)] = no_capacity.message;
      last = f.offer;
      last_why = no_capacity.message;
      add_tried();
      continue;
    }
    if (created == Outcome::kOk) {
      deviation_ = line;
      *detail += "; " + std::string(kDeviationMarker) + redact_(line);
    }
    return created;
  }
  return failed(make_error(ErrorCode::kNoCapacity,
                           "no planned offer has a pod left for this worker (" + tried + ")"),
                "create gpu pod", detail);
}

Status JobPhases::recheck_offer_once() {
  if (offer_checked_) return Status::Ok();
  offer_checked_ = true;
  const Plan before = in_.plan;
  if (Status st = recheck_chosen_offer(*provider_, &in_.plan, &recheck_note_); !st.ok()) return st;
  if (recheck_note_.empty()) return Status::Ok();
  say(recheck_note_);
  // The run deviates from the plan the user saw: the new one, before anything is spent.
  if (in_.plan.gpu.gpu_type != before.gpu.gpu_type || in_.plan.gpu.region != before.gpu.region ||
      in_.plan.gpu.usd_per_hour != before.gpu.usd_per_hour) {
    say("replanned before any create:");
    for (const std::string& line : plan_summary_lines(in_.spec, in_.plan)) say(line);
  }
  return Status::Ok();
}

Status JobPhases::bind_volume_once() {
  if (!volume_id_.empty()) return Status::Ok();
  const VolumeSpec& v = in_.spec.volume;
  // Not retried here: the driver's API call retries what is safe (http/api_call.h).
  auto volume = bind_volume(d_.store, *provider_, d_.clock, v.name, v.size_gb, in_.plan.gpu.region);
  if (!volume.ok()) return volume.error();
  if (!volume->note.empty()) say("volume " + v.name + ": " + volume->note);
  volume_id_ = volume->id;
  volume_region_ = volume->region;
  return Status::Ok();
}

Status JobPhases::place_worker_pod() {
  const std::string own = worker_volume_name(in_.spec.volume.name, in_.worker.index);
  auto placed = place_worker(d_.store, *provider_, in_.plan.gpu, volume_region_, own);
  if (!placed.ok()) return placed.error();
  if (!placed->own_volume) return Status::Ok();
  const std::string full = volume_region_;
  const ProviderTraits* traits = in_.plan.gpu.traits;  // live offers carry none
  in_.plan.gpu = placed->offer;
  in_.plan.gpu.traits = traits;
  if (in_.plan.gpu.provider.empty()) in_.plan.gpu.provider = provider_->name();
  auto volume = bind_volume(d_.store, *provider_, d_.clock, own, in_.spec.volume.size_gb,
                            in_.plan.gpu.region);
  if (!volume.ok()) return with_context(volume.error(), "volume " + own);
  say("no free " + in_.plan.gpu.gpu_type + " beside volume " + in_.spec.volume.name + " (" + full +
      "): this worker runs in " + in_.plan.gpu.region + " on a volume of its own, " + own +
      (volume->note.empty() ? "" : ": " + volume->note));
  volume_id_ = volume->id;
  volume_region_ = volume->region;
  return Status::Ok();
}

Outcome JobPhases::prepare_cpu_provision(std::string* detail) {
  if (!in_.plan.prepare || !in_.plan.prepare->cpu || !in_.spec.prepare) {
    *detail = "the plan has no CPU offer for the prepare step";
    fail(*detail);
    return Outcome::kFailed;
  }
  if (Status st = recheck_offer_once(); !st.ok())
    return failed(st.error(), "re-check offer", detail);
  if (Status st = bind_volume_once(); !st.ok())
    return failed(st.error(), "volume " + in_.spec.volume.name, detail);
  Outcome o = create_pod(prep_, false, detail);
  if (o != Outcome::kOk) return o;
  std::string d2;
  o = connect_pod(prep_, &d2);
  if (o == Outcome::kOk) *detail += "; " + d2;
  return o;
}

Outcome JobPhases::prepare(std::string* detail) {
  const PrepareSpec& spec = *in_.spec.prepare;
  const bool on_cpu = in_.plan.prepare && in_.plan.prepare->where == PrepareWhere::kCpuPod;
  PodHandle& pod = on_cpu ? prep_ : gpu_;
  const std::string where = on_cpu ? "CPU pod " : "GPU pod ";
  if (!pod.session)
    return failed(make_error(ErrorCode::kConnection, "no SSH session to the pod"), "prepare",
                  detail);
  // Workers on one volume prepare it one at a time (FleetProvision::prepare_by_volume).
  std::shared_ptr<std::mutex> volume_mu;
  std::unique_lock<std::mutex> one_prepare;
  if (fleet_provision_ && !volume_id_.empty()) {
    volume_mu = volume_lock(fleet_provision_->prepare_by_volume);
    one_prepare = std::unique_lock<std::mutex>(*volume_mu);
  }
  // Every creates: path present on the volume: the step's work is done, it does not run again.
  auto all_present = [&]() -> Result<bool> {
    std::string test = "cd " + shell_quote(pod.paths.volume);
    for (const std::string& p : spec.creates) test += " && test -e " + shell_quote(p);
    auto out = pod.session->run_capture("if " + test + "; then echo yes; else echo no; fi");
    if (!out.ok()) return out.error();
    return out->rfind("yes", 0) == 0;
  };
  std::string names;
  for (const std::string& p : spec.creates) names += (names.empty() ? "" : ", ") + p;
  if (!spec.creates.empty()) {
    auto present = all_present();
    if (!present.ok()) return failed(present.error(), "prepare", detail);
    if (*present) {
      *detail = "skipped: every creates: path exists on the volume (" + names + "), checked on " +
                where + pod.record.pod_id;
      say("prepare " + *detail);
      // The warm volume's read rate (job/volume_read.h); no answer is no sample, never a failure.
      auto read = measure_volume_read(*pod.session, pod.paths.volume, spec.creates, d_.clock,
                                      [&] { return interrupted(); });
      if (read.ok()) {
        (void)d_.store.add_transfer(
            {in_.job_id, kVolumeReadDirection, 1, read->bytes, volume_read_millis(*read)});
        *detail += "; " + volume_read_summary(*read);
      }
      say(read.ok() ? volume_read_summary(*read) : read.error().message);
      return Outcome::kSkipped;
    }
  }
  say("prepare on " + where + pod.record.pod_id);
  Outcome o = step("prepare", spec.run, pod, 0, detail);
  if (o != Outcome::kOk) return o;
  if (!spec.creates.empty()) {
    auto present = all_present();
    if (!present.ok()) return failed(present.error(), "prepare", detail);
    if (!*present)
      return failed(make_error(ErrorCode::kRemoteFailed,
                               "exited 0 but did not create every creates: path (" + names + ")"),
                    "prepare", detail);
  }
  *detail = "exit 0 on " + where + pod.record.pod_id;
  return Outcome::kOk;
}

Outcome JobPhases::create_pod(PodHandle& pod, bool gpu, std::string* detail, Error* no_capacity) {
  const bool prep = &pod == &prep_;  // the prepare step's CPU pod
  const Offer& offer = gpu ? in_.plan.gpu : prep ? *in_.plan.prepare->cpu : *in_.plan.cpu;
  // The installation id in the name marks the pod as this state dir's (docs/daemon.md).
  auto installation = d_.store.installation_id();
  if (!installation.ok()) return failed(installation.error(), "create pod", detail);
  PodRequest req;
  std::string role = gpu ? worker_pod_role(in_.worker.index, in_.worker.count, in_.worker.attempt)
                         : (prep ? "prep" : "cpu");
  if (gpu && start_retries_ > 0) role += "r" + std::to_string(start_retries_);  // "gpur1"
  req.name = pod_name(*installation, in_.job_id, role);
  req.job_id = in_.job_id;
  req.gpu = gpu;
  req.gpu_type = offer.gpu_type;
  req.gpu_count = gpu ? rented_gpus() : 0;  // the offer's count, as planned (Plan::layout)
  req.disk_gb = gpu ? in_.spec.resources.disk_gb.value_or(0) : 0;
  req.spot = gpu && in_.spec.resources.spot && offer.spot_usd_per_hour.has_value();
  if (gpu)
    req.image = in_.spec.image;
  else if (prep)
    req.image = in_.spec.prepare->image.empty() ? in_.spec.image : in_.spec.prepare->image;
  else
    req.image = in_.spec.upload->image.empty() ? in_.spec.image : in_.spec.upload->image;
  req.volume_id = volume_id_.empty() ? in_.spec.volume.name : volume_id_;
  req.mount_path = in_.spec.volume.mount;
  req.ssh_public_key = in_.ssh_public_key;
  pod.record.job_id = in_.job_id;
  pod.record.role = gpu ? "gpu" : "cpu";
  pod.record.gpu_type = offer.gpu_type;
  pod.record.gpu_count = req.gpu_count;
  pod.record.usd_per_hour = req.spot ? *offer.spot_usd_per_hour : offer.usd_per_hour;
  pod.record.price_source = offer.price_source;
  if (Status readable = check_list_readable(*provider_); !readable.ok())
    return failed(readable.error(), "create " + pod.record.role + " pod", detail);
  auto created = create_recorded_pod(d_.store, *provider_, d_.clock, req, &pod.record, d_.faults);
  if (!created.ok() && no_capacity && created.error().code == ErrorCode::kNoCapacity) {
    *no_capacity = created.error();
    return Outcome::kFailed;
  }
  if (!created.ok()) return failed(created.error(), "create " + pod.record.role + " pod", detail);
  *detail = provider_->name() + " pod " + created->id;
  say(pod.record.role + " pod " + created->id + " created (" + offer.gpu_type + ")");
  return unless_stopped("create " + pod.record.role + " pod", detail);
}

Outcome JobPhases::connect_pod(PodHandle& pod, std::string* detail, bool reattach,
                               Error* start_error) {
  const MonoTime start = d_.clock.mono_now();
  // config.yaml's ssh_wait_seconds, else the provider's own wait (ProviderTraits).
  const double wait_s = d_.config.ssh_wait_seconds > 0 ? d_.config.ssh_wait_seconds
                                                       : traits_of(in_.plan.gpu).provision_wait_s;
  const TimePoint deadline =
      d_.clock.now() + std::chrono::milliseconds(static_cast<int64_t>(wait_s * 1000));
  std::string status;         // the provider's words on the booting pod, shown while waiting
  bool start_failed = false;  // Pod::start_failed: the provider says it will never run
  // The money caps govern this wait too (issue 35: a reattach looping on SSH for 600 s cost six
  // times its max_usd): the pod bills while burst waits for it.
  std::string over_budget;
  auto stop = [&] {
    d_.console.progress("waiting for pod " + pod.record.pod_id + " " +
                        std::to_string(static_cast<int>(seconds_since(d_.clock, start))) + "s" +
                        (status.empty() ? "" : " (" + pod.record.provider + ": " + status + ")"));
    moving();
    if (over_budget.empty()) over_budget = budget_exceeded();
    return interrupted() || !over_budget.empty();
  };
  auto cause = [&](const Error& e) {
    if (e.code != ErrorCode::kInterrupted || over_budget.empty() || interrupted()) return e;
    stopped_by_deadline_ = true;  // a limit's stop: a fleet never retries it
    return make_error(ErrorCode::kRemoteFailed, over_budget);
  };
  auto running =
      wait_until_running(provider_named(pod.record.provider), d_.clock, pod.record.pod_id, deadline,
                         stop, d_.faults, [&](const Pod& p) {
                           status = p.status_note;
                           start_failed = p.start_failed;
                         });
  if (!running.ok() && start_failed && start_error) {
    *start_error = running.error();
    return Outcome::kFailed;
  }
  if (!running.ok()) return failed(cause(running.error()), "wait for pod", detail);
  if (!reattach) {  // a reattached pod was checked when it was created
    if (Status listed =
            check_pod_listed(provider_named(pod.record.provider), d_.clock, pod.record.pod_id);
        !listed.ok())
      return failed(listed.error(), "check pod list", detail);
  }
  // On reattach the host key pinned at first contact must match: a different key is refused.
  pod.target = {running->ssh.host, running->ssh.port, running->ssh.user, d_.config.ssh_key,
                reattach ? pod.record.host_key : ""};
  // A transfer or command with no byte from the pod for this long fails (config.yaml).
  pod.target.no_progress_timeout_s = static_cast<int>(std::max(1.0, d_.config.no_progress_seconds));
  auto session =
      connect_with_retry(d_.connector, pod.target, d_.clock, deadline, stop, /*auth_is_final=*/
                         reattach);
  if (!session.ok() && reattach && session.error().code == ErrorCode::kAuth)
    session = with_context(session.error(), "reattach: this burst's SSH key (" + d_.config.ssh_key +
                                                ") is not one the pod accepts; a team's daemons "
                                                "need the team's one key (docs/daemon.md)");
  if (!session.ok()) return failed(cause(session.error()), "ssh", detail);  // not a provider name
  adopt_session(pod, std::move(*session));
  pod.record.host_key = pod.target.pinned_host_key;
  (void)d_.store.update_pod(pod.record);
  publish_ssh_host(pod, &pod == &cpu_);
  // Some providers mount the volume at their own fixed path (Lambda): that is $BURST_VOLUME.
  auto paths = probe_pod(
      *pod.session, running->volume_path.empty() ? in_.spec.volume.mount : running->volume_path);
  if (!paths.ok()) return failed(paths.error(), "ssh", detail);  // not a provider name
  pod.paths = *paths;
  workdir_ = replace_volume(in_.spec.code.remote_dir, pod.paths.volume);
  if (traits_of(in_.plan.gpu).steps_in_container) {
    StepContainer c;
    const bool cpu = &pod != &gpu_;
    c.image = &pod == &cpu_ && in_.spec.upload && !in_.spec.upload->image.empty()
                  ? in_.spec.upload->image
              : &pod == &prep_ && in_.spec.prepare && !in_.spec.prepare->image.empty()
                  ? in_.spec.prepare->image
                  : in_.spec.image;
    c.prefix = container_prefix(in_.job_id);
    c.gpus = !cpu;
    c.mounts = {workdir_, pod.paths.volume, pod.paths.pod_dir};
    c.workdir = workdir_;
    c.env_file = pod.paths.pod_dir + "/env.docker";
    pod.container = c;
  }
  if (reattach) {  // the env file, the image and the workdir are there from the first connection
    *detail = pod.target.user + "@" + pod.target.host + ":" + std::to_string(pod.target.port);
    return Outcome::kOk;
  }
  std::map<std::string, std::string> env = in_.spec.env;
  env.insert(in_.secrets.begin(), in_.secrets.end());
  env["BURST_VOLUME"] = pod.paths.volume;
  env["BURST_JOB_ID"] = in_.job_id;
  env["BURST_PIPELINE"] = in_.spec.name;
  env["BURST_WORKDIR"] = workdir_;
  env["BURST_WORKER_INDEX"] = std::to_string(in_.worker.index);
  env["BURST_WORKER_COUNT"] = std::to_string(in_.worker.count);
  env["BURST_REPLICA_INDEX"] = "0";  // job/replica_step.h sets its own per replica
  env["BURST_REPLICA_COUNT"] = "1";
  const std::string items_path = pod.paths.pod_dir + "/items.txt";
  if (in_.has_items_file) env["BURST_ITEMS_FILE"] = items_path;
  Status st = pod.session->mkdirs(workdir_, 0755);
  if (st.ok() && in_.has_items_file) {  // this worker's shard, one item a line
    std::string text;
    for (const std::string& item : in_.items) text += item + "\n";
    st = pod.session->write_file(items_path, text, 0644);
  }
  if (st.ok() && pod.container) {
    auto text = docker_env_file(env);  // over SFTP, 0600: no value on a command line
    st = text.ok() ? pod.session->write_file(pod.container->env_file, *text, 0600) : text.error();
  } else if (st.ok()) {
    st = install_env(*pod.session, pod.paths, env);
  }
  if (!st.ok()) return failed(st.error(), "prepare pod", detail);
  if (pod.container) {
    Outcome pulled = pull_step_image(pod, stop, detail);
    if (pulled != Outcome::kOk) return pulled;
    std::string checked;  // job/container_checks.h: the NVIDIA runtime, the volume's writability
    Status usable = check_step_container(
        *pod.session, *pod.container, pod.paths.volume,
        [&](bool is_err, const std::string& line) {
          moving();
          if (is_err) remote_line(true, line);
        },
        stop, &checked);
    if (!usable.ok()) return failed(usable.error(), "check pod", detail);
    say(checked);
  }
  *detail = pod.target.user + "@" + pod.target.host + ":" + std::to_string(pod.target.port) +
            ", host key " + pod.target.pinned_host_key;
  if (pod.container) *detail += ", steps in image " + pod.container->image;
  say("ssh " + pod.target.host + ":" + std::to_string(pod.target.port) + " ready after " +
      std::to_string(static_cast<int>(seconds_since(d_.clock, start))) + " s");
  return unless_stopped("ssh", detail);  // not a provider name
}

Outcome JobPhases::sync_shared(std::string* detail) {
  std::shared_ptr<std::mutex> mu = volume_lock(fleet_provision_->sync_by_volume);
  std::lock_guard<std::mutex> one_sync(*mu);  // the others on this volume wait for the first
  const std::string shared = replace_volume(fleet_provision_->shared_code_dir, gpu_.paths.volume);
  const std::string mark = gpu_.paths.volume + "/.burst/sync/" + in_.job_id + ".code";
  auto marked = gpu_.session->run_capture("cat " + shell_quote(mark) + " 2>/dev/null || true");
  if (!marked.ok()) return failed(marked.error(), "sync", detail);
  std::string how = "copied from this job's one sync of the code on the shared volume";
  if (marked->rfind(in_.job_id, 0) != 0) {  // the first on this volume (or it is not shared)
    auto synced = sync_into(shared);
    if (!synced.ok()) return failed(synced.error(), "sync", detail);
    const SyncStats* stats = &synced->first;
    const double secs = synced->second;
    if (Status st = gpu_.session->write_file(mark, in_.job_id + "\n", 0644); !st.ok())
      return failed(st.error(), "sync", detail);
    how = std::to_string(stats->files_sent) + " of " + std::to_string(stats->files_total) +
          " files sent (" + human_bytes(stats->bytes_sent) + ") to " + shared +
          ", this job's one sync on this volume";
    say("synced " + how + " in " + std::to_string(secs).substr(0, 4) + " s, " +
        human_rate(stats->bytes_sent, secs));
  } else {
    fault("mid-sync");
  }
  auto copied = gpu_.session->run_capture("mkdir -p " + shell_quote(workdir_) + " && cp -a " +
                                          shell_quote(shared + "/.") + " " + shell_quote(workdir_) +
                                          "/ && echo copied");
  if (!copied.ok()) return failed(copied.error(), "sync", detail);
  if (copied->find("copied") == std::string::npos)
    return failed(make_error(ErrorCode::kRemoteFailed, "copy " + shared + " to " + workdir_),
                  "sync", detail);
  *detail = how + "; copied into " + workdir_;
  say("code in " + workdir_ + ": " + *detail);
  return unless_stopped("sync", detail);
}

Result<std::pair<SyncStats, double>> JobPhases::sync_into(const std::string& dir) {
  const MonoTime start = d_.clock.mono_now();
  const SyncTarget target{dir, manifest_path_for(gpu_.paths.volume, dir)};
  auto stats = sync_code(*gpu_.session, in_.code, target, [&](const SyncStats& s) {
    d_.console.progress(progress_line("sync", {s.files_sent, s.files_to_send, s.bytes_sent,
                                               s.bytes_to_send, seconds_since(d_.clock, start)}));
    moving();
    fault("mid-sync");
  });
  if (!stats.ok()) return stats.error();
  const double secs = seconds_since(d_.clock, start);
  (void)d_.store.add_transfer({in_.job_id, "sync", stats->files_sent, stats->bytes_sent,
                               static_cast<int64_t>(secs * 1000)});
  return std::make_pair(*stats, secs);
}

std::shared_ptr<std::mutex> JobPhases::volume_lock(
    std::map<std::string, std::shared_ptr<std::mutex>>& locks) {
  std::lock_guard<std::mutex> lock(fleet_provision_->sync_mu);
  auto& m = locks[provider_->name() + "/" + volume_id_];  // one provider's ids are not another's
  if (!m) m = std::make_shared<std::mutex>();
  return m;
}

Outcome JobPhases::sync(std::string* detail) {
  if (in_.spec.code.dir.empty()) return Outcome::kSkipped;
  for (const auto& w : in_.code.warnings) say("warning: " + w);
  if (fleet_provision_ && !fleet_provision_->shared_code_dir.empty() && !volume_id_.empty())
    return sync_shared(detail);
  auto synced = sync_into(workdir_);
  if (!synced.ok()) return failed(synced.error(), "sync", detail);
  const SyncStats* stats = &synced->first;
  const double secs = synced->second;
  *detail = std::to_string(stats->files_sent) + " of " + std::to_string(stats->files_total) +
            " files sent (" + human_bytes(stats->bytes_sent) + "), " +
            std::to_string(stats->files_deleted) + " removed, " +
            std::to_string(stats->files_touched) + " touched, " +
            std::to_string(stats->round_trips) + " round trips";
  say("synced " + *detail + " to " + workdir_ + " in " + std::to_string(secs).substr(0, 4) +
      " s, " + human_rate(stats->bytes_sent, secs));
  return unless_stopped("sync", detail);
}

Outcome JobPhases::step(const std::string& name, const std::string& script, PodHandle& pod,
                        double max_seconds, std::string* detail) {
  TimePoint start = d_.clock.now();
  const bool resumed = in_.reattach && name == "run";
  const bool reattach = resumed && !run_unstarted_;  // follow the step a previous burst started
  StepOffsets from;
  if (resumed)  // max_runtime counts from the run phase's start, before burstd restarted
    if (auto rows = d_.store.phases(in_.job_id); rows.ok())
      for (const auto& r : *rows)
        if (r.phase == Phase::kRun) start = from_unix_ms(r.started_ms);
  if (reattach) {
    from = load_offsets(name);
    say("continuing the run step's output from byte " + std::to_string(from.out) +
        " (stdout) and " + std::to_string(from.err) + " (stderr)");
  }
  // A fleet's runtime limit runs from its first worker's run step (job/worker_fleet.h).
  if (name == "run" && watchdog_ && !wide()) watchdog_->set_runtime_limit(start, max_seconds);
  if (name == "run" && watchdog_ && wide()) watchdog_->start_runtime_limit(start, max_seconds);
  // Fresh artefacts only (issue 21): the pod's clock as this job's first step starts; the pull
  // takes only files modified since (sync/artefact_pull.h). Unknown (0): no filter.
  if (!reattach && &pod == &gpu_ && artefacts_since_ == 0 && !in_.spec.artefacts.empty())
    if (auto now = pod.session->run_capture("date +%s"); now.ok())
      artefacts_since_ = std::strtoll(now->c_str(), nullptr, 10);
  bool over_time = false;
  std::string over_budget;
  auto stop = [&] {
    moving();
    over_time = max_seconds > 0 && seconds_since(d_.clock, start) > max_seconds;
    if (over_budget.empty()) over_budget = budget_exceeded();
    return over_time || !over_budget.empty() || interrupted();
  };
  const bool keep_offsets = name == "run";
  auto on_line = [&](bool e, const std::string& l) {
    moving();
    remote_line(e, l);
    fault("mid-", name);
  };
  auto on_offsets = [&](const StepOffsets& o) {
    if (keep_offsets) save_offsets(name, o);
  };
  if (!reattach) fault("before-", name);  // the phase is open, the step not yet launched
  auto status = reattach
                    ? follow_step(*pod.session, pod.paths, name, from, on_line, on_offsets, stop)
                    : run_step(*pod.session, pod.paths, name, script, workdir_, on_line, on_offsets,
                               stop, StepTimeouts{}, pod.container ? &*pod.container : nullptr);
  if (keep_offsets) {  // only a reattach reads them, and this follower saw the step to its end
    std::error_code ec;
    fs::remove(offsets_path(name), ec);
  }
  if (!status.ok() && status.error().code == ErrorCode::kInterrupted) {
    // Over SSH only while the session answers: an aborted one refuses at once, and one that hangs
    // is aborted by the watchdog after its grace. The pod's deletion stops the step regardless.
    if (!(watchdog_ && watchdog_->aborted())) {
      say("stopping the remote " + name + " command");
      moving();
      stop_step(*pod.session, pod.paths, name, pod.container ? &*pod.container : nullptr);
    }
    stopped_by_deadline_ = over_time || !over_budget.empty() || past_deadline();
    if (over_time) {
      return failed(make_error(ErrorCode::kTimeout,
                               "exceeded budget.max_runtime (" +
                                   std::to_string(static_cast<long>(max_seconds)) + " s); stopped"),
                    name, detail);
    }
    if (!over_budget.empty())
      return failed(make_error(ErrorCode::kRemoteFailed, over_budget), name, detail);
    return failed(status.error(), name, detail);
  }
  if (!status.ok() && status.error().code != ErrorCode::kRemoteFailed) {
    Error e = status.error();
    e.message = "lost the SSH connection while the command ran (" + e.message + ")";
    return failed(e, name, detail);
  }
  if (!status.ok()) return failed(status.error(), name, detail);
  if (*status != 0) {
    return failed(
        make_error(ErrorCode::kRemoteFailed, "exited with status " + std::to_string(*status)), name,
        detail);
  }
  *detail = reattach ? "exit 0 (reattached)" : "exit 0";
  return Outcome::kOk;
}

std::string JobPhases::budget_exceeded() const {
  std::vector<PodRecord> pods;
  for (const PodHandle* p : {&gpu_, &cpu_, &prep_})
    if (p->record.row_id != 0) pods.push_back(p->record);
  if (wide()) {  // the job's budget: every worker's pods, retried ones included
    auto all = d_.store.pods_of_job(in_.job_id);
    if (all.ok()) pods = std::move(*all);
  }
  return budget_stop_reason(pods, billing_clock_.now(d_.clock.now()), caps_, billing_);
}

std::string JobPhases::offsets_path(const std::string& step) const {
  const std::string worker = wide() ? ".w" + std::to_string(in_.worker.index) : "";
  return d_.config.logs_dir + "/" + in_.job_id + worker + "." + step + ".offsets";
}

StepOffsets JobPhases::load_offsets(const std::string& step) const {
  StepOffsets o;
  std::ifstream f(offsets_path(step));
  f >> o.out >> o.err;
  return f ? o : StepOffsets{};
}

void JobPhases::save_offsets(const std::string& step, const StepOffsets& o) const {
  // Temp file and rename: a burstd killed mid-write leaves the previous offsets, never half.
  const std::string path = offsets_path(step);
  (void)write_private_file(path + ".tmp",
                           std::to_string(o.out) + " " + std::to_string(o.err) + "\n");
  std::error_code ec;
  fs::rename(path + ".tmp", path, ec);
}

Outcome JobPhases::reattach_gpu(std::string* detail) {
  auto pods = d_.store.pods_of_job(in_.job_id);
  if (!pods.ok()) return failed(pods.error(), "reattach", detail);
  for (const PodRecord& p : *pods)
    if (p.role == "gpu" && may_exist(p.state)) gpu_.record = p;
  if (gpu_.record.row_id == 0)
    return failed(make_error(ErrorCode::kNotFound, "the job has no live GPU pod"), "reattach",
                  detail);
  // The volume exists already: look it up, never create one. The new plan may name another
  // machine (Vast volumes live on one machine), and a second volume would be a second disk billed.
  if (auto found =
          find_bound_volume(d_.store, *provider_, in_.spec.volume.name, in_.plan.gpu.region);
      found.ok() && found->has_value())
    volume_id_ = (*found)->id;
  std::string connected;
  Outcome o = connect_pod(gpu_, &connected, /*reattach=*/true);
  if (o != Outcome::kOk) {
    *detail = "reattach: " + connected;
    drop_session(gpu_);
    return Outcome::kConnectionLost;
  }
  if (Status st = check_step_files(*gpu_.session, gpu_.paths, "run"); !st.ok()) {
    // The run phase was opened but its step never started (the daemon stopped in between): start
    // it now. The launch is once-only on the pod (job/remote_steps.h), so a launch that did get
    // through is followed, never repeated.
    if (st.error().code != ErrorCode::kNotFound) {
      drop_session(gpu_);
      failed(st.error(), "reattach", detail);
      return Outcome::kConnectionLost;
    }
    run_unstarted_ = true;
  }
  *detail = in_.reattach_why + "; reattached to gpu pod " + gpu_.record.pod_id + " (" + connected +
            ")" + (run_unstarted_ ? "; its run step had not started: starting it" : "");
  say(*detail);
  return Outcome::kOk;
}

Outcome JobPhases::pull(std::string* detail) {
  if (d_.interrupts() >= 2) return Outcome::kSkipped;
  if (in_.spec.artefacts.empty()) return Outcome::kSkipped;
  if (!gpu_.session)
    return failed(make_error(ErrorCode::kConnection, "no SSH session to the GPU pod"), "pull",
                  detail);
  const MonoTime start = d_.clock.mono_now();
  PullLimits limits;
  if (d_.config.pull_max_gib > 0 && d_.config.pull_max_gib < 1e9)
    limits.max_total_bytes = static_cast<uint64_t>(d_.config.pull_max_gib * (1ull << 30));
  auto result = pull_artefacts(
      *gpu_.session, in_.spec.artefacts, workdir_, gpu_.paths.volume,
      [&](const PullResult& r) {
        d_.console.progress(progress_line(
            "pull", {r.files, r.files_total - r.files_current, r.bytes,
                     r.bytes_total - r.bytes_resumed, seconds_since(d_.clock, start)}));
        moving();
        fault("mid-pull");
      },
      limits, artefacts_since_);
  if (!result.ok()) return failed(result.error(), "pull", detail);
  const double secs = seconds_since(d_.clock, start);
  (void)d_.store.add_transfer({in_.job_id, "pull", result->files - result->files_current,
                               result->bytes, static_cast<int64_t>(secs * 1000)});
  for (const auto& p : result->local_paths) say("pulled " + p);
  *detail = std::to_string(result->files) + " files, " + human_bytes(result->bytes) +
            " transferred, verified (sha256)";
  if (result->files_current > 0)
    *detail += ", " + std::to_string(result->files_current) + " already home";
  if (result->bytes_resumed > 0) *detail += ", resumed " + human_bytes(result->bytes_resumed);
  if (result->files_older > 0)
    *detail += ", " + std::to_string(result->files_older) + " older than this job left on the pod";
  say("pulled " + *detail + " in " + std::to_string(secs).substr(0, 4) + " s, " +
      human_rate(result->bytes, secs));
  if (!result->failed.empty()) {
    for (const auto& f : result->failed) say("error: " + f);
    return failed(make_error(ErrorCode::kRemoteFailed, result->failed.front()), "pull", detail);
  }
  if (!result->unmatched.empty() && error_.empty()) {
    return failed(
        make_error(ErrorCode::kNotFound, "no file on the pod matched " + result->unmatched.front()),
        "pull", detail);
  }
  return Outcome::kOk;
}

Outcome JobPhases::delete_pod(PodHandle& pod, std::string* detail) {
  // The deletion goes through the provider's API only, never over SSH: a pod that stopped
  // answering is deleted the same way as a healthy one.
  if (&pod == &gpu_ && watchdog_ && !wide()) watchdog_->clear_runtime_limit();
  if (!pod.needs_delete()) return Outcome::kSkipped;
  drop_session(pod);  // close SSH before the sshd goes away
  say("deleting " + pod.record.role + " pod " + pod.record.pod_id);
  Status st = delete_and_verify(d_.store, provider_named(pod.record.provider), d_.clock,
                                &pod.record, d_.faults);
  if (!st.ok()) {
    return failed(st.error(), "pod " + pod.record.name + " may still be running; run `burst reap`",
                  detail);
  }
  *detail = "deletion confirmed";
  say(pod.record.role + " pod " + pod.record.pod_id + " deleted (confirmed)");
  if (!d_.config.config_dir.empty())
    (void)remove_ssh_hosts(ssh_hosts_path(d_.config.config_dir), "", pod.record.pod_id);
  return Outcome::kOk;
}

Outcome JobPhases::cpu_provision(std::string* detail) {
  Outcome o = create_pod(cpu_, false, detail);
  if (o != Outcome::kOk) return o;
  std::string d2;
  o = connect_pod(cpu_, &d2);
  if (o == Outcome::kOk) *detail += "; " + d2;
  return o;
}

Outcome JobPhases::upload_local(std::string* detail) {
  // Hand-off "local": the GPU pod is gone; the pulled artefacts are the upload's inputs.
  const std::string base = d_.config.state_dir + "/handoff/" + in_.job_id;
  const std::string view = base + "/work";
  Status st = make_local_view(view, in_.spec.code.dir, in_.spec.artefacts);
  if (!st.ok()) return failed(st.error(), "upload (this machine)", detail);
  std::error_code ec;
  fs::create_directories(base + "/volume", ec);
  std::map<std::string, std::string> env = in_.spec.env;
  env.insert(in_.secrets.begin(), in_.secrets.end());
  env["BURST_VOLUME"] = base + "/volume";  // the cloud volume is not reachable from here
  env["BURST_JOB_ID"] = in_.job_id;
  env["BURST_PIPELINE"] = in_.spec.name;
  env["BURST_WORKDIR"] = view;
  env["BURST_HANDOFF"] = "local";  // not a provider name: the hand-off
  say("upload on this machine in " + view);
  auto status = run_local_step(
      in_.spec.upload->run, base + "/upload.sh", view, env,
      [&](bool e, const std::string& l) {
        remote_line(e, l);
        fault("mid-upload");
      },
      [&] { return interrupted(); });
  if (!status.ok()) return failed(status.error(), "upload (this machine)", detail);
  if (*status != 0)
    return failed(
        make_error(ErrorCode::kRemoteFailed, "exited with status " + std::to_string(*status)),
        "upload (this machine)", detail);
  *detail = "exit 0, on this machine";
  return Outcome::kOk;
}

}  // namespace burst
