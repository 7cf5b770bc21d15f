// One document of a SkyPilot task file, read field by field (name, workdir, num_nodes,
// resources, envs, secrets, file_mounts, volumes, setup, run; service and config noted and
// ignored). skypilot_reader.cpp turns one or more of these into a PipelineSpec. Internal to
// src/spec/.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/skypilot_buckets.h"
#include "spec/skypilot_resources.h"
#include "yaml/yaml_fields.h"

namespace burst::spec {

// The spec reads its YAML with the one field reader (src/yaml/yaml_fields.h).
using namespace burst::yaml;

// All SkyPilot task keys.
std::span<const std::string_view> skypilot_task_fields();

struct SkyValue {  // an env or secret: a value, or null ("must be supplied")
  std::string name;
  std::optional<std::string> value;
  SourcePos pos;
};

struct SkyMount {  // a file_mounts entry with a local source
  std::string remote;
  std::string local;
  SourcePos pos;
};

struct SkyTask {
  SourcePos pos;  // of the document
  std::string name;
  SourcePos name_pos;
  std::optional<std::string> workdir;
  SourcePos workdir_pos;
  int num_nodes = 1;
  SourcePos num_nodes_pos;
  SkyResources resources;
  std::vector<SkyValue> envs;
  std::vector<SkyValue> secrets;
  std::vector<SkyMount> mounts;
  std::vector<SkyBucket> buckets;  // file_mounts from a bucket (skypilot_buckets.h)
  std::optional<std::pair<std::string, std::string>> volume;  // mount path, volume name
  SourcePos volume_pos;
  std::string setup;
  std::optional<std::string> run;
  bool service = false;    // has a `service` section: SkyServe keeps it up until stopped
  bool only_name = false;  // a document with just `name`: a chain's own name
};

// Why `t` would run until stopped ("a service (service:)", a server or Ray head in run, ports),
// or "" when it ends by itself.
std::string runs_until_stopped(const SkyTask& t);

// Reads one document; nullopt when it is not a mapping (reported).
std::optional<SkyTask> read_sky_task(const yaml::Node& doc,
                                     const std::vector<std::string>& providers, Problems& problems);

}  // namespace burst::spec
