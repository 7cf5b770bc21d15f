// The llm-training fields of the workload section that depend on each other: gradient
// checkpointing (training only) and the LoRA adapters' rank and targets (mode lora or qlora).
// Internal to src/spec/.
#pragma once

#include <span>
#include <string_view>

#include "burst/spec.h"
#include "yaml/yaml_fields.h"

namespace burst::spec {

// Every field the workload section accepts (tests check docs/pipeline-spec.md lists each one).
std::span<const std::string_view> workload_field_names();

// Reads gradient_checkpointing, lora_rank and lora_targets into `out` (whose kind and mode are
// already read), reporting each bad value at its line and column.
void parse_training_fields(burst::yaml::Fields& w, Workload& out);

}  // namespace burst::spec
