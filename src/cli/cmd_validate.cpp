#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/spec_errors.h"
#include "registry.h"

namespace burst {

int cmd_validate(const ValidateArgs& args) {
  auto options = spec_options_from_flags(args.spec_flags.format, args.spec_flags.env,
                                         /*for_run=*/false);
  if (!options.ok()) return fail(kExitUsage, options.error().message);
  const std::string& path = args.spec;
  if (args.json) {
    std::vector<SpecError> errors;
    SpecReadInfo info;
    auto spec = load_spec_file(path, &errors, *options, &info);
    nlohmann::json out = {
        {"file", path},
        {"valid", spec.ok()},
        {"errors", nlohmann::json::array()},
        {"notes", spec.ok() ? nlohmann::json(info.notes) : nlohmann::json::array()}};
    if (spec.ok()) out["format"] = info.format;
    if (!spec.ok() && errors.empty()) out["errors"].push_back(spec.error().message);
    for (const auto& e : errors) out["errors"].push_back(e.text);
    std::cout << out.dump(2) << std::endl;
    return spec.ok() ? kExitOk : kExitUsage;
  }
  SpecReadInfo info;
  auto spec = load_spec_or_print(path, *options, &info);
  if (!spec.ok()) return kExitUsage;
  std::cout << path << ": ok (" << (info.format == "skypilot" ? "SkyPilot task, " : "")
            << "pipeline " << spec->name << ")" << std::endl;
  return kExitOk;
}

}  // namespace burst
