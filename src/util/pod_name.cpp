#include "burst/provider.h"

namespace burst {

std::string pod_name(const std::string& installation, const std::string& job_id,
                     const std::string& role) {
  return std::string(kPodNamePrefix) + "i" + installation + "-" + job_id + "-" + role;
}

std::string pod_name(const std::string& job_id, const std::string& role) {
  return std::string(kPodNamePrefix) + job_id + "-" + role;
}

std::optional<PodNameParts> parse_pod_name(const std::string& name) {
  const std::string prefix = kPodNamePrefix;
  if (name.rfind(prefix, 0) != 0) return std::nullopt;
  std::string rest = name.substr(prefix.size());
  PodNameParts parts;
  // "i" + exactly kInstallationIdLength lower-case hex digits + "-": job ids never start so
  // (they start with the date's digits).
  auto is_hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  const size_t tag = 1 + kInstallationIdLength;
  if (rest.size() > tag && rest[0] == 'i' && rest[tag] == '-') {
    bool hex = true;
    for (size_t i = 1; i < tag; ++i) hex = hex && is_hex(rest[i]);
    if (hex) {
      parts.installation = rest.substr(1, kInstallationIdLength);
      rest = rest.substr(tag + 1);
    }
  }
  const size_t dash = rest.rfind('-');
  parts.job_id = dash == std::string::npos ? rest : rest.substr(0, dash);
  parts.role = dash == std::string::npos ? "unknown" : rest.substr(dash + 1);
  return parts;
}

const ProviderTraits& unknown_provider_traits() {
  static const ProviderTraits kUnknown{};
  return kUnknown;
}

std::string env_refusal(const ProviderTraits& traits,
                        const std::map<std::string, std::string>& env) {
  if (traits.env_line_break_why.empty()) return "";
  for (const auto& [name, value] : env)
    if (value.find_first_of("\r\n") != std::string::npos)
      return "env " + name + " holds a line break, which " + traits.name +
             " cannot carry: " + traits.env_line_break_why;
  return "";
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
