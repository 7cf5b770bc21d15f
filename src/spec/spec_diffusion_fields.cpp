#include "spec/spec_diffusion_fields.h"

#include <optional>
#include <string>
#include <string_view>

namespace burst::spec {
namespace {

using namespace burst::yaml;

constexpr std::string_view kArchitectures[] = {"unet", "dit", "flow-tts"};
// What cost/attention_rate.h prices: flash-attn 2.x (and SDPA's flash backend), FlashAttention 3.
constexpr std::string_view kAttentionKernels[] = {"fa2", "fa3"};
// What cost/diffusion_memory.cpp prices: every component on the card, one at a time, or streamed.
constexpr std::string_view kOffloads[] = {"none", "model", "sequential"};

// workload.resolution: a side (1024, read as any integer field is) or width x height
// ("1280x720").
void parse_resolution(Fields& w, Workload& out) {
  std::optional<Node> node = w.get("resolution");
  if (!node) return;
  if (!node->is_scalar() || node->scalar().find_first_of("xX") == std::string::npos) {
    out.resolution = w.integer("resolution", kMinImageSide, kMaxImageSide);
    return;
  }
  Result<ImageSize> size = parse_image_size(node->scalar());
  if (!size) {
    w.problems().add(pos_of(*node), w.path_of("resolution"), size.error().message);
    return;
  }
  out.resolution = size->width;
  out.height = size->height;
}

// workload.sequence_parallel: one item's tokens over N cards, for a transformer denoiser only (a
// UNet's convolutions and F5-TTS's code have no such split). A model's own architecture is
// checked by the cost model, which knows the model table.
void parse_sequence_parallel(Fields& w, Workload& out) {
  constexpr long kMostGpus = 1024;  // the cost model's kMaxGpus: the widest job it sizes
  out.sequence_parallel = w.integer("sequence_parallel", 1, kMostGpus);
  if (!out.sequence_parallel) return;
  const Node node = *w.get("sequence_parallel");
  out.sequence_parallel_pos = pos_of(node);
  if (!out.kind.empty() && out.kind != "diffusion") {
    w.problems().add(pos_of(node), w.path_of("sequence_parallel"),
                     "only applies to workload kind diffusion (llm-inference splits a model with "
                     "tensor_parallel)");
    out.sequence_parallel.reset();
  } else if (!out.architecture.empty() && out.architecture != "dit") {
    w.problems().add(pos_of(node), w.path_of("sequence_parallel"),
                     "splits a transformer denoiser's tokens: architecture " + out.architecture +
                         " has no such split (give architecture dit, or leave it out)");
    out.sequence_parallel.reset();
  }
}

// workload.cfg_parallel: guidance's two passes on two halves of a sequence_parallel group. That
// the denoiser runs two passes a step is checked by the cost model, which knows the model table.
void parse_cfg_parallel(Fields& w, Workload& out) {
  out.cfg_parallel = w.boolean("cfg_parallel");
  if (!out.cfg_parallel || !*out.cfg_parallel) return;
  const Node node = *w.get("cfg_parallel");
  out.cfg_parallel_pos = pos_of(node);
  if (!w.get("sequence_parallel")) {
    w.problems().add(pos_of(node), w.path_of("cfg_parallel"),
                     "needs sequence_parallel: guidance's two passes run on two halves of a "
                     "sequence_parallel group (sequence_parallel: 2 runs one pass a card)");
    out.cfg_parallel.reset();
  } else if (out.sequence_parallel && *out.sequence_parallel % 2 != 0) {
    w.problems().add(pos_of(node), w.path_of("cfg_parallel"),
                     "needs an even sequence_parallel, two halves of the group (got " +
                         std::to_string(*out.sequence_parallel) + ")");
    out.cfg_parallel.reset();
  }
}

}  // namespace

void parse_diffusion_fields(Fields& w, Workload& out) {
  out.architecture = w.one_of("architecture", kArchitectures).value_or("");
  parse_resolution(w, out);
  out.frames = w.integer("frames", 1, 100000);
  if (std::optional<Node> node = w.get("frames")) out.frames_pos = pos_of(*node);
  out.audio_seconds = w.positive_number("audio_seconds");
  out.guidance = w.non_negative_number("guidance");
  out.guidance_batched = w.boolean("guidance_batched");
  out.attention_kernel = w.one_of("attention_kernel", kAttentionKernels).value_or("");
  out.offload = w.one_of("offload", kOffloads).value_or("");
  if (!out.offload.empty() && !out.kind.empty() && out.kind != "diffusion") {
    w.problems().add(pos_of(*w.get("offload")), w.path_of("offload"),
                     "only applies to workload kind diffusion (what a pipeline keeps on the card)");
    out.offload.clear();
  }
  parse_sequence_parallel(w, out);
  parse_cfg_parallel(w, out);
}

}  // namespace burst::spec
