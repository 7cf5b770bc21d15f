// Provisioner::replace_unstarted_gpu_pod: what happens in a one-pod job's wait-for-ssh phase
// (Provisioner::wait_gpu_pod) when the provider reports that the pod's container could not start
// (Pod::start_failed; Vast's status_msg "OCI runtime create failed", issue 32). That pod is deleted
// and its deletion verified, then the job creates another on a machine other than the one that
// failed, within the job's caps (no stop request, no deadline passed, no money cap reached, the
// spec's max_usd_per_hour), at most kMaxStartRetries times. Where the volume lives on the failed
// machine (ProviderTraits::volumes_machine_local), the new machine gets a volume of its own, and
// the job says so before it is created. A wide job's workers are retried by the fleet instead
// (job/worker_fleet.h).
#include <algorithm>
#include <cstdio>

#include "job/provisioner.h"
#include "plan/volume_home.h"

namespace burst {

namespace {

std::string start_retry_money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", usd);
  return buf;
}

}  // namespace

Outcome Provisioner::replace_unstarted_gpu_pod(const Error& start_error, int retry,
                                               std::string* detail) {
  const std::string failed_region = in_.plan.gpu.region;
  start_failed_regions_.push_back(failed_region);
  ctx_.say(start_error.message + "; deleting pod " + pods_.gpu.record.pod_id +
           " and trying another machine");
  std::string deleted;
  if (delete_pod(pods_.gpu, &deleted) != Outcome::kOk)  // it said why; the job stops here
    return ctx_.failed(start_error, "wait for pod", detail);
  auto give_up = [&](const std::string& why, JobStop stop = JobStop::kNone) {
    return ctx_.failed(
        make_error(start_error.code, start_error.message + "; no other machine: " + why),
        "wait for pod", detail, stop);
  };
  if (ctx_.interrupted()) return give_up("the job was stopped");
  if (std::string over = ctx_.budget_exceeded(pods_.records()); !over.empty())
    return give_up(over, JobStop::kMoneyCap);
  // The volume lives on the machine that failed: another machine needs a volume of its own.
  if (traits_of(in_.plan.gpu).volumes_machine_local && !volume_id_.empty() &&
      volume_region_ == failed_region) {
    auto offers = provider_->offers(true);
    if (!offers.ok()) return give_up(offers.error().message);
    const Offer* best = nullptr;
    const std::optional<double> cap = in_.spec.resources.max_usd_per_hour;
    for (const Offer& o : *offers) {
      if (!o.available ||
          std::find(start_failed_regions_.begin(), start_failed_regions_.end(), o.region) !=
              start_failed_regions_.end() ||
          o.gpu_type != in_.plan.gpu.gpu_type || o.gpu_count != in_.plan.gpu.gpu_count ||
          (cap && o.usd_per_hour > *cap))
        continue;
      if (!best || o.usd_per_hour < best->usd_per_hour) best = &o;
    }
    if (!best)
      return give_up("no other " + in_.plan.gpu.gpu_type + " offer of " + provider_->name() +
                     (cap ? " within resources.max_usd_per_hour" : ""));
    const ProviderTraits* traits = in_.plan.gpu.traits;  // live offers carry none
    in_.plan.gpu = *best;
    in_.plan.gpu.traits = traits;
    if (in_.plan.gpu.provider.empty()) in_.plan.gpu.provider = provider_->name();
    ctx_.say("the volume " + in_.spec.volume.name + " is on the machine that failed (" +
             failed_region + "): the job moves to " + in_.plan.gpu.region + " at " +
             start_retry_money(in_.plan.gpu.usd_per_hour) + "/h");
    // Before anything is made there: the volume found there, or the new one, its size and cost.
    std::vector<VolumeHome> homes;
    if (auto rows = d_.store.live_volumes(); rows.ok())
      for (const VolumeRecord& r : *rows)
        if (r.provider == provider_->name() && r.spec_name == in_.spec.volume.name &&
            r.state == "ready" && !r.volume_id.empty())
          homes.push_back({r.provider, r.region, r.size_gb, r.usd_per_gb_month});
    std::string line =
        volume_placement_line(in_.spec.volume.name, place_volume(in_.spec, in_.plan.gpu, homes));
    ctx_.say(line.substr(line.find_first_not_of(' ')));
    volume_id_.clear();
    volume_region_.clear();
    if (Status st = bind_volume_once(); !st.ok())
      return ctx_.failed(st.error(), "volume " + in_.spec.volume.name, detail);
  }
  start_retries_ = retry;
  pods_.gpu.record = PodRecord{};
  pods_.gpu.record.gpu_type = in_.plan.gpu.gpu_type;
  std::string created;
  Outcome o = create_pod(pods_.gpu, &created);
  if (o == Outcome::kOk)
    *detail = start_error.message + "; replaced by " + created;
  else
    *detail = created;
  return o;
}

}  // namespace burst
