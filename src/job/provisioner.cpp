#include "job/provisioner.h"

#include <cmath>
#include <cstdio>

#include "job/offer_recheck.h"
#include "job/pod_lifecycle.h"
#include "job/volume_binding.h"
#include "plan/plan_summary.h"
#include "plan/worker_shards.h"
#include "util/ssh_hosts_file.h"

namespace burst {

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

}  // namespace

Provisioner::Provisioner(JobContext& ctx, JobPods& pods)
    : ctx_(ctx),
      d_(ctx.deps()),
      in_(ctx.input()),
      pods_(pods),
      provider_(&d_.provider),
      planned_gpu_(in_.plan.gpu) {}

bool Provisioner::can_fall_back() const { return fleet() && !in_.plan.fallbacks.empty(); }

std::string Provisioner::volume_key() const {
  return volume_id_.empty() ? "" : provider_->name() + "/" + volume_id_;
}

Outcome Provisioner::provision_prepare_pod(std::string* detail) {
  if (!in_.plan.prepare || !in_.plan.prepare->cpu || !in_.spec.prepare) {
    *detail = "the plan has no CPU offer for the prepare step";
    ctx_.fail(*detail);
    return Outcome::kFailed;
  }
  if (Status st = recheck_offer_once(); !st.ok())
    return ctx_.failed(st.error(), "re-check offer", detail);
  if (Status st = bind_volume_once(); !st.ok())
    return ctx_.failed(st.error(), "volume " + in_.spec.volume.name, detail);
  return create_pod(pods_.prep, detail);
}

void Provisioner::find_volume_for_reattach() {
  // The volume exists already: look it up, never create one. The new plan may name another
  // machine (Vast volumes live on one machine), and a second volume would be a second disk billed.
  if (auto found =
          find_bound_volume(d_.store, *provider_, in_.spec.volume.name, in_.plan.gpu.region);
      found.ok() && found->has_value())
    volume_id_ = (*found)->id;
}

Outcome Provisioner::provision_gpu(std::string* detail) {
  // Workers bind the one volume in turn: the first creates it, the others find it.
  std::unique_lock<std::mutex> one_at_a_time;
  if (fleet()) one_at_a_time = std::unique_lock<std::mutex>(fleet()->mu);
  // A volume on one machine (FleetProvision): one re-check for the fleet, then each worker placed.
  const bool machine_local = fleet() && traits_of(in_.plan.gpu).volumes_machine_local;
  if (machine_local && fleet()->checked_gpu) {
    in_.plan.gpu = *fleet()->checked_gpu;
    offer_checked_ = true;
  }
  // An offer an earlier worker found full: straight to the fallbacks (FleetProvision::full).
  if (can_fall_back()) {
    auto full = fleet()->full.find(fleet_offer_key(in_.plan.gpu));
    if (full != fleet()->full.end()) {
      const std::string why = full->second;
      if (one_at_a_time.owns_lock()) one_at_a_time.unlock();
      return provision_fallback(in_.plan.gpu, why, detail);
    }
  }
  // job/offer_recheck.h: the chosen offer may have gone since planning
  if (Status st = recheck_offer_once(); !st.ok()) {
    if (st.error().code != ErrorCode::kNoCapacity || !can_fall_back())
      return ctx_.failed(st.error(), "re-check offer", detail);
    fleet()->full[fleet_offer_key(in_.plan.gpu)] = st.error().message;
    if (one_at_a_time.owns_lock()) one_at_a_time.unlock();
    return provision_fallback(in_.plan.gpu, st.error().message, detail);
  }
  if (machine_local && !fleet()->checked_gpu) fleet()->checked_gpu = in_.plan.gpu;
  Status bound = bind_volume_once();
  // A worker's retry after its own host vanished (job/worker_fleet.h): the job's volume may be on
  // that host, which does not answer; this worker takes a volume of its own on one that does.
  if (!bound.ok() && machine_local && in_.worker.attempt > 0 &&
      traits_of(in_.plan.gpu).lost_pod_bills_nothing) {
    ctx_.say("volume " + in_.spec.volume.name + " cannot be reached (" + bound.error().message +
             "): this worker runs on a volume of its own");
    volume_id_.clear();
    volume_region_.clear();
    bound = Status::Ok();
  }
  if (bound.ok() && machine_local) bound = place_worker_pod();
  // No machine of the chosen provider has a GPU for this worker (place_worker): the fallbacks.
  if (!bound.ok() && bound.error().code == ErrorCode::kNoCapacity && can_fall_back()) {
    fleet()->full[fleet_offer_key(in_.plan.gpu)] = bound.error().message;
    one_at_a_time.unlock();
    return provision_fallback(in_.plan.gpu, bound.error().message, detail);
  }
  if (one_at_a_time.owns_lock() && !machine_local) one_at_a_time.unlock();
  if (!bound.ok()) return ctx_.failed(bound.error(), "volume " + in_.spec.volume.name, detail);
  pods_.gpu.record.gpu_type = in_.plan.gpu.gpu_type;
  Error no_capacity;
  Outcome created = create_pod(pods_.gpu, detail, can_fall_back() ? &no_capacity : nullptr);
  if (created == Outcome::kFailed && no_capacity.code == ErrorCode::kNoCapacity) {
    if (!one_at_a_time.owns_lock()) one_at_a_time = std::unique_lock<std::mutex>(fleet()->mu);
    fleet()->full[fleet_offer_key(in_.plan.gpu)] = no_capacity.message;
    one_at_a_time.unlock();
    return provision_fallback(in_.plan.gpu, no_capacity.message, detail);
  }
  if (!recheck_note_.empty()) *detail += "; " + ctx_.redact()(recheck_note_);
  return created;
}

