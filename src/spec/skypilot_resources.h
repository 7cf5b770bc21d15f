// A SkyPilot task's `resources` mapping read as SkyPilot reads it (infra and the legacy
// cloud/region/zone, accelerators, cpus/memory, use_spot, disk_size, disk_tier, image_id, ports,
// any_of, ordered, autostop, job_recovery, ...), mapped onto burst's Resources. What burst does
// not use is accepted with a note; what it cannot honour is an error naming the line. Internal
// to src/spec/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "burst/spec.h"
#include "yaml/yaml_fields.h"

namespace burst::spec {

// The spec reads its YAML with the one field reader (src/yaml/yaml_fields.h).
using namespace burst::yaml;

struct SkyResources {
  Resources resources;               // providers, gpus, gpu_count, min_vram_gb, spot
  bool has_accelerators = false;     // asked for a GPU: the task is a GPU step
  std::optional<std::string> image;  // from image_id: docker:IMAGE
  std::optional<int> disk_size_gb;
  bool ports = false;       // opens ports: a server
  std::string other_cloud;  // a cloud burst does not use, named here (noted and dropped)
  SourcePos pos;
};

// Whether `key` is a key of SkyPilot's resources mapping.
bool is_skypilot_resource_key(std::string_view key);

// `node` is the value of `path` (e.g. "resources"); a null node is no resources at all.
// `providers`: burst's provider names (the registry's), which SkyPilot clouds of the same name map
// to.
SkyResources read_sky_resources(const yaml::Node& node, const std::string& path,
                                const std::vector<std::string>& providers, Problems& problems);

}  // namespace burst::spec
