#include "registry.h"

#include <algorithm>

#include "burst/weight_load.h"
#include "http/curl_http_client.h"
#include "lambda/lambda_json.h"
#include "lambda/lambda_provider.h"
#include "local/local_provider.h"
#include "runpod/runpod_json.h"
#include "runpod/runpod_provider.h"
#include "ssh/ssh_provider.h"
#include "vast/vast_provider.h"

namespace burst {
namespace {

std::unique_ptr<Provider> make_local(const Config& c, Clock& clock) {
  return make_local_provider(
      {c.local.root, c.local.sshd, c.local.gpu_usd_per_hour, c.local.cpu_usd_per_hour}, clock);
}

// The HTTP client a cloud driver talks through, with the configured per-request timeout.
std::unique_ptr<HttpClient> http_for(const CloudConfig& c) {
  CurlOptions o;
  o.total_timeout = Duration(static_cast<int64_t>(c.timeout_seconds * 1000));
  o.connect_timeout = std::min(o.connect_timeout, o.total_timeout);
  return make_curl_http_client(o);
}

const CloudConfig& cloud(const Config& c, const std::string& name) {
  static const CloudConfig none;
  auto it = c.clouds.find(name);
  return it == c.clouds.end() ? none : it->second;
}

std::unique_ptr<Provider> make_runpod(const Config& c, Clock& clock) {
  const CloudConfig& rc = cloud(c, "runpod");
  RunpodOptions o;
  if (!rc.base_url.empty()) o.base_url = rc.base_url;
  o.api_key = rc.api_key;
  return make_runpod_provider(o, http_for(rc), clock);
}

std::unique_ptr<Provider> make_lambda(const Config& c, Clock& clock) {
  const CloudConfig& lc = cloud(c, "lambda");
  LambdaOptions o;
  if (!lc.base_url.empty()) o.base_url = lc.base_url;
  o.api_key = lc.api_key;
  if (!lc.ssh_user.empty()) o.ssh_user = lc.ssh_user;
  return make_lambda_provider(o, http_for(lc), clock);
}

std::unique_ptr<Provider> make_vast(const Config& c, Clock& clock) {
  const CloudConfig& vc = cloud(c, "vast");
  VastOptions o;
  if (!vc.base_url.empty()) o.base_url = vc.base_url;
  o.api_key = vc.api_key;
  auto set_floor = [&](const char* name, double* out) {
    if (auto it = vc.offer_filters.find(name); it != vc.offer_filters.end()) *out = it->second;
  };
  set_floor("min_reliability", &o.quality.min_reliability);
  set_floor("min_direct_ports", &o.quality.min_direct_ports);
  set_floor("min_inet_down_mbps", &o.quality.min_inet_down_mbps);
  set_floor("min_cuda", &o.quality.min_cuda);
  return make_vast_provider(o, http_for(vc), clock);
}

// Your own hosts (providers/ssh/): config.yaml's providers.ssh.hosts, reached with libssh.
std::unique_ptr<Provider> make_ssh(const Config& c, Clock& clock) {
  return make_ssh_provider(ssh_options_from(c), make_libssh_connector(), clock);
}

// Billing rules as published (checked 2026-11-22; docs/cost-model.md, "Billing"). Boot priors:
// provisioning + image pull, observed ranges from the providers' docs (docs/cost-model.md).
ProviderTraits local_traits() {
  ProviderTraits t;
  t.billing = {1, 0, "second", "the local cloud costs nothing; per second"};
  t.boot_s = 2;                          // an sshd process on 127.0.0.1
  t.volume_storage = kStorageLocalDisk;  // a directory on this machine (unmodelled: runs_here)
  t.runs_here = true;
  t.pod_disk_settable = false;  // a directory on this machine's own disk
  t.no_spot_why = "pods here are this machine's own processes";
  return t;
}

ProviderTraits runpod_traits() {
  ProviderTraits t;
  t.billing = {1, 0, "second",
               "docs.runpod.io/accounts-billing/billing: all compute and storage charges are "
               "billed per second"};
  t.boot_s = 60;
  t.offline_prices = true;
  t.cloud_config = true;
  t.default_base_url = RunpodOptions{}.base_url;
  t.api_key_env = "RUNPOD_API_KEY";
  t.ssh_user = "root";
  // createNetworkVolume's size has "minimum=10" (v2 spec, CreateNetworkVolumeRequest), so a
  // 1 GB request makes 10 GB; priced as docs.runpod.io says (runpod_json.h).
  t.min_volume_gb = 10;
  t.volume_usd_per_gb_month = runpod::kRunpodVolumeUsdPerGbMonth;
  // Network volumes (MooseFS; docs.runpod.io/pods/storage) read at a measured 237 MB/s
  // (runpod_json.h); the container disk is local ("Fastest (local)", no figure): the local prior.
  t.volume_storage = kStorageNetwork;
  t.volume_read_bps = runpod::kRunpodVolumeReadBytesPerSecond;
  // Spot pods through GraphQL's podRentInterruptable (REST v2 has none; runpod_graphql.h), an
  // API "retired in early 2027" (docs.runpod.io sdks/graphql/configurations). RunPod publishes
  // no interruption rate, only that an interruptible pod "can be stopped at any time to free up
  // resources for another Pod" (v1 spec, Pod.interruptible); like Vast's, its market is a bid
  // one, so burst assumes Vast's one preemption per 4 pod-hours until measured.
  t.spot_preemptions_per_hour = 0.25;
  t.spot_prior_source =
      "assumed 0.25/pod-hour: RunPod publishes no rate (its API: an interruptible pod \"can be "
      "stopped at any time\")";
  return t;
}

ProviderTraits lambda_traits() {
  ProviderTraits t;
  t.billing = {60, 0, "minute",
               "docs.lambda.ai/public-cloud/billing: on-demand instances bill in one-minute "
               "increments"};
  // No CPU-only instances (shared/provider-apis/REFERENCE.md §3): the upload hand-off.
  t.cpu_pods = false;
  // InstanceLaunchRequest has no disk field: the instance type's local NVMe (REFERENCE §3.4).
  t.pod_disk_settable = false;
  t.boot_s = 180;
  t.offline_prices = true;
  t.cloud_config = true;
  t.default_base_url = LambdaOptions{}.base_url;
  t.api_key_env = "LAMBDA_API_KEY";
  t.ssh_user = LambdaOptions{}.ssh_user;
  // Instances are VMs booted from a machine image; "there is no container concept" and a
  // container image runs with `docker run --gpus all` on the VM (REFERENCE.md §3.2, and the
  // launch example's user_data in §3.4), so the spec's image is run that way.
  t.steps_in_container = true;
  // Launch takes no interruptible or bid field (REFERENCE.md §3.4; config/prices.yaml: "no spot
  // market").
  t.no_spot_why = "Lambda Cloud's launch API has no interruptible instances";
  // File systems have no size: billed per GiB used per month (lambda_json.h).
  t.min_volume_gb = 0;
  t.volume_usd_per_gb_month = lambda::kLambdaFilesystemUsdPerGbMonth;
  // File systems are network storage mounted at /lambda/nfs/<name> (REFERENCE.md §3.6); no read
  // rate is published and none was found measured: the network prior (burst/weight_load.h).
  t.volume_storage = kStorageNetwork;
  // The job's env reaches that container through docker's --env-file, one NAME=VALUE a line
  // (docs.docker.com/reference/cli/docker/container/run/#env: "the file should use the syntax
  // <variable>=value"; no quoting or continuation), so a value cannot hold a line break.
  t.env_line_break_why =
      "its steps run in the spec's image with docker, whose --env-file takes one NAME=VALUE a "
      "line; put the value in a file under code.dir instead";
  return t;
}

ProviderTraits vast_traits() {
  ProviderTraits t;
  t.billing = {1, 0, "second", "vast.ai/pricing: on-demand and interruptible, per-second billing"};
  // A volume lives on one machine, so no other (CPU) instance can mount it (REFERENCE.md §4):
  // "We currently provide local volumes only" (§4.7).
  t.cpu_pods = false;
  t.volumes_machine_local = true;
  // The volume is the host's own disk: the local-disk kind. Offers state the host's disk read
  // rate (`disk_bw`, MB/s; REFERENCE.md §4) but the driver does not carry it to the planner yet,
  // so the local-disk prior applies (burst/weight_load.h).
  t.volume_storage = kStorageLocalDisk;
  t.boot_s = 90;
  // A host's image pull can be slow (a Vast machine is someone's box on a home link): SkyPilot
  // waits 30 minutes for a Vast instance (sky/provision/vast). A start error Vast reports in
  // status_msg ends the wait at once instead (vast_json.h, start_error).
  t.provision_wait_s = 1800;
  t.offline_prices = true;
  t.cloud_config = true;
  t.default_base_url = VastOptions{}.base_url;
  t.api_key_env = "VAST_API_KEY";
  t.ssh_user = "root";
  // Interruptible instances: a `bid` search and a `price` on create (vast_json.h, bid_for).
  // Vast publishes no interruption rate; its FAQ says an interruptible instance "can be stopped
  // by higher bids" and "may wait long to resume" (docs.vast.ai/documentation/reference/faq/
  // rental-types). AWS's Spot Instance Advisor, for comparison, puts GPU instances at 5-20%
  // interrupted per month; a bid market of single hosts is far more volatile, so burst assumes
  // one preemption per 4 pod-hours until measured (docs/cost-model.md, "Spot pods").
  t.spot_preemptions_per_hour = 0.25;
  t.spot_prior_source =
      "assumed 0.25/pod-hour: Vast publishes no rate (docs.vast.ai FAQ, rental types: "
      "\"can be stopped by higher bids\")";
  return t;
}

ProviderTraits ssh_traits() {
  ProviderTraits t;
  // Nothing is billed: the owned cost accrues by the second while the job holds the host.
  t.billing = {1, 0, "second", "your own host: its owned cost per hour, by the second"};
  t.cpu_pods = false;              // the upload runs from the host or this machine
  t.volumes_machine_local = true;  // a volume is a dir on one host; the offer's region names it
  t.volume_storage = kStorageLocalDisk;
  t.boot_s = 5;  // no boot: an SSH login and a mkdir
  t.own_hosts_config = true;
  t.pod_disk_settable = false;  // a job's dir on the host's own disk
  t.no_spot_why = "your own hosts are not rented";
  t.lost_pod_bills_nothing = true;  // a host that vanished bills nobody: its shard may move
  return t;
}

std::deque<ProviderEntry>& table() {
  static std::deque<ProviderEntry> rows = [] {
    std::deque<ProviderEntry> t = {
        {"local", "this machine: pods are sshd processes on 127.0.0.1, volumes are directories",
         &make_local, local_traits()},
        {"runpod", "RunPod (REST v2): GPU and CPU pods, network volumes; key from RUNPOD_API_KEY",
         &make_runpod, runpod_traits()},
        {"lambda",
         "Lambda Cloud (API v1): GPU VMs, file systems at /lambda/nfs/<name>; key from "
         "LAMBDA_API_KEY",
         &make_lambda, lambda_traits()},
        {"vast",
         "Vast.ai: GPU instances on one machine, volumes local to it; key from VAST_API_KEY",
         &make_vast, vast_traits()},
        {"ssh",
         "your own GPU hosts over SSH (config.yaml providers.ssh.hosts): a pod is a job's dir "
         "under "
         "the host's lock, a volume a dir on the host",
         &make_ssh, ssh_traits()},
    };
    for (ProviderEntry& e : t) e.traits.name = e.name;
    return t;
  }();
  return rows;
}

const ProviderEntry* find_entry(std::string_view name) {
  for (const ProviderEntry& e : table())
    if (name == e.name) return &e;
  return nullptr;
}

}  // namespace

const std::deque<ProviderEntry>& provider_table() { return table(); }

const ProviderTraits* find_provider_traits(std::string_view name) {
  const ProviderEntry* e = find_entry(name);
  return e ? &e->traits : nullptr;
}

std::vector<ProviderTraits> all_provider_traits() {
  std::vector<ProviderTraits> out;
  for (const ProviderEntry& e : table()) out.push_back(e.traits);
  return out;
}

std::vector<std::string> provider_names() {
  std::vector<std::string> out;
  for (const ProviderEntry& e : table()) out.emplace_back(e.name);
  return out;
}

std::vector<std::string> cloud_provider_names() {
  std::vector<std::string> out;
  for (const ProviderEntry& e : table())
    if (!e.traits.api_key_env.empty()) out.emplace_back(e.name);
  return out;
}

std::vector<std::string> offline_price_provider_names() {
  std::vector<std::string> out;
  for (const ProviderEntry& e : table())
    if (e.traits.offline_prices) out.emplace_back(e.name);
  return out;
}

std::string default_provider_name() {
  for (const ProviderEntry& e : table())
    if (e.traits.runs_here) return e.name;
  return table().front().name;
}

void attach_traits(std::vector<Offer>* offers) {
  // Offers arrive grouped by provider: one look-up per run of the same name.
  const std::string* last = nullptr;
  const ProviderTraits* traits = nullptr;
  for (Offer& o : *offers) {
    if (!last || o.provider != *last) {
      traits = find_provider_traits(o.provider);
      last = &o.provider;
    }
    o.traits = traits;
  }
}

Result<std::unique_ptr<Provider>> make_provider(const std::string& name, const Config& config,
                                                Clock& clock) {
  const ProviderEntry* e = find_entry(name);
  if (!e) return make_error(ErrorCode::kInvalid, "unknown provider \"" + name + "\"");
  if (!e->make) return make_error(ErrorCode::kUnavailable, name + ": driver not in this build yet");
  return e->make(config, clock);
}

std::unique_ptr<RemoteConnector> make_connector(const std::string& provider) {
  const ProviderTraits* t = find_provider_traits(provider);
  if (t && t->connector) return t->connector();
  return make_libssh_connector();
}

Status register_provider_for_tests(ProviderEntry entry) {
  if (find_entry(entry.name))
    return make_error(ErrorCode::kInvalid,
                      std::string("provider \"") + entry.name + "\" is already in the table");
  entry.traits.name = entry.name;
  table().push_back(std::move(entry));
  return Status::Ok();
}

void unregister_provider_for_tests(std::string_view name) {
  std::deque<ProviderEntry>& t = table();
  t.erase(
      std::remove_if(t.begin(), t.end(), [&](const ProviderEntry& e) { return name == e.name; }),
      t.end());
}

}  // namespace burst
