// What `burst estimate` says of a diffusion workload beside its table: the work of one denoising
// pass and what its peak memory holds (docs/cost-model.md, "diffusion" and "Diffusion memory"),
// as the --json keys "diffusion" and "diffusion_memory" and as the text lines "diffusion:" and
// "pipeline:". `w` is the shaped workload, `params_b` its denoiser's billions of parameters.
#pragma once

#include <nlohmann/json.hpp>

#include "burst/spec.h"

namespace burst {

// Adds "diffusion" and, where the pipeline has a resolution or audio seconds, "diffusion_memory".
void add_diffusion_json(const Workload& w, double params_b, nlohmann::json* out);

// Prints the "diffusion:" and "pipeline:" lines.
void print_diffusion(const Workload& w, double params_b);

}  // namespace burst
