// The one table of providers burst knows. A driver is added here and nowhere else.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/provider.h"

namespace burst {

struct ProviderEntry {
  const char* name;
  const char* summary;
  // Null while the driver is not built yet; make_provider then says so.
  std::unique_ptr<Provider> (*make)(const Config& config, Clock& clock);
};

const std::vector<ProviderEntry>& provider_table();

// kInvalid for a name not in the table; kUnavailable for a driver not in this build.
Result<std::unique_ptr<Provider>> make_provider(const std::string& name, const Config& config,
                                                Clock& clock);

}  // namespace burst
