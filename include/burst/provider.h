// One interface for every cloud. Drivers live under providers/<name>/ and are listed in one
// explicit table (providers/registry.cpp). Every call returns a classified Error on failure with
// the provider's own message kept, so the runner can decide what to retry.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "burst/result.h"

namespace burst {

// Every pod burst creates is named "burst-i<installation>-<job id>-<role>" (pod_name below): the
// prefix marks it as burst's in the provider's own list even if the local database is lost, and
// the installation id (10 hex digits, made once per state dir: Store::installation_id) says whose,
// so `burst reap` and burstd delete only their own installation's pods (docs/daemon.md,
// "Ownership"). Pods made before installation ids are "burst-<job id>-<role>".
inline constexpr const char* kPodNamePrefix = "burst-";
inline constexpr size_t kInstallationIdLength = 10;

class RemoteConnector;  // burst/remote.h

// How a provider rounds the time it bills: per second, per minute or per hour, with any minimum
// charge (plan/billing.h bills through it; sources cited in docs/cost-model.md, "Billing").
struct BillingRule {
  double increment_s = 1;  // billed time is rounded up to a multiple of this
  double minimum_s = 0;    // at least this much is billed per pod
  std::string unit;        // "second" | "minute" | "hour", for messages
  std::string source;      // where the rule is published
};

// What the rest of burst needs to know about a provider, as data: one row of the registry
// (providers/registry.cpp) holds it, and the modules that may not include providers/ (plan, cost,
// spec, config, job) are handed it, on an Offer or by their caller. Nothing outside providers/
// compares provider names; it reads these traits instead. The defaults describe a provider burst
// knows nothing about (offers from a file naming one): per-second billing, CPU pods, 90 s boot.
struct ProviderTraits {
  std::string name;
  BillingRule billing{1, 0, "second", "assumed for a provider with no known rule"};
  // Rents CPU-only pods that can mount the GPU pod's volume, so the upload runs on one (the
  // default hand-off); false: the planner picks GPU pod or this machine (plan/handoff.h).
  bool cpu_pods = true;
  // A volume lives on one host machine and mounts only on pods of that machine (Vast): the offer's
  // region names the machine. A wide job's workers share the job's volume while its machine has a
  // free offer; each other worker gets a volume of its own on the machine it runs on
  // (job/volume_binding.h, place_worker). false: any pod of the volume's region mounts it.
  bool volumes_machine_local = false;
  double boot_s = 90;  // provisioning + image pull before SSH answers: the planner's prior
  // How long the runner waits for a new pod to run and answer SSH (image pull included) before it
  // gives up and deletes it, unless config.yaml's ssh_wait_seconds says otherwise. SkyPilot
  // allows Vast 30 minutes; 10 is the default (docs/providers.md, "Waiting for a pod").
  double provision_wait_s = 600;
  // A new volume (plan/volume_home.h): a request for N GB makes max(N, min_volume_gb) GB;
  // 0: the provider's volumes have no size and are billed by what they hold (Lambda).
  int min_volume_gb = 1;
  // Its storage price in $/GB/month from the provider's docs (cited in its driver); 0: the
  // offer's own (Offer::volume_usd_per_gb_month, Vast) or unknown.
  double volume_usd_per_gb_month = 0;
  // What the spec's volume is and how fast a pod reads weights from it (burst/weight_load.h,
  // plan/weight_source.h): "network" (a network volume or file system) or "local-disk" (a volume
  // on the pod's own machine), and its read rate in bytes/s where the provider's docs or a
  // published measurement give one (cited in the registry row); 0: the kind's prior.
  std::string volume_storage = "network";
  double volume_read_bps = 0;
  // The pod's own disk (a container disk, a VM's local NVMe): bytes/s; 0: the local-disk prior.
  double local_disk_read_bps = 0;
  // resources.disk_gb reaches its pods (RunPod v2 CreatePodRequest.disk, Vast's create `disk`);
  // false: a pod's own disk comes with what is rented (a Lambda instance type, this machine).
  bool pod_disk_settable = true;
  // Pods are processes on this machine (the local cloud): free, never modelled against the GPU
  // catalog, never split across workers, exempt from price caps, and not for remote submitters.
  bool runs_here = false;
  bool live_offers = true;      // offers() asks the provider's API now
  bool offline_prices = false;  // config/prices.yaml may price it when its API cannot
  // config.yaml's providers.<name> section: cloud fields (base_url, api_key, timeout_seconds,
  // ssh_user), or the local machine's (root, sshd, prices).
  bool cloud_config = false;
  // config.yaml's providers.<name>.hosts: your own hosts (burst/config.h, OwnHostConfig).
  bool own_hosts_config = false;
  std::string default_base_url;  // "" when it has no HTTP API
  std::string api_key_env;       // environment variable holding its API key; "" when none
  std::string ssh_user;          // default login user on its pods ("" : set by the driver per pod)
  // The provider rents VMs, not containers: its pods ignore the spec's image, so the runner pulls
  // the image once per pod and runs every step inside it with `docker run` on the VM (the synced
  // workdir, the volume and the pod's dir bind-mounted at the same paths, the job's env from a
  // 0600 --env-file, the GPUs through the NVIDIA runtime). job/step_container.h.
  bool steps_in_container = false;
  // Non-empty: an env value with a line break cannot reach this provider's steps, for this reason
  // (the end of the refusal: "env NAME holds a line break, which PROVIDER cannot carry: WHY").
  // Checked before anything is created: by the planner (each offer) and by `burst validate` for
  // the providers a spec names (env_refusal below).
  std::string env_line_break_why;
  // How burst reaches a pod of this provider; null: SSH through libssh (make_libssh_connector).
  std::unique_ptr<RemoteConnector> (*connector)() = nullptr;
  // Spot (interruptible) pods, for `resources.spot` (docs/providers.md, "Spot"; the planner's
  // priced risk: plan/spot_risk.h). The prior rate at which the provider takes a spot pod back,
  // per pod-hour, and where it comes from (cited in the registry row); 0: no prior. `no_spot_why`:
  // why this build rents no interruptible pod here, in the words `burst plan` says ("" when its
  // offers carry Offer::spot_usd_per_hour and create_pod honours PodRequest::spot).
  double spot_preemptions_per_hour = 0;
  std::string spot_prior_source;
  std::string no_spot_why;
  // A pod that cannot be reached bills nothing (your own host: nothing is rented), so a wide job
  // whose pod vanished and whose delete could not be verified may still give that worker's
  // unfinished items to a new pod (job/worker_fleet.h); its record stays for `burst reap`.
  // false: an unverified delete may leave a pod billing, so the worker is never retried.
  bool lost_pod_bills_nothing = false;
};

// The traits of a provider burst knows nothing about (the defaults above).
const ProviderTraits& unknown_provider_traits();

// Why this provider's pods cannot carry the job's environment, naming the first variable it
// cannot carry; "" when they can (ProviderTraits::env_line_break_why).
std::string env_refusal(const ProviderTraits& traits,
                        const std::map<std::string, std::string>& env);

struct Offer {
  std::string provider;
  std::string gpu_type;  // catalog name, e.g. "RTX_4090"; "cpu" for CPU-only offers
  int gpu_count = 0;
  std::optional<double> vram_gb;  // per GPU; unset when unknown (local: this machine's CPU)
  double usd_per_hour = 0;        // on-demand, whole offer
  std::optional<double> spot_usd_per_hour;
  std::string region;
  bool available = true;
  std::string price_source;  // "live offer" | "offline table" | "config"
  // What a new volume beside this offer costs, $/GB/month, when the offer says (Vast's
  // storage_cost); 0: ProviderTraits::volume_usd_per_gb_month.
  double volume_usd_per_gb_month = 0;
  // The host disk's sequential read rate, bytes/s, when the offer says (Vast's disk_bw, MB/s);
  // 0: the provider's registry row or the local NVMe prior (burst/weight_load.h).
  double disk_read_bps = 0;
  // The host's download rate, bytes/s, when the offer says (Vast's inet_down, Mb/s); 0: unknown.
  // A hub or object-store download and the image pull go no faster (plan/weight_source.h).
  double download_bps = 0;
  // What the provider bills per GB (1e9 bytes) the host downloads and uploads, on top of the
  // hourly price, when the offer says (Vast's inet_down_cost, inet_up_cost); 0: not billed.
  double download_usd_per_gb = 0;
  double upload_usd_per_gb = 0;
  // The provider's registry row, set where offers enter burst (providers/registry.h,
  // attach_traits); null: unknown_provider_traits(). Points at a row that lives for the process.
  const ProviderTraits* traits = nullptr;
};

inline const ProviderTraits& traits_of(const Offer& o) {
  return o.traits ? *o.traits : unknown_provider_traits();
}

struct Volume {
  std::string id;
  std::string name;
  std::string region;
  int size_gb = 0;
  // What the user should hear about this volume during the run; "" when nothing. E.g. Vast: a
  // volume just created on the offer's machine starts empty (its cache is cold).
  std::string note{};
  // Storage price in USD per GB-month, from the provider's docs or the live volume offer (cited in
  // the driver); 0 when unknown.
  double usd_per_gb_month = 0;
};

struct PodRequest {
  std::string name;  // kPodNamePrefix + job id + role; idempotency key where supported
  std::string job_id;
  bool gpu = true;       // false: a CPU pod (the upload hand-off)
  std::string gpu_type;  // from the chosen offer; ignored for CPU pods
  int gpu_count = 1;
  bool spot = false;  // interruptible pricing, where the provider offers it
  std::string image;
  // The pod's own disk in GB (RunPod CreatePodRequest.disk, Vast's create `disk`); 0: the
  // driver's default. Providers whose disk comes with the machine type (Lambda) ignore it.
  int disk_gb = 0;
  std::string volume_id;  // attached at mount_path; must already exist
  std::string mount_path;
  std::string ssh_public_key;              // OpenSSH one-line format
  std::map<std::string, std::string> env;  // non-secret only; secrets travel over SSH
  std::vector<int> ports;
};

enum class PodState { kPending, kRunning, kStopping, kGone, kUnknown };

struct SshEndpoint {
  std::string host;
  int port = 0;  // 0 while the provider has not published it
  std::string user;
  // The private key burst logs in with; "": burst's own (config.yaml ssh_key). Your own hosts
  // (the ssh provider) name theirs in config.yaml.
  std::string identity_file{};
};

struct Pod {
  std::string id;
  std::string name;
  PodState state = PodState::kUnknown;
  SshEndpoint ssh;
  std::string gpu_type;
  double usd_per_hour = 0;
  // Where the volume is mounted on the pod when the provider decides it (Lambda:
  // /lambda/nfs/<name>); empty: the request's mount_path. Becomes $BURST_VOLUME.
  std::string volume_path;
  // The pod's own dir ($BURST_POD_DIR: step scripts, pids, env) when the provider decides it (your
  // own hosts: the job's work dir under the host's lock); empty: $BURST_POD_DIR, else
  // $HOME/.burst-pod.
  std::string work_dir{};
  // The provider's own words on the pod's state while it boots (Vast's status_msg: "Pulling
  // image", or a start error), printable text only, shortened; "" when the API has none.
  std::string status_note{};
  // The provider reports that the pod's container could not start (Vast: a start error in
  // status_msg): it will never run here, and another machine may (job/job_phases.h).
  bool start_failed = false;
  // The provider took this interruptible (spot) pod back: outbid or reclaimed (Vast: a bid
  // instance whose cur_state, intended_status and next_state are all "stopped"). A lost SSH
  // session on such a pod is a preemption, not a crash (job/worker_fleet.h, docs/providers.md).
  bool preempted = false;
};

// What `burst check` learns from one authenticated look at a provider's account.
struct AccountCheck {
  // Whether burst's SSH public key is registered on the account; unset when the API does not say
  // (then `ssh_key_note` says why).
  std::optional<bool> ssh_key_registered;
  std::string ssh_key_note;
  std::optional<double> balance_usd;  // unset when the API does not expose it
  std::string server_date;            // the HTTP Date header of the authenticated answer, or ""
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string name() const = 0;

