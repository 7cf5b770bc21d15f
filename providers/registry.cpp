#include "registry.h"

#include <algorithm>

#include "http/curl_http_client.h"
#include "lambda/lambda_provider.h"
#include "local/local_provider.h"
#include "runpod/runpod_provider.h"
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
  return make_vast_provider(o, http_for(vc), clock);
}

}  // namespace

const std::vector<ProviderEntry>& provider_table() {
  static const std::vector<ProviderEntry> table = {
      {"local", "this machine: pods are sshd processes on 127.0.0.1, volumes are directories",
       &make_local},
      {"runpod", "RunPod (REST v2): GPU and CPU pods, network volumes; key from RUNPOD_API_KEY",
       &make_runpod},
      {"lambda",
       "Lambda Cloud (API v1): GPU VMs, file systems at /lambda/nfs/<name>; key from "
       "LAMBDA_API_KEY",
       &make_lambda},
      {"vast", "Vast.ai: GPU instances on one machine, volumes local to it; key from VAST_API_KEY",
       &make_vast},
      {"ssh", "your own hosts over SSH: driver not in this build yet", nullptr},
  };
  return table;
}

Result<std::unique_ptr<Provider>> make_provider(const std::string& name, const Config& config,
                                                Clock& clock) {
  for (const auto& e : provider_table()) {
    if (name != e.name) continue;
    if (!e.make)
      return make_error(ErrorCode::kUnavailable, name + ": driver not in this build yet");
    return e.make(config, clock);
  }
  return make_error(ErrorCode::kInvalid, "unknown provider \"" + name + "\"");
}

}  // namespace burst
