// The L2 cache of the cards a published source gives it for, and whether a UNet's activation roof
// applies on a card. A UNet's step carries a roof beside its weights, tensor work and floor,
// `kUnetActivationBytesPerPosition x positions / bandwidth` (cost_internal.h), fitted on cards
// whose L2 is 40 MB or less (A100, V100, GA102). A card whose L2 is 64 MB or more (Ada's and
// Blackwell's large GeForce dies) runs a UNet at its tensor rate instead: the fit set's RTX 4090
// and 4080 rows (bench/README.md, "A UNet's activation roof off on cards with a 64 MB L2"). Every
// size and its source: docs/cost-model.md, "diffusion".
#pragma once

#include <optional>

#include "burst/gpu_catalog.h"

namespace burst::cost {

// `gpu`'s L2 cache in MiB; nullopt where no source is listed for it.
std::optional<double> l2_cache_mib(const GpuSpec& gpu);

// Whether a UNet's activation roof applies on `gpu`: false for a listed L2 of 64 MiB or more;
// true for any other card, listed or not.
bool unet_activation_roof_applies(const GpuSpec& gpu);

}  // namespace burst::cost
