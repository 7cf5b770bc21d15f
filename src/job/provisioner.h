// The provisioner: a job's pods at its providers. It re-checks the chosen offer once before the
// first create (job/offer_recheck.h), binds the spec's volume (job/volume_binding.h), creates
// each pod with its row in the store (job/pod_lifecycle.h), deletes each through its own
// provider and verifies it gone, and owns the fallback policy: a wide job's worker whose create
// the chosen offer refuses for want of capacity goes down the plan's fallbacks (Plan::fallbacks,
// FleetProvision::full), and a one-pod job's GPU pod that the provider reports unable to start is
// replaced on another machine (provisioner_start_retry.cpp). It waits for nothing on a pod: the
// connection is job/pod_connection.h's. Internal to src/job.
#pragma once

#include <string>
#include <vector>

#include "job/job_context.h"
#include "job/job_types.h"

namespace burst {

class Provisioner {
 public:
  Provisioner(JobContext& ctx, JobPods& pods);

  // The provision phase's create of the GPU pod: the offer re-checked, the volume bound (a
  // worker on a machine-local volume placed beside it or on one of its own), the pod created.
  // A wide job's worker refused for capacity falls over to the plan's fallbacks.
  Outcome provision_gpu(std::string* detail);
  // The prepare step's CPU pod on the spec's volume (re-check and volume as above).
  Outcome provision_prepare_pod(std::string* detail);
  // The upload's CPU pod.
  Outcome provision_cpu(std::string* detail) { return create_pod(pods_.cpu, detail); }
  // Deletes `pod` through its provider's API (never over SSH) and verifies it gone; its SSH
  // session closed first, its `ssh burst-<job>` entry removed after. kSkipped when no pod is
  // left. A deletion not confirmed fails, telling the user to run `burst reap`.
  Outcome delete_pod(PodHandle& pod, std::string* detail);
  // The GPU pod the provider reports unable to start (`start_error`): deleted, then replaced on
  // another machine within the job's caps; `retry` numbers the new pod ("gpur<retry>").
  Outcome replace_unstarted_gpu_pod(const Error& start_error, int retry, std::string* detail);
  static constexpr int kMaxStartRetries = 2;
  // Reattach: the spec's volume as the store knows it, looked up and never created.
  void find_volume_for_reattach();

  // The provider of that name among JobDeps::providers, else JobDeps::provider.
  Provider& provider_named(const std::string& name) const;
  // The GPU pod's provider: JobDeps::provider, or a fallback's.
  Provider& provider() const { return *provider_; }
  // What a fallback changed, "" when the pod is where the plan said.
  const std::string& deviation() const { return deviation_; }
  // "<provider>/<volume id>" of the bound volume (FleetProvision's per-volume locks), "" before.
  std::string volume_key() const;

 private:
  // With `no_capacity` set, a create the provider refuses for want of capacity is returned there
  // (kFailed, nothing said, the job's error untouched) for the caller to fall over.
  Outcome create_pod(PodHandle& pod, std::string* detail, Error* no_capacity = nullptr);
  // A wide job's worker whose pod the chosen offer cannot give (`why`, the provider's words):
  // the plan's fallbacks in order, each after one line saying what changed, why and what it costs
  // against the plan (FleetProvision::full holds those already refused).
  Outcome provision_fallback(const Offer& refused, const std::string& why, std::string* detail);
  bool can_fall_back() const;
  FleetProvision* fleet() const { return ctx_.fleet(); }
  // Once per job, before the first create: the chosen offer re-checked; a fall-over prints the
  // new plan and why before anything is spent. `recheck_note_` keeps it.
  Status recheck_offer_once();
  // Finds or creates the spec's volume (once): the prepare pod and the GPU pod mount the same one.
  Status bind_volume_once();
  // A worker on a provider whose volumes live on one machine: beside the job's volume, or onto
  // the machine of a volume of its own (in.plan.gpu and volume_id_ then name those).
  Status place_worker_pod();

  JobContext& ctx_;
  JobDeps& d_;
  JobInput& in_;
  JobPods& pods_;
  Provider* provider_;
  const Offer planned_gpu_;    // the plan's offer, as the plan the user saw named it
  std::string deviation_;      // what a fallback changed
  std::string volume_id_;      // the provider's id for the spec's volume
  std::string volume_region_;  // where that volume is
  bool offer_checked_ = false;
  std::string recheck_note_;  // what the re-check changed, "" when nothing
  int start_retries_ = 0;     // GPU pods replaced so far: the next one's name ends "gpur<n>"
  std::vector<std::string> start_failed_regions_;  // where they were (never chosen again)
};

}  // namespace burst
