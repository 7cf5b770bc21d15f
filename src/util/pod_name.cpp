#include "burst/provider.h"

namespace burst {

std::string pod_name(const std::string& job_id, const std::string& role) {
  return std::string(kPodNamePrefix) + job_id + "-" + role;
}

const ProviderTraits& unknown_provider_traits() {
  static const ProviderTraits kUnknown{};
  return kUnknown;
}

const char* to_string(PodState state) {
  switch (state) {
    case PodState::kPending:
      return "pending";
    case PodState::kRunning:
      return "running";
    case PodState::kStopping:
      return "stopping";
    case PodState::kGone:
      return "gone";
    case PodState::kUnknown:
      return "unknown";
  }
  return "unknown";
}

}  // namespace burst
