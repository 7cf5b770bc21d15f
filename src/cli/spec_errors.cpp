#include "cli/spec_errors.h"

#include <cstdlib>
#include <iostream>

#include "registry.h"

namespace burst {

Result<PipelineSpec> load_spec_or_print(const std::string& path, const SpecLoadOptions& options,
                                        SpecReadInfo* info) {
  std::vector<SpecError> errors;
  SpecReadInfo local;
  if (!info) info = &local;
  auto spec = load_spec_file(path, &errors, options, info);
  if (!spec.ok()) {
    if (errors.empty()) std::cerr << spec.error().message << "\n";
    for (const auto& e : errors) std::cerr << e.text << "\n";
    return spec;
  }
  for (const std::string& note : info->notes) std::cerr << "note: " << note << "\n";
  return spec;
}

Result<SpecLoadOptions> spec_options_from_flags(const std::string& format,
                                                const std::vector<std::string>& env, bool for_run) {
  SpecLoadOptions options;
  options.for_run = for_run;
  options.providers = provider_names();  // what resources.providers may name (registry.h)
  if (format == "skypilot") {
    options.format = SpecFormat::kSkyPilot;
  } else if (format == "burst") {
    options.format = SpecFormat::kBurst;
  } else if (!format.empty()) {
    return make_error(ErrorCode::kInvalid,
                      "--format: expected burst or skypilot, got \"" + format + "\"");
  }
  for (const std::string& item : env) {
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    if (name.empty())
      return make_error(ErrorCode::kInvalid, "--env: expected K=V, got \"" + item + "\"");
    if (eq != std::string::npos) {
      options.env[name] = item.substr(eq + 1);
      continue;
    }
    // `--env K`: the value of K here, as SkyPilot reads it.
    const char* value = std::getenv(name.c_str());
    if (!value)
      return make_error(
          ErrorCode::kInvalid,
          "--env " + name + ": not set in this environment; give --env " + name + "=VALUE");
    options.env[name] = value;
  }
  return options;
}

}  // namespace burst
