// Fuzzes parse_pod_name (include/burst/provider.h), which reads the names a provider's pod list
// returns to decide whose pod it is. Invariants: only burst-* names parse; an installation id is
// empty or exactly kInstallationIdLength hex digits; a tagged name is rebuilt exactly by pod_name
// from its parts when it has a role; the job id is part of the name.
#include <cstddef>
#include <cstdint>
#include <string>

#include "burst/provider.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string name(reinterpret_cast<const char*>(data), size);
  const auto parts = burst::parse_pod_name(name);
  FUZZ_CHECK(parts.has_value() == (name.rfind(burst::kPodNamePrefix, 0) == 0));
  if (!parts) return 0;
  FUZZ_CHECK(parts->installation.empty() ||
             parts->installation.size() == burst::kInstallationIdLength);
  for (char c : parts->installation) FUZZ_CHECK((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  FUZZ_CHECK(parts->job_id.size() < name.size());
  const size_t rest_at =
      std::string(burst::kPodNamePrefix).size() + 2 + burst::kInstallationIdLength;
  if (!parts->installation.empty() && name.find('-', rest_at) != std::string::npos)
    FUZZ_CHECK(burst::pod_name(parts->installation, parts->job_id, parts->role) == name);
  return 0;
}
