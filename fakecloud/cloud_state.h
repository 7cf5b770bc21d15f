// The emulated clouds' one state, shared by every provider module (runpod_api.cpp, ...) and
// thread-safe. Pods are real: each is a loopback sshd started through the local provider on the
// emulator's own state dir, authorising the public key the API request carried, when the pod
// would really run an SSH server (the module decides; image_runs_sshd is the image catalogue);
// otherwise its SSH port refuses connections. A pod's SSH endpoint is published only after the
// boot delay. Volumes are directories that outlive pods.
// Fault knobs are per provider; counted knobs are used up one request at a time.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "burst/clock.h"
#include "burst/provider.h"

namespace burst::fakecloud {

struct Faults {
  int latency_ms = 0;  // added to every API request
  int errors_5xx = 0;  // the next N requests answer status_5xx
  int status_5xx = 503;
  int rate_limits = 0;      // the next N requests answer 429
  int retry_after_s = -1;   // Retry-After on those 429s (-1: no header)
  int create_timeouts = 0;  // the next N creates make the pod, then answer only after hang_ms
  int hang_ms = 3000;
  int timeouts = 0;  // the next N requests wait hang_ms before they are handled (a slow API)
  bool stuck_provisioning = false;  // new pods never leave provisioning
  int delete_lingers = 0;       // after a delete answers success, the pod stays running for N reads
  bool malformed_list = false;  // the pod list answers truncated JSON
  // The pod list answers 200 with: "empty-body" (no bytes), "changed-shape" (valid JSON in a
  // shape the provider never documented), "hidden" (the documented shape, listing no pod).
  std::string list_fault;
  std::set<std::string> no_capacity;  // the provider's GPU type ids with no capacity
  // The provider's GPU type id -> how many pods of it can be live at once: a create beyond that
  // fails with the provider's published no-capacity error, as for no_capacity (the stock levels
  // and offers do not show it: as on the real APIs, capacity is learned at create).
  std::map<std::string, int> capacity;
  bool auth_failure = false;  // every request is refused as unauthorised
  int extra_offers = 0;       // synthetic GPU types added to the catalog (benchmarks)
  // What gives an image without sshd its SSH server does not work (RunPod: the start command;
  // Vast: the SSH runtype; Lambda: the VM's key set-up): only images in the catalogue that run
  // sshd themselves are reachable; others refuse connections on their published SSH port.
  bool no_ssh_bootstrap = false;
  // RunPod createPod's status table (v2 spec, createPod description): the GPU type ids this
  // account "cannot access" (403), an account out of money (402), and the words of a no-capacity
  // 400 ("capacity exhaustion currently carries no machine-readable code ... only a human-readable
  // detail"; "" = the phrase RunPod's GraphQL API is known to use).
  std::set<std::string> forbidden;
  bool insufficient_balance = false;
  std::string capacity_detail;
  // Vast: new instances (on start_error_machine only, when not 0) never leave actual_status
  // "created", with this status_msg (dstack reads ": OCI runtime create failed:" there as a start
  // error; vast_api.cpp). "" = none.
  std::string start_error;
  long start_error_machine = 0;
  // Vast: a host's new asking price, machine id -> dph_base per GPU, replacing the table's
  // (vast_api.cpp, kMachines). Offers are "dynamic" (REFERENCE §4.3, from Vast's
  // creating-instances guide), so the cheapest machine of one run need not be the next run's.
  std::map<long, double> usd_per_gpu;
  // Vast: what every host bills per GB its instances download and upload (each offer's
  // inet_down_cost / inet_up_cost; "bandwidth billed separately per GB", REFERENCE §4.2). 0: the
  // host bills no traffic.
  double inet_down_cost = 0;
  double inet_up_cost = 0;
  // Lambda VMs (docker_shim.h). no_nvidia_runtime: the VM's docker lists no "nvidia" runtime, so
  // `docker run --gpus all` fails with docker's own "could not select device driver" until
  // `nvidia-ctk runtime configure --runtime=docker` and `systemctl restart docker` (the NVIDIA
  // Container Toolkit's install guide, "Configuring Docker"; dstack does this on Lambda VMs).
  // volume_root_squash: the file system maps root to nobody (NFS root_squash, exports(5)), so
  // a container's processes cannot write the volume (the shim runs them as uid 65534).
  bool no_nvidia_runtime = false;
  bool volume_root_squash = false;
  // Vast and RunPod: the next N interruptible pods are taken back preempt_after_ms after their
  // SSH endpoint is published, the way each provider documents it, container and SSH gone, the
  // pod kept until deleted. Vast (vast_api.cpp): an outbid instance, stopped (actual_status,
  // cur_state, intended_status and next_state all "stopped"), still holding its machine's GPUs.
  // RunPod (runpod_graphql.cpp rents them): an interruptible pod stopped, v2 status EXITED.
  int preempt_bids = 0;
  int preempt_after_ms = 0;

