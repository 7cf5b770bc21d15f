// write_spec_yaml (burst/spec_formats.h) writes a spec that reads back to the same values: every
// workload field the cost model reads survives `burst run --print-spec` and `burst convert`, so
// the printed spec plans as the one it came from; so does the prepare step.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "burst/spec.h"
#include "burst/spec_formats.h"

namespace burst {
namespace {

PipelineSpec read_written_spec(const std::string& text) {
  std::vector<SpecError> errors;
  SpecLoadOptions options;
  options.format = SpecFormat::kBurst;
  options.for_run = false;
  options.providers = {"local"};
  auto spec = parse_spec(text, "/tmp/p.yaml", &errors, options, nullptr);
  EXPECT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors.front().text) << "\n"
                         << text;
  return spec.ok() ? *spec : PipelineSpec{};
}

// The spec, written and read back.
Workload written_and_read(const std::string& workload_yaml) {
  const PipelineSpec spec = read_written_spec(
      "name: x\nrun: echo hi\nresources:\n  providers: [local]\nworkload:\n" + workload_yaml);
  const std::string written = write_spec_yaml(spec, SpecReadInfo{});
  return read_written_spec(written).workload;
}

// The prepare step (what it runs, where, what it creates and downloads) reads back too.
TEST(SpecWriter, ThePrepareStepReadsBack) {
  const PipelineSpec spec = read_written_spec(
      "name: x\nrun: echo hi\nimage: python:3.11-slim\nimage_size_gb: 2.5\n"
      "resources:\n  providers: [local]\n"
      "prepare:\n  run: |\n    huggingface-cli download m\n    echo done\n  image: alpine:3\n"
      "  creates: [models/m, cache]\n  download_gb: 16.5\n");
  const PipelineSpec back = read_written_spec(write_spec_yaml(spec, SpecReadInfo{}));
  ASSERT_TRUE(back.prepare.has_value());
  EXPECT_EQ(back.prepare->run, spec.prepare->run);
  EXPECT_EQ(back.prepare->image, "alpine:3");
  EXPECT_EQ(back.prepare->creates, (std::vector<std::string>{"models/m", "cache"}));
  EXPECT_EQ(back.prepare->download_gb, 16.5);
  EXPECT_EQ(back.image_size_gb, 2.5);  // the image pull the cold start prices
  const PipelineSpec plain =
      read_written_spec("name: x\nrun: echo hi\nresources:\n  providers: [local]\n");
  EXPECT_FALSE(read_written_spec(write_spec_yaml(plain, SpecReadInfo{})).prepare.has_value());
}

TEST(SpecWriter, EveryTrainingInputReadsBack) {
  const Workload w = written_and_read(
      "  kind: llm-training\n  model: llama-3-8b\n  params_b: 8.03\n  precision: bf16\n"
      "  tokens: 1000000\n  context_tokens: 2048\n  batch: 4\n  mode: lora\n"
      "  gradient_checkpointing: false\n  lora_rank: 32\n  lora_targets: [q, v]\n"
      "  active_params_b: 8\n  layers: 32\n  hidden: 4096\n  heads: 32\n  kv_heads: 8\n"
      "  head_dim: 128\n  vocab: 128256\n  intermediate: 14336\n  tied_embeddings: true\n"
      "  weights_from: volume\n");
  EXPECT_EQ(w.model, "llama-3-8b");
  EXPECT_EQ(w.params_b, 8.03);
  EXPECT_EQ(w.mode, "lora");
  EXPECT_EQ(w.gradient_checkpointing, false);
  EXPECT_EQ(w.lora_rank, 32);
  EXPECT_EQ(w.lora_targets, (std::vector<std::string>{"q", "v"}));
  EXPECT_EQ(w.active_params_b, 8);
  EXPECT_EQ(w.kv_heads, 8);
  EXPECT_EQ(w.head_dim, 128);
  EXPECT_EQ(w.vocab, 128256);
  EXPECT_EQ(w.intermediate, 14336);
  EXPECT_EQ(w.tied_embeddings, true);
  EXPECT_EQ(w.weights_from, "volume");
}

TEST(SpecWriter, EveryServingInputReadsBack) {
  const Workload w = written_and_read(
      "  kind: llm-inference\n  model: qwen2.5-7b\n  tokens: 500000\n  concurrency: 16\n"
      "  context_tokens: 4096\n  engine: vllm\n  kv_precision: fp8\n  weights_from: hub\n");
  EXPECT_EQ(w.model, "qwen2.5-7b");
  EXPECT_EQ(w.concurrency, 16);
  EXPECT_EQ(w.engine, "vllm");
  EXPECT_EQ(w.kv_precision, "fp8");
  EXPECT_EQ(w.weights_from, "hub");
}

// The example's own workload (examples/tts-render.yaml) lost its architecture, audio seconds and
// guidance here until 2026-11-30, so the printed spec priced another render.
TEST(SpecWriter, EveryDiffusionInputReadsBack) {
  const Workload w = written_and_read(
      "  kind: diffusion\n  architecture: flow-tts\n  params_b: 0.5\n  precision: bf16\n"
      "  items: 300\n  audio_seconds: 40.5\n  steps: 32\n  guidance: 2\n"
      "  guidance_batched: false\n  attention_kernel: fa3\n  offload: model\n  batch: 8\n"
      "  items_file: answers.txt\n");
  EXPECT_EQ(w.architecture, "flow-tts");
  EXPECT_EQ(w.offload, "model");
  EXPECT_EQ(w.attention_kernel, "fa3");
  EXPECT_EQ(w.audio_seconds, 40.5);
  EXPECT_EQ(w.guidance, 2);
  EXPECT_EQ(w.guidance_batched, false);
  EXPECT_EQ(w.items_file, "answers.txt");
  const Workload image =
      written_and_read("  kind: diffusion\n  model: sdxl\n  resolution: 768\n  items: 10\n");
  EXPECT_EQ(image.model, "sdxl");
  EXPECT_EQ(image.resolution, 768);
  EXPECT_FALSE(image.guidance_batched.has_value());  // unset stays unset
  EXPECT_EQ(image.attention_kernel, "");
  EXPECT_EQ(image.offload, "");  // unset stays unset
  EXPECT_FALSE(image.height.has_value());
  const Workload video = written_and_read(
      "  kind: diffusion\n  architecture: dit\n  params_b: 1.3\n  resolution: 832x480\n"
      "  frames: 81\n  items: 4\n");
  EXPECT_EQ(video.resolution, 832);
  EXPECT_EQ(video.height, 480);
  EXPECT_EQ(video.frames, 81);
}

}  // namespace
}  // namespace burst
