// The workload's training fields in the spec (src/spec/spec_training.cpp): gradient_checkpointing,
// lora_rank and lora_targets, each bad value reported at its file, line and column.
#include "spec/spec_training.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "burst/spec.h"
#include "registry.h"

namespace burst {
namespace {

std::vector<std::string> training_spec_errors(const std::string& workload) {
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = parse_spec("name: x\nrun: echo hi\nworkload:\n" + workload, "p.yaml",
                                         &errors, provider_names());
  std::vector<std::string> out;
  for (const SpecError& e : errors) out.push_back(e.text);
  EXPECT_EQ(spec.ok(), out.empty());
  return out;
}

TEST(SpecTraining, ReadsTheLoraTargets) {
  std::vector<SpecError> errors;
  auto spec = parse_spec(
      "name: x\nrun: echo hi\nworkload:\n  kind: llm-training\n  mode: qlora\n"
      "  lora_rank: 8\n  lora_targets: [q, v, down]\n  gradient_checkpointing: false\n",
      "p.yaml", &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0].text);
  EXPECT_EQ(spec->workload.lora_targets, (std::vector<std::string>{"q", "v", "down"}));
  EXPECT_EQ(spec->workload.lora_rank, 8);
  EXPECT_EQ(spec->workload.gradient_checkpointing, false);
}

TEST(SpecTraining, BadValuesNameTheirLineAndColumn) {
  EXPECT_EQ(training_spec_errors("  kind: llm-training\n  mode: lora\n  lora_rank: 0\n"
                                 "  lora_targets: [q, wq]\n  gradient_checkpointing: maybe\n"),
            (std::vector<std::string>{
                "p.yaml:6:14: workload.lora_rank: must be at least 1, got 0",
                "p.yaml:7:21: workload.lora_targets[1]: must be one of q, k, v, o, gate, up, "
                "down; got \"wq\"",
                "p.yaml:8:27: workload.gradient_checkpointing: expected true or false, got "
                "\"maybe\""}));
  EXPECT_EQ(training_spec_errors("  kind: llm-training\n  mode: lora\n  lora_targets: []\n"),
            (std::vector<std::string>{"p.yaml:6:17: workload.lora_targets: expected a non-empty "
                                      "list of q, k, v, o, gate, up, down"}));
}

TEST(SpecTraining, LoraFieldsOnlyForLoraAndCheckpointingOnlyForTraining) {
  EXPECT_EQ(training_spec_errors("  kind: llm-training\n  lora_rank: 8\n"),
            (std::vector<std::string>{"p.yaml:5:14: workload.lora_rank: only applies to mode "
                                      "lora or qlora (mode is full by default)"}));
  EXPECT_EQ(training_spec_errors("  kind: llm-training\n  mode: dora\n  lora_rank: 8\n"),
            (std::vector<std::string>{
                "p.yaml:5:9: workload.mode: must be one of full, lora, qlora; got \"dora\""}));
  EXPECT_EQ(training_spec_errors("  kind: diffusion\n  params_b: 1\n"
                                 "  gradient_checkpointing: true\n  lora_targets: [q]\n"),
            (std::vector<std::string>{
                "p.yaml:6:27: workload.gradient_checkpointing: only applies to workload kind "
                "llm-training",
                "p.yaml:7:17: workload.lora_targets: only applies to workload kind "
                "llm-training"}));
}

// docs/pipeline-spec.md's workload table has a row for every field the parser accepts, and no
// row for a field it does not.
TEST(SpecTraining, PipelineSpecDocumentsEveryWorkloadField) {
  std::ifstream f(std::string(BURST_SOURCE_DIR) + "/docs/pipeline-spec.md");
  std::stringstream text;
  text << f.rdbuf();
  const std::string doc = text.str();
  const size_t begin = doc.find("\n## workload\n");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("\n## ", begin + 1);
  const std::string section = doc.substr(begin, end - begin);
  std::set<std::string> documented;
  const std::regex row("\n\\| `([a-z_]+)` \\|");
  for (std::sregex_iterator it(section.begin(), section.end(), row), last; it != last; ++it)
    documented.insert((*it)[1]);
  std::set<std::string> accepted;
  for (std::string_view name : spec::workload_field_names()) accepted.emplace(name);
  EXPECT_EQ(documented, accepted);
}

}  // namespace
}  // namespace burst
