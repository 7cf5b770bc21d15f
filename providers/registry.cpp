#include "registry.h"

#include "local/local_provider.h"

namespace burst {
namespace {

std::unique_ptr<Provider> make_local(const Config& c, Clock& clock) {
  return make_local_provider(
      {c.local.root, c.local.sshd, c.local.gpu_usd_per_hour, c.local.cpu_usd_per_hour}, clock);
}

}  // namespace

const std::vector<ProviderEntry>& provider_table() {
  static const std::vector<ProviderEntry> table = {
      {"local", "this machine: pods are sshd processes on 127.0.0.1, volumes are directories",
       &make_local},
      {"runpod", "RunPod (REST v2): driver not in this build yet", nullptr},
      {"lambda", "Lambda Cloud: driver not in this build yet", nullptr},
      {"vast", "Vast.ai: driver not in this build yet", nullptr},
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
