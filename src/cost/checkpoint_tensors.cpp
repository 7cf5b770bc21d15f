// A mixture of experts' checkpoint as a loader walks it: how many routed-expert tensors it holds
// (burst/cost_model.h, checkpoint_expert_tensors; docs/cost-model.md, "Weight load").
#include <string>

#include "burst/cost_model.h"

namespace burst {

namespace {
// Gate, up and down (Mixtral's w1, w3, w2): the projections each routed expert stores.
constexpr long kExpertProjections = 3;

// A quantized checkpoint stores a scale tensor beside each weight (DeepSeek V3's and
// Qwen3-30B-A3B-FP8's `weight_scale_inv`; compressed-tensors' `weight_scale`): 91,991 tensors in
// DeepSeek-R1 against about 46,000 expert weights (bench/validation/moe_search.md, "Checkpoint
// layouts"). GPTQ's int4 stores more (zeros too); two is the floor.
bool quantized(const std::string& precision) {
  return precision == "fp8" || precision == "int8" || precision == "int4";
}
}  // namespace

long checkpoint_expert_tensors(const Workload& w) {
  if (!w.experts || *w.experts <= 0 || !w.layers || *w.layers <= 0) return 0;
  if (!w.model.empty())
    if (const ModelShape* m = find_model(w.model); m && m->experts_fused) return 0;
  return *w.layers * *w.experts * kExpertProjections * (quantized(w.precision) ? 2 : 1);
}

}  // namespace burst
