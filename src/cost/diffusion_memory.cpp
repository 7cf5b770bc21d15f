// A diffusion pipeline's peak memory on one card, from its parts by phase (docs/cost-model.md,
// "Diffusion memory"; bench/README.md, "Diffusion peak memory"). Encode holds the text
// encoders, denoise the denoiser and its activations, decode the VAE. `none` keeps every
// component on the card through every phase, `model` one phase's at a time, `sequential` streams
// weights a module at a time (one block of the denoiser). Nothing here is fitted: the parts are
// cited (pipeline_components.cpp) and the activations are the allowance a parameter they always
// were; a constant fitted on published peaks refused runs measured on their cards ("scored, and
// the form not kept").
#include <algorithm>
#include <string>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst {
namespace cost {
namespace {

// The batch, 1 when unset, never more than the items: 4 items at batch 8 are one batch of 4.
double batch_of(const Workload& w) {
  const double batch = w.batch && *w.batch > 0 ? static_cast<double>(*w.batch) : 1.0;
  return w.items && *w.items > 0 ? std::min(batch, static_cast<double>(*w.items)) : batch;
}

}  // namespace
}  // namespace cost

Result<DiffusionMemoryParts> diffusion_memory_parts(const Workload& w, double params, double bpp) {
  using namespace cost;
  if (!w.offload.empty() && w.offload != "none" && w.offload != "model" &&
      w.offload != "sequential")
    return make_error(ErrorCode::kInvalid, "workload.offload \"" + w.offload +
                                               "\" is not one of none, model, sequential");
  const DiffusionShape* shape = find_diffusion_model(w.model);
  const PipelineComponents* parts = shape ? pipeline_components(shape->name) : nullptr;
  const Shape s = shape_of(w, params);
  DiffusionMemoryParts p;
  p.offload = w.offload.empty() ? "none" : w.offload;
  p.denoiser_gib = bpp * params / kGiB;
  p.experts = parts ? std::max(1, parts->experts) : 1;
  p.encoders_gib = parts ? 2.0 * parts->encoders_b * 1e9 / kGiB : 0;
  p.vae_gib = parts ? 2.0 * parts->vae_b * 1e9 / kGiB : 0;
  p.block_gib = p.denoiser_gib / std::max(1.0, s.layers);
  p.activations_gib = kDiffusionActivationBytesPerParam * params * batch_of(w) / kGiB;
  return p;
}

namespace cost {

MemoryBreakdown denoiser_traffic(const Workload& w, double params, double bpp) {
  MemoryBreakdown m;
  m.weights_gib = bpp * params / kGiB;
  m.activations_gib = kDiffusionActivationBytesPerParam * params * batch_of(w) / kGiB;
  return m;
}

MemoryBreakdown diffusion_peak(const DiffusionMemoryParts& p) {
  MemoryBreakdown m;
  m.activations_gib = p.activations_gib;
  if (p.offload == "model") {
    // The largest phase: each component comes to the card for its phase and leaves after it (an
    // alternating denoiser's experts one at a time, as Wan 2.2's --offload_model).
    const double denoise = p.denoiser_gib + m.activations_gib;
    if (std::max(p.encoders_gib, p.vae_gib) > denoise) {
      m.weights_gib = std::max(p.encoders_gib, p.vae_gib);
      m.activations_gib = 0;
    } else {
      m.weights_gib = p.denoiser_gib;
    }
    return m;
  }
  m.weights_gib = p.offload == "sequential"
                      ? p.block_gib
                      : p.denoiser_gib * p.experts + p.encoders_gib + p.vae_gib;
  return m;
}

Result<MemoryBreakdown> diffusion_memory(const Workload& w, double params, double bpp) {
  if (!w.resolution && !w.audio_seconds) return denoiser_traffic(w, params, bpp);
  auto parts = diffusion_memory_parts(w, params, bpp);
  if (!parts) return parts.error();
  return diffusion_peak(*parts);
}

}  // namespace cost
}  // namespace burst