  nlohmann::json to_json() const;
  static Faults from_json(const nlohmann::json& j);  // missing fields keep their defaults
};

enum class Phase { kProvisioning, kRunning, kTerminated };

struct FakeVolume {
  std::string id;
  std::string provider;
  std::string name;
  std::string region;
  int size_gb = 0;
  std::string dir;  // where its files live
};

struct FakePod {
  std::string id;
  std::string provider;
  std::string name;
  bool gpu = true;
  std::string gpu_type;  // the provider's GPU id; CPU flavour id for CPU pods
  int gpu_count = 0;
  std::string image;
  std::map<std::string, std::string> env;
  std::vector<std::string> ports;
  std::string volume_id;  // "" when none
  std::string mount_path;
  std::string region;
  std::string public_key;  // authorised on the pod's sshd
  // What SSH sessions see of the container's environment, when the module models it (RunPod: only
  // what the start command persisted); unset: `env`.
  std::optional<std::map<std::string, std::string>> session_env;
  std::string start_note;  // RunPod: why the start command did not run ("" when it did)
  // false: nothing listens on the pod's SSH port (an image without sshd and no working
  // bootstrap); the port is published as the API documents, and connections are refused.
  bool sshd = true;
  double usd_per_hour = 0;
  TimePoint created;
  TimePoint ready_at;  // the SSH endpoint is published from here on
  Phase phase = Phase::kProvisioning;
  SshEndpoint ssh;           // the loopback sshd; provider modules publish it once running
  std::string local_id;      // the local-provider pod behind it
  int refusing_fd = -1;      // without sshd: a bound, never-listening socket holding the port
  int lingering_reads = -1;  // >= 0: deleted, still running for this many more reads
  bool preempted = false;    // taken back by the provider (CloudState::preempt)
  nlohmann::json extra;      // module-specific fields echoed back (e.g. the request body)
};

struct RequestLogEntry {
  std::string provider;
  std::string method;
  std::string path;  // with query
  int status = 0;
  std::string body;         // the request body
  bool authorised = false;  // carried the expected key in its Authorization header
  bool key_leaked = false;  // the key appeared in the path, query or body
};

struct EmulatorOptions {
  std::string state_dir;   // pods/ and volumes/ of the loopback pods live under it
  Duration boot_delay{0};  // create -> SSH endpoint published
  std::map<std::string, std::string> api_keys;  // provider -> the key it accepts ("" = any)
};

class CloudState {
 public:
  CloudState(EmulatorOptions options, Clock& clock);
  ~CloudState();  // stops every pod's sshd

  Clock& clock() { return clock_; }
  std::string new_id(int length, bool digits_only = false);

  // Faults.
  Faults faults(const std::string& provider) const;
  void set_faults(const std::string& provider, const Faults& f);
  // For one incoming request: 429 or 5xx when a burst is armed (used up), else 0.
  int take_burst(const std::string& provider, int* retry_after_s);
  bool take_create_timeout(const std::string& provider);
  bool take_timeout(const std::string& provider);
  // Expected key check: "Bearer <key>" (or any bearer when no key is configured).
  bool authorised(const std::string& provider, const std::string& authorization) const;
  std::string api_key(const std::string& provider) const;

