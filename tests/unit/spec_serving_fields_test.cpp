// The serving layout and routing fields of the workload (docs/pipeline-spec.md):
// tensor_parallel, read for llm-inference, refused where it cannot apply and held against
// resources.gpu_count and gpu_counts; experts and experts_per_token, given together; and
// attention_window with window_layers, and kv_latent; gpu_memory_utilization, a batching engine's
// share. Each bad value is reported at its line and column.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "burst/spec.h"
#include "burst/spec_formats.h"
#include "registry.h"

namespace burst {
namespace {

Result<PipelineSpec> tp_spec(const std::string& tail, std::vector<std::string>* errors) {
  std::vector<SpecError> found;
  Result<PipelineSpec> spec =
      parse_spec("name: x\nrun: echo hi\nworkload:\n  kind: llm-inference\n" + tail, "p.yaml",
                 &found, provider_names());
  for (const SpecError& e : found) errors->push_back(e.text);
  return spec;
}

TEST(SpecServingFields, TensorParallelRaisesTheDefaultGpuCountAndReadsBackFromTheWriter) {
  std::vector<std::string> errors;
  auto spec = tp_spec("  model: llama-3.1-70b\n  engine: vllm\n  tensor_parallel: 4\n", &errors);
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0]);
  EXPECT_EQ(spec->workload.tensor_parallel, 4);
  EXPECT_EQ(spec->resources.gpu_count, 4);  // each pod holds one copy at the least
  spec = tp_spec("  tensor_parallel: 2\nresources:\n  gpu_count: 8\n", &errors);
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0]);
  EXPECT_EQ(spec->resources.gpu_count, 8);
  const std::string yaml = write_spec_yaml(*spec, SpecReadInfo{});
  EXPECT_NE(yaml.find("tensor_parallel: 2"), std::string::npos) << yaml;
  std::vector<SpecError> found;
  auto read = parse_spec(yaml, "w.yaml", &found, provider_names());
  ASSERT_TRUE(read.ok()) << yaml;
  EXPECT_EQ(read->workload.tensor_parallel, 2);
  EXPECT_EQ(read->resources.gpu_count, 8);
}

TEST(SpecServingFields, TensorParallelWhatCannotRunItIsAnErrorAtItsLineAndColumn) {
  std::vector<std::string> errors;
  EXPECT_FALSE(tp_spec("  tensor_parallel: 4\nresources:\n  gpu_count: 2\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:7:14: resources.gpu_count: 2 is fewer than "
                        "workload.tensor_parallel (4): each copy of the model spans that many "
                        "GPUs"}));
  errors.clear();
  EXPECT_FALSE(
      tp_spec("  tensor_parallel: 4\nresources:\n  gpu_counts: {H100_SXM: 8, A100_80GB: 2}\n",
              &errors)
          .ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:7:40: resources.gpu_counts.A100_80GB: 2 is fewer than "
                        "workload.tensor_parallel (4): each copy of the model spans that many "
                        "GPUs"}));
  errors.clear();
  // A gpu_count that does not read is reported once, for what it is.
  EXPECT_FALSE(tp_spec("  tensor_parallel: 4\nresources:\n  gpu_count: many\n", &errors).ok());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("p.yaml:7:14: resources.gpu_count: ", 0), 0u) << errors[0];
  EXPECT_EQ(errors[0].find("tensor_parallel"), std::string::npos) << errors[0];
  errors.clear();
  EXPECT_FALSE(tp_spec("  engine: llama.cpp\n  tensor_parallel: 2\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:6:20: workload.tensor_parallel: llama.cpp splits a model across "
                        "cards by layers, not tensors; give resources.gpu_count instead"}));
  errors.clear();
  EXPECT_FALSE(tp_spec("  tensor_parallel: 0\n", &errors).ok());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("p.yaml:5:20: workload.tensor_parallel: must be at least 1", 0), 0u)
      << errors[0];
  errors.clear();
  std::vector<SpecError> found;
  EXPECT_FALSE(parse_spec("name: x\nrun: echo hi\nworkload:\n  kind: diffusion\n"
                          "  tensor_parallel: 2\n",
                          "p.yaml", &found, provider_names())
                   .ok());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].text,
            "p.yaml:5:20: workload.tensor_parallel: only applies to workload kind llm-inference");
}

