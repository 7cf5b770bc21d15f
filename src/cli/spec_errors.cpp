#include "cli/spec_errors.h"

#include <iostream>

#include "registry.h"

namespace burst {

Result<PipelineSpec> load_spec_or_print(const std::string& path) {
  std::vector<SpecError> errors;
  auto spec = load_spec_file(path, &errors, provider_names());
  if (!spec.ok()) {
    if (errors.empty()) std::cerr << spec.error().message << "\n";
    for (const auto& e : errors) std::cerr << e.text << "\n";
  }
  return spec;
}

}  // namespace burst