  // Volumes.
  // `id`: the provider's id format (Vast: digits); "" = a generated one.
  Result<FakeVolume> create_volume(const std::string& provider, const std::string& name,
                                   const std::string& region, int size_gb,
                                   const std::string& id = "");
  std::vector<FakeVolume> volumes(const std::string& provider) const;
  std::optional<FakeVolume> volume(const std::string& provider, const std::string& id) const;
  // Removes a volume and its files. kNotFound when no such volume; kInvalid (the caller's
  // in-use answer) when a pod that is not terminated still uses it.
  Status delete_volume(const std::string& provider, const std::string& id);

  // Pods. create starts the loopback sshd now; the pod turns running after the boot delay.
  // kNoCapacity when Faults::capacity has the pod's GPU type and that many are live.
  Result<FakePod> create_pod(FakePod spec);
  // Reads advance the lifecycle and use up a deleted pod's lingering reads.
  std::optional<FakePod> pod(const std::string& provider, const std::string& id);
  std::vector<FakePod> pods(const std::string& provider);  // not terminated
  // false when there is no such pod (or it is already terminated).
  bool delete_pod(const std::string& provider, const std::string& id);

  // The provider takes a running pod back (a spot pod outbid): its container and sshd are killed,
  // the pod stays (not terminated, FakePod::preempted) until deleted. false when there is no such
  // live pod. preempt_at: the same at `at` (the emulator's clock), from a background thread.
  bool preempt(const std::string& provider, const std::string& id);
  void preempt_at(const std::string& provider, const std::string& id, TimePoint at);

  // What tests judge by: every pod, any provider, whose phase is not terminated or whose
  // loopback sshd still has processes.
  std::vector<FakePod> live_pods();
  std::vector<FakePod> all_pods() const;

  // The emulated VMs' `docker` (docker_shim.h), installed under the state dir on first use: the
  // directory to put first on a VM's PATH. docker_calls_log(): every call it took, for tests.
  Result<std::string> vm_docker_bin();
  std::string docker_calls_log() const;

  // Account SSH keys (providers that authorise account keys on new pods, e.g. Vast).
  void add_account_key(const std::string& provider, const std::string& public_key);
  std::vector<std::string> account_keys(const std::string& provider) const;
  void set_account_keys(const std::string& provider, std::vector<std::string> keys);  // replaces

  // A request arrived (the server logs it as its answer is written, so the log is in the order
  // of the answers). request_log() waits (up to 2 s) for requests in flight, so a test reading
  // it right after a call sees that call.
  void request_started();
  void log_request(RequestLogEntry e);
  std::vector<RequestLogEntry> request_log() const;
  nlohmann::json state_json() const;

 private:
  void advance(FakePod& p);  // caller holds mu_
  void terminate(FakePod& p);

  EmulatorOptions o_;
  Clock& clock_;
  SystemClock real_clock_;  // the loopback sshd really needs time to start
  std::unique_ptr<Provider> local_;
  mutable std::mutex mu_;
  std::map<std::string, Faults> faults_;
  std::map<std::string, FakeVolume> volumes_;  // by id
  std::map<std::string, FakePod> pods_;        // by id
  std::mutex capacity_mu_;  // one create at a time of a GPU type Faults::capacity counts
  std::vector<RequestLogEntry> log_;
  int in_flight_ = 0;
  mutable std::condition_variable logged_;
  std::map<std::string, std::vector<std::string>> account_keys_;  // provider -> keys
  std::string docker_bin_;                                        // "" until installed
  // Scheduled preemptions (preempt_at): (provider, id) -> when; one thread, started on first use.
  std::map<std::pair<std::string, std::string>, TimePoint> preemptions_;
  std::thread preempter_;
  bool stopping_ = false;
  std::condition_variable preempt_cv_;
};

const char* to_string(Phase p);

// The emulator's image catalogue: whether the image starts an SSH server by itself (RunPod's
// official images do, from PUBLIC_KEY). Images not listed have none (python:3.11-slim).
bool image_runs_sshd(const std::string& image);

// The environment the image's own ENV lines set in its containers (the emulator's illustrative
// catalogue: pytorch/pytorch puts /opt/conda/bin first on PATH, python:* sets PYTHON_VERSION).
std::map<std::string, std::string> image_env(const std::string& image);

}  // namespace burst::fakecloud
