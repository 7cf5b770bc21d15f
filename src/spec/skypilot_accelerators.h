// SkyPilot's `resources.accelerators` read as SkyPilot reads it, mapped onto burst's GPU filters.
// Forms: "H100", "H100:4", "40GB+" (any GPU with at least 40 GB), "40GB+:2", a list
// ["A100:1", "V100:1"], a set {L4, T4, A10G} (a flow mapping with no values), or a mapping
// {A100: 1, V100: 1}. GPU names match case-insensitively, ignoring '-', '_' and ' ', through
// SkyPilot's aliases (A100 -> A100_40GB, A100-80GB -> A100_80GB, H100 -> H100_SXM, ...) onto the
// catalog names of config/gpus.yaml. Internal to src/spec/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yaml/yaml_fields.h"

namespace burst::spec {

// The spec reads its YAML with the one field reader (src/yaml/yaml_fields.h).
using namespace burst::yaml;

// The catalog name for a SkyPilot or catalog GPU name, or nullopt when it names no catalog GPU.
std::optional<std::string> catalog_gpu_name(std::string_view skypilot_name);

// Every catalog name the aliases can produce (tests check each is in config/gpus.yaml).
std::vector<std::string> known_catalog_gpu_names();

struct AcceleratorChoice {
  std::vector<std::string> gpus;      // catalog names, in the file's order; empty: any GPU
  std::optional<double> min_vram_gb;  // from "40GB+"
  int count = 1;                      // the smallest count of the choices
  // Where the choices' counts differ ({L4: 8, A100-80GB: 2}): each GPU's count.
  std::map<std::string, int> counts;
  SourcePos pos;  // of the value, for later messages
};

// Reads one `accelerators` value; reports unusable values (unknown GPU, TPU, a memory form whose
// count differs from another choice's) at their line and returns nullopt. Notes go to
// problems.note().
std::optional<AcceleratorChoice> read_accelerators(const yaml::Node& node, const std::string& path,
                                                   Problems& problems);

}  // namespace burst::spec
