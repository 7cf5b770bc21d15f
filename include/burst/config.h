// burst's own settings (not the pipeline's): where state lives, which SSH key to use, provider
// settings. Read from `config.yaml` in the config dir when present; every field has a default.
//
// Directories, each overridable from the environment (tests move everything into a temp dir):
//   config dir  $BURST_CONFIG_DIR, else $XDG_CONFIG_HOME/burst, else ~/.config/burst
//   state dir   $BURST_STATE_DIR,  else $XDG_STATE_HOME/burst,  else ~/.local/state/burst
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "burst/provider.h"
#include "burst/result.h"

namespace burst {

struct LocalCloudConfig {
  std::string root;             // default: <state dir>/local
  std::string sshd;             // default: found on PATH-like locations
  double gpu_usd_per_hour = 0;  // the local cloud is free unless you say otherwise
  double cpu_usd_per_hour = 0;
};

// A cloud driver's settings (runpod, lambda, vast). The API key comes from the environment
// variable the provider's own tools use (RUNPOD_API_KEY, LAMBDA_API_KEY, VAST_API_KEY) or from
// config.yaml, which must then be mode 0600 (load_config refuses it otherwise, saying why). The
// environment wins when both are set.
struct CloudConfig {
  std::string base_url;         // default: the provider's public API (tests point it elsewhere)
  std::string api_key;          // never logged, stored or passed on a command line
  std::string api_key_source;   // "RUNPOD_API_KEY" (env), "config.yaml", or "" when none
  double timeout_seconds = 30;  // per HTTP request, connect included
  std::string ssh_user;         // login user on its pods when the API does not say (Lambda: ubuntu)
  // offer_filters: {min_reliability, min_direct_ports, min_inet_down_mbps, min_cuda}: the offer
  // quality floors where the provider's search has them (Vast); absent names keep the driver's
  // documented defaults (docs/providers.md, "Vast: offer quality").
  std::map<std::string, double> offer_filters;
};

// One of your own GPU hosts (the `ssh` provider, providers/ssh/ssh_provider.h): config.yaml's
// providers.ssh.hosts, one entry each. burst reaches it over SSH as `user` with the key at `key`,
// probes its GPUs with nvidia-smi, and runs one job at a time on it under a lock in `work_dir`.
struct OwnHostConfig {
  std::string name;     // unique among the hosts; the offer's region, the pod id's first part
  std::string address;  // host name or IP
  int port = 22;
  std::string user;  // default: the user burst runs as
  std::string key;   // private key path; default: burst's own key (Config::ssh_key)
  // Pinned host key ("SHA256:..."); "": pinned on first contact by each connection (the job
  // pins it for the rest of its run).
  std::string host_key;
  // What an hour of the host costs you. Unset: derived as `burst estimate` does for rent-vs-buy
  // (cost/owned_cost.h): its GPUs' purchase price over life_years x utilization, plus their power
  // draw (the catalog's tdp_w) at usd_per_kwh.
  std::optional<double> usd_per_hour;
  double usd_per_kwh = 0.15;
  double life_years = 3;
  double utilization = 1;
  std::string work_dir = "~/.burst";  // on the host: the lock, the jobs' dirs, the volumes
};

// Job notifications (app/webhook.h). The URLs are secrets: never logged or reported.
struct NotifyConfig {
  std::string webhook;                           // every job; $BURST_WEBHOOK_URL wins
  std::map<std::string, std::string> pipelines;  // pipeline name -> its own webhook
};

struct Config {
  std::string config_dir;
  std::string config_file;  // the file read, or "" when none existed
  std::string state_dir;
  std::string db_path;  // <state dir>/burst.db
  // A team's shared PostgreSQL ("postgres://burst@db.example/burst"), or "" for the SQLite file
  // at db_path (burst/store.h, open_store). A password in it makes config.yaml a secret (0600).
  std::string store_url;
  std::string reports_dir;  // default: <state dir>/reports
  std::string logs_dir;     // <state dir>/logs
  std::string ssh_key;      // default: <config dir>/id_ed25519 (generated on first use)
  // Pod boot + sshd up, before giving up; 0: the provider's own (ProviderTraits::
  // provision_wait_s: 10 minutes, Vast 30).
  double ssh_wait_seconds = 0;
  double pull_max_gib = 1024;  // per job: a pod listing more artefact bytes fails the pull
  // A transfer or remote command (code sync, pull, SFTP, a probe; not a step's follower, which has
  // its own rule) that receives no byte from the pod for this long fails the job's phase
  // (SshTarget::no_progress_timeout_s). 60 s: twice the 30 s a live step follower may stay quiet,
  // and far above a healthy pod's longest pause in a sync or pull (a round trip, a hash).
  double no_progress_seconds = 60;
  // Where a plan asks for its image's size (app/image_size_lookup.h), from $BURST_IMAGE_REGISTRY:
  // "auto" (load_config's default) asks each image's own registry; "off" never asks; an
  // http(s) URL asks that registry for every image (a mirror; tests' emulated registry).
  // A Config built in code asks none.
  std::string image_registry = "off";
  LocalCloudConfig local;
  std::vector<OwnHostConfig> own_hosts;       // providers.ssh.hosts, in file order
  std::map<std::string, CloudConfig> clouds;  // every cloud_config provider: always present
  NotifyConfig notify;
};

// Reads the config. `env` is the process environment (passed in so tests control it). Errors name
// the file, line, column and field like spec errors do. `providers` is every provider this build
// knows (providers/registry.h, all_provider_traits()): which config sections exist, each cloud's
// default base URL and API key variable. The config knows no provider itself.
Result<Config> load_config(const std::map<std::string, std::string>& env,
                           const std::vector<ProviderTraits>& providers);

// Makes burst's directories private, on every start of burst and burstd: the state dir, the
// config dir, the logs and reports dirs and the database's dir become 0700 (group and other bits
// dropped, owner bits kept) and every file directly in them loses its group and other bits (job
// logs, reports, the database, keys, config files: 0600 for a 0644 file). Directories that do
// not exist yet are left to be created (burst creates them 0700). kInvalid, naming the path,
// when one belongs to another user or cannot be changed: burst then refuses to start.
Status make_private_dirs(const Config& config);

// The current process environment as a map.
std::map<std::string, std::string> environment_map();

}  // namespace burst
