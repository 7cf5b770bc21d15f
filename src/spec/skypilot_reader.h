// SkyPilot task files (https://docs.skypilot.co/en/latest/reference/yaml-spec.html) read as
// SkyPilot reads them and mapped onto burst's PipelineSpec; the mapping, field by field, is in
// docs/pipeline-spec.md#skypilot. What burst does not use is a note; what it cannot honour is an
// error naming the line and what to use instead. Internal to src/spec/.
#pragma once

#include <vector>

#include "burst/spec.h"
#include "burst/spec_formats.h"
#include "yaml/yaml_fields.h"

namespace burst::spec {

// The spec reads its YAML with the one field reader (src/yaml/yaml_fields.h).
using namespace burst::yaml;

// Most documents a SkyPilot file may hold (a chain of tasks).
inline constexpr size_t kMaxSkyPilotDocuments = 16;

// Whether `docs` is a SkyPilot task file: no key only burst has (version, workload, env, code,
// ...), and a key only SkyPilot has (workdir, envs, num_nodes, file_mounts, a SkyPilot
// resources key such as accelerators, a secrets mapping, ...) or several documents.
bool looks_like_skypilot(const std::vector<yaml::Node>& docs);

// Reads the task (or chain of tasks) into `spec`, whose path and dir are set; sets `info`'s
// format and nodes (its notes are problems.notes()).
void read_skypilot(const std::vector<yaml::Node>& docs, const SpecLoadOptions& options,
                   PipelineSpec& spec, Problems& problems, SpecReadInfo* info);

}  // namespace burst::spec
