// What a mixture of experts' decode step reads of its routed experts (workload.experts E,
// experts_per_token k, active_params_b); the experts' bytes stream at kMoeExpertBandwidthShare of
// the decode efficiency (include/burst/cost_model.h; docs/cost-model.md, "llm-inference").
#pragma once

#include <algorithm>

#include "burst/spec.h"

namespace burst::cost {

// Shares of the weights a decode step of `batch` sequences reads: all of a dense model's
// (shared). A mixture of experts reads its shared weights and the experts its tokens pick: with
// top-k routing over E experts, B tokens touch experts_touched(E, k, B) of each layer's on
// average, k at batch 1 (active / total), nearly all E at a large batch. Without E and k,
// active / total at any batch, all of it shared.
struct ReadShares {
  double shared = 1;
  double experts = 0;
  double total() const { return std::min(1.0, shared + experts); }
};
ReadShares read_fraction(const Workload& w, double active, long batch);

}  // namespace burst::cost