TEST(SpecServingFields, ExpertsAndExpertsPerTokenComeTogetherAndFitEachOther) {
  std::vector<std::string> errors;
  auto spec = tp_spec(
      "  params_b: 46.7\n  active_params_b: 12.9\n  experts: 8\n"
      "  experts_per_token: 2\n",
      &errors);
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0]);
  EXPECT_EQ(spec->workload.experts, 8);
  EXPECT_EQ(spec->workload.experts_per_token, 2);
  const std::string yaml = write_spec_yaml(*spec, SpecReadInfo{});
  EXPECT_NE(yaml.find("experts_per_token: 2"), std::string::npos) << yaml;
  EXPECT_FALSE(tp_spec("  active_params_b: 12.9\n  experts: 8\n", &errors).ok());
  EXPECT_EQ(
      errors,
      (std::vector<std::string>{"p.yaml:6:12: workload.experts: give experts_per_token with it"}));
  errors.clear();
  EXPECT_FALSE(
      tp_spec("  active_params_b: 12.9\n  experts: 8\n  experts_per_token: 9\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:7:22: workload.experts_per_token: is more than experts (8)"}));
  errors.clear();
  EXPECT_FALSE(tp_spec("  params_b: 46.7\n  experts: 8\n  experts_per_token: 2\n", &errors).ok());
  EXPECT_EQ(errors,
            (std::vector<std::string>{"p.yaml:6:12: workload.experts: needs active_params_b (or a "
                                      "model) to tell the experts' weights from the shared ones"}));
}

TEST(SpecServingFields, AttentionWindowAndWindowLayersComeTogetherAndFitTheLayers) {
  std::vector<std::string> errors;
  auto spec = tp_spec(
      "  model: gemma-3-27b\n  attention_window: 4096\n  window_layers: 31\n"
      "  kv_latent: 576\n",
      &errors);
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0]);
  EXPECT_EQ(spec->workload.attention_window, 4096);
  EXPECT_EQ(spec->workload.window_layers, 31);
  const std::string yaml = write_spec_yaml(*spec, SpecReadInfo{});
  EXPECT_NE(yaml.find("attention_window: 4096"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("window_layers: 31"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("kv_latent: 576"), std::string::npos) << yaml;
  EXPECT_FALSE(tp_spec("  attention_window: 1024\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:5:21: workload.attention_window: give window_layers with it"}));
  errors.clear();
  EXPECT_FALSE(tp_spec("  window_layers: 4\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:5:18: workload.window_layers: give attention_window with it"}));
  errors.clear();
  EXPECT_FALSE(
      tp_spec("  layers: 32\n  attention_window: 1024\n  window_layers: 40\n", &errors).ok());
  EXPECT_EQ(
      errors,
      (std::vector<std::string>{"p.yaml:7:18: workload.window_layers: is more than layers (32)"}));
}

TEST(SpecServingFields, GpuMemoryUtilizationIsABatchingEnginesShareReadBackFromTheWriter) {
  std::vector<std::string> errors;
  auto spec =
      tp_spec("  model: llama-3.1-8b\n  engine: vllm\n  gpu_memory_utilization: 0.95\n", &errors);
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0]);
  EXPECT_EQ(spec->workload.gpu_memory_utilization, 0.95);
  const std::string yaml = write_spec_yaml(*spec, SpecReadInfo{});
  std::vector<SpecError> found;
  auto read = parse_spec(yaml, "w.yaml", &found, provider_names());
  ASSERT_TRUE(read.ok()) << yaml;
  EXPECT_EQ(read->workload.gpu_memory_utilization, 0.95);

  EXPECT_FALSE(tp_spec("  engine: llama.cpp\n  gpu_memory_utilization: 0.8\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:6:27: workload.gpu_memory_utilization: is the share a batching "
                        "engine reserves: set workload.engine to vllm, sglang or tensorrt-llm"}));
  errors.clear();
  EXPECT_FALSE(tp_spec("  engine: sglang\n  gpu_memory_utilization: 1.2\n", &errors).ok());
  EXPECT_EQ(errors,
            (std::vector<std::string>{"p.yaml:6:27: workload.gpu_memory_utilization: is "
                                      "a share of the card's memory: at most 1 (got 1.2)"}));
  errors.clear();
  EXPECT_FALSE(tp_spec("  engine: vllm\n  gpu_memory_utilization: 0\n", &errors).ok());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("p.yaml:6:27: workload.gpu_memory_utilization: ", 0), 0u) << errors[0];
}

TEST(SpecServingFields, MaxNumSeqsIsABatchingEnginesCapReadBackFromTheWriter) {
  std::vector<std::string> errors;
  auto spec = tp_spec("  model: llama-3.1-8b\n  engine: vllm\n  max_num_seqs: 1024\n", &errors);
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0]);
  EXPECT_EQ(spec->workload.max_num_seqs, 1024);
  const std::string yaml = write_spec_yaml(*spec, SpecReadInfo{});
  std::vector<SpecError> found;
  auto read = parse_spec(yaml, "w.yaml", &found, provider_names());
  ASSERT_TRUE(read.ok()) << yaml;
  EXPECT_EQ(read->workload.max_num_seqs, 1024);

  EXPECT_FALSE(tp_spec("  engine: llama.cpp\n  max_num_seqs: 8\n", &errors).ok());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "p.yaml:6:17: workload.max_num_seqs: is a batching engine's cap on "
                        "sequences at once: set workload.engine to vllm, sglang or tensorrt-llm"}));
  errors.clear();
  EXPECT_FALSE(tp_spec("  engine: sglang\n  max_num_seqs: 0\n", &errors).ok());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("p.yaml:6:17: workload.max_num_seqs: ", 0), 0u) << errors[0];
}

}  // namespace
}  // namespace burst
