// One parser per top-level section of the spec. Each reads its section from the top-level fields
// into `spec`, reporting problems as it goes. Internal to src/spec/.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "burst/spec.h"
#include "yaml/yaml_fields.h"

namespace burst::spec {

// The spec reads its YAML with the one field reader (src/yaml/yaml_fields.h).
using namespace burst::yaml;

// `text` (a local path in the spec) made absolute against the spec's directory, normalised,
// without a trailing '/'.
std::string resolve_local(const std::string& spec_dir, const std::string& text);
// "list[i]", the path of a list's item in messages.
std::string item_path(const std::string& list, size_t i);
// The sub-mapping `key` of `top` read with `known` fields, or nullopt when it is absent, null or
// not a mapping (a problem is reported for the last two).
std::optional<Fields> section(Fields& top, std::string_view key,
                              std::span<const std::string_view> known);

// name, version and image first: later sections default to them.
void parse_identity(Fields& top, PipelineSpec& spec);
void parse_workload(Fields& top, PipelineSpec& spec);
// `providers`: the names resources.providers may hold (the registry's, handed in).
void parse_resources(Fields& top, PipelineSpec& spec, const std::vector<std::string>& providers);
void parse_volume(Fields& top, PipelineSpec& spec);
void parse_env(Fields& top, PipelineSpec& spec);
void parse_secrets(Fields& top, PipelineSpec& spec);  // after parse_env
void parse_code(Fields& top, PipelineSpec& spec);     // spec_code.cpp
void parse_steps(Fields& top, PipelineSpec& spec);    // setup, run, upload
void parse_prepare(Fields& top, PipelineSpec& spec);  // after parse_identity
void parse_artefacts(Fields& top, PipelineSpec& spec);
void parse_budget(Fields& top, PipelineSpec& spec);
void parse_schedule(Fields& top, PipelineSpec& spec);

}  // namespace burst::spec