Provider& Provisioner::provider_named(const std::string& name) const {
  if (name.empty() || name == d_.provider.name()) return d_.provider;
  auto it = d_.providers.find(name);
  return it != d_.providers.end() && it->second ? *it->second : d_.provider;
}

Outcome Provisioner::provision_fallback(const Offer& refused, const std::string& why,
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
    if (ctx_.interrupted())  // a stop (Ctrl-C, a deadline, another worker's failure): no more
                             // creates
      return ctx_.failed(make_error(ErrorCode::kInterrupted, "stopped before create"),
                         "create gpu pod", detail);
    std::unique_lock<std::mutex> one_at_a_time(fleet()->mu);
    if (auto full = fleet()->full.find(fleet_offer_key(f.offer)); full != fleet()->full.end()) {
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
    ctx_.say(line);
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
    if (!bound.ok()) return ctx_.failed(bound.error(), "volume " + in_.spec.volume.name, detail);
    pods_.gpu.record = PodRecord{};
    pods_.gpu.record.gpu_type = in_.plan.gpu.gpu_type;
    Error no_capacity;
    Outcome created = create_pod(pods_.gpu, detail, &no_capacity);
    if (created == Outcome::kFailed && no_capacity.code == ErrorCode::kNoCapacity) {
      if (!one_at_a_time.owns_lock()) one_at_a_time.lock();
      fleet()->full[fleet_offer_key(f.offer)] = no_capacity.message;
      last = f.offer;
      last_why = no_capacity.message;
      add_tried();
      continue;
    }
    if (created == Outcome::kOk) {
      deviation_ = line;
      *detail += "; " + std::string(kDeviationMarker) + ctx_.redact()(line);
    }
    return created;
  }
  return ctx_.failed(make_error(ErrorCode::kNoCapacity,
                                "no planned offer has a pod left for this worker (" + tried + ")"),
                     "create gpu pod", detail);
}

Status Provisioner::recheck_offer_once() {
  if (offer_checked_) return Status::Ok();
  offer_checked_ = true;
  const Plan before = in_.plan;
  if (Status st = recheck_chosen_offer(*provider_, &in_.plan, &recheck_note_); !st.ok()) return st;
  if (recheck_note_.empty()) return Status::Ok();
  ctx_.say(recheck_note_);
  // The run deviates from the plan the user saw: the new one, before anything is spent.
  if (in_.plan.gpu.gpu_type != before.gpu.gpu_type || in_.plan.gpu.region != before.gpu.region ||
      in_.plan.gpu.usd_per_hour != before.gpu.usd_per_hour) {
    ctx_.say("replanned before any create:");
    for (const std::string& line : plan_summary_lines(in_.spec, in_.plan)) ctx_.say(line);
  }
  return Status::Ok();
}

Status Provisioner::bind_volume_once() {
  if (!volume_id_.empty()) return Status::Ok();
  const VolumeSpec& v = in_.spec.volume;
  // Not retried here: the driver's API call retries what is safe (http/api_call.h).
  auto volume = bind_volume(d_.store, *provider_, d_.clock, v.name, v.size_gb, in_.plan.gpu.region);
  if (!volume.ok()) return volume.error();
  if (!volume->note.empty()) ctx_.say("volume " + v.name + ": " + volume->note);
  volume_id_ = volume->id;
  volume_region_ = volume->region;
  return Status::Ok();
}

