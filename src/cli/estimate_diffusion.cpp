#include "cli/estimate_diffusion.h"

#include <cstdio>
#include <optional>
#include <string>

#include "burst/cost_model.h"

namespace burst {
namespace {

// The pipeline's parts (diffusion_memory_parts), at the precision estimate prices (fp16 unset);
// none without a resolution or audio seconds, where the parts are not counted.
std::optional<DiffusionMemoryParts> parts_of(const Workload& w, double params_b) {
  if (!w.resolution && !w.audio_seconds) return std::nullopt;
  auto bpp = bytes_per_param(w.precision.empty() ? "fp16" : w.precision);
  if (!bpp) return std::nullopt;
  auto p = diffusion_memory_parts(w, params_b * 1e9, *bpp);
  if (!p) return std::nullopt;
  return *p;
}

// The attention kernel a video workload is priced with (unset: fa2, cost/attention_rate.h).
std::string attention_kernel_of(const Workload& w) {
  return w.attention_kernel.empty() ? "fa2" : w.attention_kernel;
}

}  // namespace

void add_diffusion_json(const Workload& w, double params_b, nlohmann::json* out) {
  // The work of one denoising pass, from the architecture (docs/cost-model.md, "diffusion").
  if (auto d = diffusion_work_of(w, params_b * 1e9); d.ok())
    (*out)["diffusion"] = {{"architecture", d->architecture},
                           {"latent_tokens", d->latent_tokens},
                           {"flops_per_pass", d->flops_per_pass},
                           {"passes", d->passes},
                           {"calls_per_step", d->calls},
                           {"decode_flops", d->decode_flops},
                           {"attention_flops_per_pass", d->attention_flops_per_pass},
                           {"attention_kernel", attention_kernel_of(w)}};
  // The parts its peak memory counts (docs/cost-model.md, "Diffusion memory").
  if (auto p = parts_of(w, params_b))
    (*out)["diffusion_memory"] = {{"offload", p->offload},
                                  {"denoiser_gib", p->denoiser_gib},
                                  {"experts", p->experts},
                                  {"encoders_gib", p->encoders_gib},
                                  {"vae_gib", p->vae_gib},
                                  {"block_gib", p->block_gib},
                                  {"activations_gib", p->activations_gib}};
}

void print_diffusion(const Workload& w, double params_b) {
  // What one pass denoises, defaults resolved (the model's size, frames and guidance).
  if (auto d = diffusion_work_of(w, params_b * 1e9); d.ok()) {
    std::string size;
    if (w.audio_seconds) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g s of audio", *w.audio_seconds);
      size = seconds;
    } else if (w.resolution) {
      size = std::to_string(*w.resolution) + "x" + std::to_string(w.height.value_or(*w.resolution));
      if (w.frames) size += ", " + std::to_string(*w.frames) + " frames";
    }
    const long steps = w.steps.value_or(1);
    // A video's or an image DiT's attention kernel sets its rate on Hopper cards
    // (cost/attention_rate.h).
    const bool kernel_priced = w.frames || (d->architecture == "dit" && w.resolution);
    const std::string kernel = kernel_priced ? ", attention " + attention_kernel_of(w) : "";
    std::printf(
        "diffusion: %s%s%s, %ld step%s, %.0f latent tokens a pass, %d pass%s a step in %d "
        "call%s%s\n",
        d->architecture.c_str(), size.empty() ? "" : ", ", size.c_str(), steps,
        steps == 1 ? "" : "s", d->latent_tokens, d->passes, d->passes == 1 ? "" : "es", d->calls,
        d->calls == 1 ? "" : "s", kernel.c_str());
  }
  // What the peak holds: the pipeline's parts and the offload that decides which share the card.
  if (auto p = parts_of(w, params_b)) {
    const std::string experts =
        p->experts > 1 ? " x " + std::to_string(p->experts) + " experts" : "";
    std::printf(
        "pipeline: denoiser %.1f GiB%s, text encoders %.1f GiB, VAE %.1f GiB, activations %.1f "
        "GiB; offload %s%s\n",
        p->denoiser_gib, experts.c_str(), p->encoders_gib, p->vae_gib, p->activations_gib,
        p->offload.c_str(),
        p->offload == "none"    ? " (--offload model holds one component at a time)"
        : p->offload == "model" ? " (each part copied to the card once a round)"
                                : " (the denoiser copied to the card every call: slow)");
  }
}

}  // namespace burst
