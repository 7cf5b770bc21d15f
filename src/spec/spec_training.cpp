#include "spec/spec_training.h"

#include <climits>
#include <string>
#include <string_view>

namespace burst::spec {
namespace {

using namespace burst::yaml;

// The decoder-layer projections LoRA adapters can target (src/cost/training_memory.h).
constexpr std::string_view kLoraTargetNames[] = {"q", "k", "v", "o", "gate", "up", "down"};

// Reports `key` when present and `applies` is false.
void refuse_unless(Fields& w, std::string_view key, bool applies, const std::string& why) {
  if (applies) return;
  if (std::optional<Node> n = w.get(key)) w.problems().add(pos_of(*n), w.path_of(key), why);
}

}  // namespace

// Every field the workload section accepts; docs/pipeline-spec.md documents each (a test checks).
constexpr std::string_view kWorkloadFields[] = {"kind",
                                                "params_b",
                                                "precision",
                                                "items",
                                                "steps",
                                                "batch",
                                                "concurrency",
                                                "context_tokens",
                                                "tokens",
                                                "mode",
                                                "layers",
                                                "hidden",
                                                "heads",
                                                "kv_heads",
                                                "reference",
                                                "model",
                                                "active_params_b",
                                                "experts",
                                                "experts_per_token",
                                                "attention_window",
                                                "window_layers",
                                                "kv_latent",
                                                "head_dim",
                                                "vocab",
                                                "intermediate",
                                                "tied_embeddings",
                                                "kv_precision",
                                                "engine",  // llm-inference serving engine
                                                "tensor_parallel",
                                                "gpu_memory_utilization",
                                                "max_num_seqs",
                                                "weights_from",  // where the weights are read from
                                                "gradient_checkpointing",
                                                "lora_rank",
                                                "lora_targets",
                                                "architecture",  // diffusion
                                                "resolution",
                                                "frames",
                                                "audio_seconds",
                                                "guidance",
                                                "guidance_batched",
                                                "attention_kernel",
                                                "offload",
                                                "sequence_parallel",
                                                "cfg_parallel",
                                                "items_file"};

std::span<const std::string_view> workload_field_names() { return kWorkloadFields; }

void parse_training_fields(Fields& w, Workload& out) {
  out.gradient_checkpointing = w.boolean("gradient_checkpointing");
  out.lora_rank = w.integer("lora_rank", 1, LONG_MAX);
  if (std::optional<Node> list = w.get("lora_targets")) {
    const std::string path = w.path_of("lora_targets");
    if (!list->is_sequence() || list->size() == 0) {
      w.problems().add(pos_of(*list), path,
                       "expected a non-empty list of q, k, v, o, gate, up, down");
    }
    for (size_t i = 0; list->is_sequence() && i < list->size(); ++i) {
      std::optional<std::string> t = read_one_of((*list)[i], path + "[" + std::to_string(i) + "]",
                                                 kLoraTargetNames, w.problems());
      if (t) out.lora_targets.push_back(*t);
    }
  }
  // Only said for a kind (and mode) we know; a bad or missing one has its own error.
  const bool training = out.kind.empty() || out.kind == "llm-training";
  refuse_unless(w, "gradient_checkpointing", training,
                "only applies to workload kind llm-training");
  const bool mode_unread = w.get("mode").has_value() && out.mode.empty();  // reported already
  const bool lora = out.kind.empty() || mode_unread || out.mode == "lora" || out.mode == "qlora";
  for (std::string_view key : {"lora_rank", "lora_targets"}) {
    refuse_unless(w, key, !training || lora,
                  "only applies to mode lora or qlora (mode is " +
                      (out.mode.empty() ? std::string("full by default") : out.mode) + ")");
    refuse_unless(w, key, training, "only applies to workload kind llm-training");
  }
}

}  // namespace burst::spec
