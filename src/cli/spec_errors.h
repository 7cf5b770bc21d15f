#pragma once

#include <string>

#include "burst/spec.h"

namespace burst {

// Loads a spec, printing every problem to stderr ("burst: " prefix-free, one per line).
Result<PipelineSpec> load_spec_or_print(const std::string& path);

}  // namespace burst