  // What can be rented now. gpu=false lists CPU-only offers.
  virtual Result<std::vector<Offer>> offers(bool gpu) = 0;

  // Finds the volume by name, creating it if absent. Never deletes or shrinks one.
  virtual Result<Volume> ensure_volume(const std::string& name, int size_gb,
                                       const std::string& region) = 0;
  virtual Result<std::vector<Volume>> list_volumes() = 0;
  // Deletes one volume by the provider's id. Deleting one already gone succeeds; callers verify
  // with list_volumes. kUnavailable where the driver cannot delete volumes.
  virtual Status delete_volume(const std::string& id) {
    return make_error(ErrorCode::kUnavailable,
                      name() + ": deleting volume " + id + " is not supported by this driver");
  }
  // Whether list_volumes returns the name burst gave at creation, so ensure_volume can find a
  // volume again by name across processes. False (Vast): only the store's mapping finds it.
  virtual bool volume_names_listed() const { return true; }

  // Asks for a pod. Returns as soon as the provider has assigned an id; the pod may still be
  // booting (poll get_pod until it is running and has an SSH endpoint).
  virtual Result<Pod> create_pod(const PodRequest& request) = 0;
  virtual Result<Pod> get_pod(const std::string& id) = 0;  // kNotFound once it is gone
  // Every pod of this account whose name starts with kPodNamePrefix, in any state but gone.
  virtual Result<std::vector<Pod>> list_pods() = 0;
  // Requests deletion. Deleting a pod that is already gone succeeds. Callers verify with get_pod.
  virtual Status delete_pod(const std::string& id) = 0;

  // One authenticated call that proves the API key works (kAuth when it is missing or refused),
  // plus what the account's API documents: burst's SSH key registered, the balance. Creates
  // nothing. Default: kUnavailable, "no account check" (a provider without an account).
  virtual Result<AccountCheck> check_account(const std::string& ssh_public_key) {
    (void)ssh_public_key;
    return make_error(ErrorCode::kUnavailable, name() + ": no account to check");
  }
};

// "burst-i<installation>-<job id>-<role>".
std::string pod_name(const std::string& installation, const std::string& job_id,
                     const std::string& role);
// The untagged form "burst-<job id>-<role>", of no installation (tests; pods of older versions).
std::string pod_name(const std::string& job_id, const std::string& role);

// What a pod's name says. nullopt unless it starts with kPodNamePrefix.
struct PodNameParts {
  std::string installation;  // "" when untagged
  std::string job_id;
  std::string role;  // "unknown" when the name has no role
};
std::optional<PodNameParts> parse_pod_name(const std::string& name);
const char* to_string(PodState state);

}  // namespace burst
