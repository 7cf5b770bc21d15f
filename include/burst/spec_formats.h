// Spec files in other formats: a SkyPilot task file is read as SkyPilot reads it and mapped onto
// PipelineSpec (src/spec/skypilot_*; the mapping field by field: docs/pipeline-spec.md#skypilot),
// and a PipelineSpec is written back as a burst spec (`burst convert`).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "burst/spec.h"

namespace burst {

enum class SpecFormat { kAuto, kBurst, kSkyPilot };

// How a spec file is read. kAuto reads a SkyPilot task file (recognised by its keys) as SkyPilot
// would, anything else as a burst spec.
struct SpecLoadOptions {
  SpecFormat format = SpecFormat::kAuto;
  std::map<std::string, std::string> env;  // --env K=V: set or replace these env values
  // true (`run`, burstd): refuse what cannot run yet (a SkyPilot env left null with no --env
  // value). false (validate, plan, convert): note them instead.
  bool for_run = true;
  // What resources.providers may name, in the order messages list them: the registry's names
  // (providers/registry.h, provider_names()), handed in so the spec knows no provider itself.
  std::vector<std::string> providers;
  // --max-runtime: replaces budget.max_runtime (and any default the reader would give it).
  std::optional<double> max_runtime_seconds;
};

// What the reader found besides the spec.
struct SpecReadInfo {
  std::string format = "burst";    // "burst" | "skypilot": what the file was read as
  std::vector<std::string> notes;  // "file:line:col: field: note": read but not used, or assumed
  int nodes = 1;                   // SkyPilot's num_nodes: resources.workers when > 1
};

// load_spec_file / parse_spec (burst/spec.h) with options; `info` may be null.
Result<PipelineSpec> load_spec_file(const std::string& path, std::vector<SpecError>* errors,
                                    const SpecLoadOptions& options, SpecReadInfo* info);
Result<PipelineSpec> parse_spec(const std::string& yaml_text, const std::string& path,
                                std::vector<SpecError>* errors, const SpecLoadOptions& options,
                                SpecReadInfo* info);

// `spec` as a burst spec file (YAML) that parse_spec reads back to the same values, local paths
// relative to spec.dir; `info`'s format and notes become comments. For `burst convert`.
std::string write_spec_yaml(const PipelineSpec& spec, const SpecReadInfo& info);

}  // namespace burst