Status Provisioner::place_worker_pod() {
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
  // `full` is "" when the job's volume could not be reached (provision_gpu, a lost own host).
  ctx_.say((full.empty() ? std::string("this worker")
                         : "no free " + in_.plan.gpu.gpu_type + " beside volume " +
                               in_.spec.volume.name + " (" + full + "): this worker") +
           " runs in " + in_.plan.gpu.region + " on a volume of its own, " + own +
           (volume->note.empty() ? "" : ": " + volume->note));
  volume_id_ = volume->id;
  volume_region_ = volume->region;
  return Status::Ok();
}

Outcome Provisioner::create_pod(PodHandle& pod, std::string* detail, Error* no_capacity) {
  const bool gpu = pod.kind == PodKind::kGpu;
  const bool prep = pod.kind == PodKind::kPrep;  // the prepare step's CPU pod
  const Offer& offer = gpu ? in_.plan.gpu : prep ? *in_.plan.prepare->cpu : *in_.plan.cpu;
  // The installation id in the name marks the pod as this state dir's (docs/daemon.md).
  auto installation = d_.store.installation_id();
  if (!installation.ok()) return ctx_.failed(installation.error(), "create pod", detail);
  PodRequest req;
  std::string role = gpu ? worker_pod_role(in_.worker.index, in_.worker.count, in_.worker.attempt)
                         : (prep ? "prep" : "cpu");
  if (gpu && start_retries_ > 0) role += "r" + std::to_string(start_retries_);  // "gpur1"
  req.name = pod_name(*installation, in_.job_id, role);
  req.job_id = in_.job_id;
  req.gpu = gpu;
  req.gpu_type = offer.gpu_type;
  req.gpu_count = gpu ? rented_gpus(in_) : 0;  // the offer's count, as planned (Plan::layout)
  req.disk_gb = gpu ? in_.spec.resources.disk_gb.value_or(0) : 0;  // resources.disk_gb
  // Spot only where the plan chose it over on-demand (plan/spot_risk.h); a preempted worker's
  // last replacement runs on-demand (job/worker_fleet.h clears the choice in its input).
  req.spot = gpu && plan_rents_spot(in_.plan) && offer.spot_usd_per_hour.has_value();
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
  pod.record.price_source = offer.price_source + (req.spot ? kSpotPriceMark : "");
  if (Status readable = check_list_readable(*provider_); !readable.ok())
    return ctx_.failed(readable.error(), "create " + pod.record.role + " pod", detail);
  auto created = create_recorded_pod(d_.store, *provider_, d_.clock, req, &pod.record, d_.faults);
  if (!created.ok() && no_capacity && created.error().code == ErrorCode::kNoCapacity) {
    *no_capacity = created.error();
    return Outcome::kFailed;
  }
  if (!created.ok())
    return ctx_.failed(created.error(), "create " + pod.record.role + " pod", detail);
  *detail = provider_->name() + " pod " + created->id;
  ctx_.say(pod.record.role + " pod " + created->id + " created (" + offer.gpu_type + ")");
  return ctx_.unless_stopped("create " + pod.record.role + " pod", detail);
}

Outcome Provisioner::delete_pod(PodHandle& pod, std::string* detail) {
  // The deletion goes through the provider's API only, never over SSH: a pod that stopped
  // answering is deleted the same way as a healthy one.
  if (!pod.needs_delete()) return Outcome::kSkipped;
  ctx_.drop_session(pod);  // close SSH before the sshd goes away
  ctx_.say("deleting " + pod.record.role + " pod " + pod.record.pod_id);
  Status st = delete_and_verify(d_.store, provider_named(pod.record.provider), d_.clock,
                                &pod.record, d_.faults);
  if (!st.ok()) {
    return ctx_.failed(
        st.error(), "pod " + pod.record.name + " may still be running; run `burst reap`", detail);
  }
  *detail = "deletion confirmed";
  ctx_.say(pod.record.role + " pod " + pod.record.pod_id + " deleted (confirmed)");
  if (!d_.config.config_dir.empty())
    (void)remove_ssh_hosts(ssh_hosts_path(d_.config.config_dir), "", pod.record.pod_id);
  return Outcome::kOk;
}

}  // namespace burst
