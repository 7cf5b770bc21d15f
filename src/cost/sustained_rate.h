// The tensor rate a card sustains, as opposed to the rate its datasheet gives at the boost clock.
// A card whose power limit is below what its tensor units draw at the boost clock lowers its
// clock under continuous matrix work (power capping), and holds a fraction of its listed rate.
// Only cards with a published sustained measurement are listed; every other card holds its
// datasheet rate. Every figure: docs/cost-model.md, "Sustained tensor rate".
#pragma once

#include "burst/gpu_catalog.h"

namespace burst::cost {

// The share (0, 1] of `gpu`'s catalog tensor rate it sustains under continuous matrix work.
double sustained_tensor_fraction(const GpuSpec& gpu);

}  // namespace burst::cost
