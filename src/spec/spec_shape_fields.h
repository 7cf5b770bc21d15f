// The model-shape fields of the workload section that depend on each other: a mixture of experts'
// experts and experts_per_token, local attention's attention_window and window_layers, and latent
// attention's kv_latent (docs/pipeline-spec.md). Internal to src/spec/.
#pragma once

#include "burst/spec.h"
#include "yaml/yaml_fields.h"

namespace burst::spec {

// Reads them into `out` (whose layers, active_params_b and model are already read), reporting
// each bad value, and each field given without its partner, at its line and column.
void parse_shape_fields(burst::yaml::Fields& w, Workload& out);

}  // namespace burst::spec
