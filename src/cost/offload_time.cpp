// The time a diffusion pipeline's offload spends copying weights to the card (docs/cost-model.md,
// "Offload's transfer time"; the rule: bench/README.md, "Offload's transfer time: the rule").
// `sequential` (accelerate's hooks: a module comes to the card for its forward and leaves after
// it): every denoiser call brings the denoiser's weights, one expert's when it alternates; the
// encoders and the VAE once a round. `model`: each component once a round, every expert of an
// alternating denoiser. `none`: nothing moves.
#include <string>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst::cost {

OffloadCopies offload_copies(const Workload& w, double params) {
  OffloadCopies c;
  if (w.kind != "diffusion" || w.offload.empty() || w.offload == "none") return c;
  if (!w.resolution && !w.audio_seconds) return c;
  auto bpp = bytes_per_param(effective_precision(w));
  if (!bpp) return c;
  auto p = diffusion_memory_parts(w, params, *bpp);
  if (!p) return c;
  const double others_gib = p->encoders_gib + p->vae_gib;
  const double s_per_gib = kGiB / kOffloadHostToDeviceBps;
  if (w.offload == "sequential") {
    c.per_call_s = p->denoiser_gib * s_per_gib;
    c.per_round_s = others_gib * s_per_gib;
  } else {
    c.per_round_s = (p->denoiser_gib * p->experts + others_gib) * s_per_gib;
  }
  return c;
}

}  // namespace burst::cost
