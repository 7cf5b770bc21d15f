#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/spec_errors.h"
#include "registry.h"

namespace burst {

int cmd_validate(const std::string& path, bool json) {
  if (json) {
    std::vector<SpecError> errors;
    auto spec = load_spec_file(path, &errors, provider_names());
    nlohmann::json out = {
        {"file", path}, {"valid", spec.ok()}, {"errors", nlohmann::json::array()}};
    if (!spec.ok() && errors.empty()) out["errors"].push_back(spec.error().message);
    for (const auto& e : errors) out["errors"].push_back(e.text);
    std::cout << out.dump(2) << std::endl;
    return spec.ok() ? kExitOk : kExitUsage;
  }
  auto spec = load_spec_or_print(path);
  if (!spec.ok()) return kExitUsage;
  std::cout << path << ": ok (pipeline " << spec->name << ")" << std::endl;
  return kExitOk;
}

}  // namespace burst
