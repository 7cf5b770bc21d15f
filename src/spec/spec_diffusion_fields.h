// The diffusion fields of the workload section: the denoiser's architecture, the size it denoises
// (an image's or a video frame's resolution, a video's frames, seconds of audio) and guidance
// (docs/pipeline-spec.md). Internal to src/spec/.
#pragma once

#include "burst/spec.h"
#include "yaml/yaml_fields.h"

namespace burst::spec {

// Reads them into `out`, reporting each bad value at its line and column.
void parse_diffusion_fields(burst::yaml::Fields& w, Workload& out);

}  // namespace burst::spec
