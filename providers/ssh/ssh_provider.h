// The `ssh` provider: your own GPU hosts (a workstation under the desk, a lab server), listed in
// config.yaml's providers.ssh.hosts (burst/config.h, OwnHostConfig). Nothing is rented: burst logs
// in over SSH with the host's key and uses the host as it is (docs/providers.md, "Your own hosts").
//
// - offers(): one per host that answers, from probing it (own_host_probe.h): its GPUs from
//   nvidia-smi, mapped onto the catalog, at the host's owned cost per hour (config, else derived as
//   `burst estimate` does: cost/owned_cost.h); available only while no job holds its lock. The
//   offer's region is the host's name. Hosts that do not answer make no offer; CPU offers: none.
// - A pod is a job's dir W/jobs/<pod name> under the host's lock W/lock (taken with mkdir, which
//   is atomic, holding the pod name). Its id is "<pod name>@<host>". Its SSH endpoint is the host
//   itself, with the host's key (SshEndpoint::identity_file) and Pod::work_dir set to the job's
//   dir; the volume is W/volumes/<name> (Pod::volume_path).
// - delete_pod stops the pod's processes (the process group in each of its *.pid files), removes
//   its dir and releases the lock if the pod holds it; the volume stays. A host that cannot be
//   reached: kConnection, and the runner's unverified-delete record is what `burst reap` finishes
//   (list_pods names the pod holding each reachable host's lock).
// - A volume's id is "<name>@<host>": it lives on that host only (volumes_machine_local).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/gpu_catalog.h"
#include "burst/provider.h"
#include "burst/remote.h"

namespace burst {

struct SshProviderOptions {
  std::vector<OwnHostConfig> hosts;
  std::string default_key;       // burst's own key: a host naming none logs in with it
  std::string default_user;      // the user burst runs as: a host naming none logs in as it
  std::vector<GpuSpec> catalog;  // for the derived owned cost (tdp_w, purchase_usd)
  int connect_timeout_s = 10;    // per SSH call (SshTarget::io_timeout_s)
};

// The driver's settings from config.yaml: its host list, burst's key and the user burst runs as
// as their defaults, the catalog of the config dir (the derived owned cost).
SshProviderOptions ssh_options_from(const Config& config);

// `connector` reaches the hosts (libssh in production; tests may wrap it).
std::unique_ptr<Provider> make_ssh_provider(SshProviderOptions options,
                                            std::unique_ptr<RemoteConnector> connector,
                                            Clock& clock);

// What `burst check` says of one host: reachable, its GPUs, free or held.
struct OwnHostCheck {
  std::string host;      // its name in config.yaml
  std::string endpoint;  // user@address:port
  bool reachable = false;
  std::string error;  // why not reachable, or why no GPU was found ("" when none)
  std::string gpus;   // "2x A100_80GB" ("" when none found)
  double usd_per_hour = 0;
  bool busy = false;
  std::string holder;  // the pod holding its lock ("" when free, or not yet written)
};
// Probes every host once, in config order.
std::vector<OwnHostCheck> check_own_hosts(const SshProviderOptions& options,
                                          std::unique_ptr<RemoteConnector> connector, Clock& clock);

// The owned cost per hour of `count` GPUs of catalog type `gpu` on `host`: its usd_per_hour when
// set, else purchase over life x utilization plus power (cost/owned_cost.h); 0 for a GPU not in
// the catalog, or one without a purchase price and power figure.
double own_host_usd_per_hour(const OwnHostConfig& host, const std::vector<GpuSpec>& catalog,
                             const std::string& gpu, int count);

}  // namespace burst
