// resources.gpu_counts: a GPU count per GPU type (Resources::gpu_counts), read from a mapping of
// catalog name: count. Internal to src/spec/.
#pragma once

#include <map>
#include <string>

#include "yaml/yaml_fields.h"

namespace burst::spec {

// Reads `node` (the value of `path`); reports a value that is not a mapping of names to counts
// of at least 1.
std::map<std::string, int> read_gpu_counts(const yaml::Node& node, const std::string& path,
                                           yaml::Problems& problems);

}  // namespace burst::spec
