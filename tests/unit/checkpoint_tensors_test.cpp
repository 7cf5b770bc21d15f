// A mixture of experts' checkpoint as a loader walks it (burst/cost_model.h,
// checkpoint_expert_tensors; docs/cost-model.md "Weight load"): the routed experts' tensors of
// the models whose checkpoints store one tensor an expert, none for fused experts or a dense
// model. Counted for the validation's rows; no load prices them (a form tried and not kept).
#include <gtest/gtest.h>

#include <string>

#include "burst/cost_model.h"

namespace burst {
namespace {

long tensors_of(const std::string& model, const std::string& precision = "") {
  Workload w;
  w.kind = "llm-inference";
  w.model = model;
  w.precision = precision;
  auto shaped = with_model_shape(w);
  EXPECT_TRUE(shaped.ok()) << model;
  return shaped.ok() ? checkpoint_expert_tensors(*shaped) : -1;
}

TEST(CheckpointTensors, CountsOneTensorAnExpertAndProjection) {
  // Qwen3-30B-A3B: 48 layers x 128 experts x gate, up, down (18,432; a scan of the bf16
  // checkpoint holds 18,867 tensors in all, bench/validation/moe_search.md).
  EXPECT_EQ(tensors_of("qwen3-30b-a3b", "bf16"), 48 * 128 * 3);
  // Mixtral 8x7B: 32 layers x 8 experts x w1, w2, w3.
  EXPECT_EQ(tensors_of("mixtral-8x7b"), 32 * 8 * 3);
}

TEST(CheckpointTensors, AQuantizedCheckpointCarriesAScaleBesideEachWeight) {
  EXPECT_EQ(tensors_of("qwen3-30b-a3b", "fp8"), 2 * tensors_of("qwen3-30b-a3b", "bf16"));
  // DeepSeek V3 is published in fp8 (weight_scale_inv beside each weight): 61 x 256 x 3 x 2.
  EXPECT_EQ(tensors_of("deepseek-v3"), 61 * 256 * 3 * 2);
}

TEST(CheckpointTensors, FusedExpertsAndDenseModelsCountNone) {
  // gpt-oss (experts.gate_up_proj_blocks) and Llama 4 (experts.gate_up_proj) store a layer's
  // experts in one tensor a projection.
  EXPECT_EQ(tensors_of("gpt-oss-120b", "int4"), 0);
  EXPECT_EQ(tensors_of("llama-4-scout"), 0);
  EXPECT_EQ(tensors_of("llama-4-maverick"), 0);
  // DBRX: ffn.experts.mlp.w1, v1, w2, each one flat tensor of its 16 experts a layer.
  EXPECT_EQ(tensors_of("dbrx"), 0);
  EXPECT_EQ(tensors_of("llama-3-8b"), 0);
  // A spec's own mixture of experts (no built-in name) is counted as the common layout.
  Workload own;
  own.layers = 10;
  own.experts = 16;
  EXPECT_EQ(checkpoint_expert_tensors(own), 10 * 16 * 3);
  own.experts = 0;
  EXPECT_EQ(checkpoint_expert_tensors(own), 0);
}

}  // namespace
}  // namespace burst
