// The built-in table of popular open model shapes (`--model NAME`, `workload.model:`). Facts
// only, each row from the model's published config.json on Hugging Face (the `source` column:
// num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads, head_dim where it is
// not hidden / heads, vocab_size, intermediate_size, tie_word_embeddings) and its model card for
// the parameter counts (total, and active per token for mixture-of-experts models). Every field
// can be overridden in the spec or on the command line.
#include <algorithm>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst {

const std::vector<ModelShape>& model_shapes() {
  // name, params_b, active_params_b, layers, hidden, heads, kv_heads, head_dim, vocab,
  // intermediate, tied embeddings, source[, experts, experts per token]
  static const std::vector<ModelShape> kShapes = {
      {"llama-2-7b", 6.74, 6.74, 32, 4096, 32, 32, 128, 32000, 11008, false,
       "https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json"},
      {"llama-2-13b", 13.0, 13.0, 40, 5120, 40, 40, 128, 32000, 13824, false,
       "https://huggingface.co/meta-llama/Llama-2-13b-hf/blob/main/config.json"},
      {"llama-2-70b", 69.0, 69.0, 80, 8192, 64, 8, 128, 32000, 28672, false,
       "https://huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json"},
      {"llama-3-8b", 8.03, 8.03, 32, 4096, 32, 8, 128, 128256, 14336, false,
       "https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json"},
      {"llama-3-70b", 70.6, 70.6, 80, 8192, 64, 8, 128, 128256, 28672, false,
       "https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json"},
      {"llama-3.1-8b", 8.03, 8.03, 32, 4096, 32, 8, 128, 128256, 14336, false,
       "https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json"},
      {"llama-3.1-70b", 70.6, 70.6, 80, 8192, 64, 8, 128, 128256, 28672, false,
       "https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json"},
      {"llama-3.1-405b", 405.9, 405.9, 126, 16384, 128, 8, 128, 128256, 53248, false,
       "https://huggingface.co/meta-llama/Llama-3.1-405B/blob/main/config.json"},
      {"llama-3.2-1b", 1.24, 1.24, 16, 2048, 32, 8, 64, 128256, 8192, true,
       "https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json"},
      {"llama-3.2-3b", 3.21, 3.21, 28, 3072, 24, 8, 128, 128256, 8192, true,
       "https://huggingface.co/meta-llama/Llama-3.2-3B/blob/main/config.json"},
      {"mistral-7b", 7.24, 7.24, 32, 4096, 32, 8, 128, 32000, 14336, false,
       "https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json"},
      {"mixtral-8x7b", 46.7, 12.9, 32, 4096, 32, 8, 128, 32000, 14336, false,
       "https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json", 8, 2},
      {"mixtral-8x22b", 141.0, 39.0, 56, 6144, 48, 8, 128, 32768, 16384, false,
       "https://huggingface.co/mistralai/Mixtral-8x22B-v0.1/blob/main/config.json", 8, 2},
      {"qwen2.5-0.5b", 0.49, 0.49, 24, 896, 14, 2, 64, 151936, 4864, true,
       "https://huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json"},
      {"qwen2.5-7b", 7.62, 7.62, 28, 3584, 28, 4, 128, 152064, 18944, false,
       "https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json"},
      {"qwen2.5-14b", 14.7, 14.7, 48, 5120, 40, 8, 128, 152064, 13824, false,
       "https://huggingface.co/Qwen/Qwen2.5-14B/blob/main/config.json"},
      {"qwen2.5-32b", 32.8, 32.8, 64, 5120, 40, 8, 128, 152064, 27648, false,
       "https://huggingface.co/Qwen/Qwen2.5-32B/blob/main/config.json"},
      {"qwen2.5-72b", 72.7, 72.7, 80, 8192, 64, 8, 128, 152064, 29568, false,
       "https://huggingface.co/Qwen/Qwen2.5-72B/blob/main/config.json"},
      {"gemma-2-9b", 9.24, 9.24, 42, 3584, 16, 8, 256, 256000, 14336, true,
       "https://huggingface.co/google/gemma-2-9b/blob/main/config.json"},
      {"gemma-2-27b", 27.2, 27.2, 46, 4608, 32, 16, 128, 256000, 36864, true,
       "https://huggingface.co/google/gemma-2-27b/blob/main/config.json"},
      {"phi-3-mini", 3.82, 3.82, 32, 3072, 32, 32, 96, 32064, 8192, false,
       "https://huggingface.co/microsoft/Phi-3-mini-4k-instruct/blob/main/config.json"},
  };
  return kShapes;
}

const ModelShape* find_model(const std::string& name) {
  const auto& shapes = model_shapes();
  auto it = std::find_if(shapes.begin(), shapes.end(),
                         [&](const ModelShape& m) { return name == m.name; });
  return it == shapes.end() ? nullptr : &*it;
}

Result<Workload> with_model_shape(const Workload& w) {
  if (w.model.empty()) return w;
  if (const DiffusionShape* d = find_diffusion_model(w.model)) return with_diffusion_shape(w, *d);
  const ModelShape* m = find_model(w.model);
  if (!m) {
    std::string names;
    for (const ModelShape& s : model_shapes())
      names += (names.empty() ? "" : ", ") + std::string(s.name);
    for (const DiffusionShape& s : diffusion_shapes()) names += ", " + std::string(s.name);
    return make_error(ErrorCode::kInvalid,
                      "unknown model \"" + w.model + "\" (built in: " + names +
                          "; or give params_b, layers, hidden, heads, kv_heads yourself)");
  }
  Workload out = w;
  if (!out.params_b) out.params_b = m->params_b;
  if (!out.active_params_b && m->active_params_b < m->params_b)
    out.active_params_b = m->active_params_b;
  if (!out.layers) out.layers = m->layers;
  if (!out.hidden) out.hidden = m->hidden;
  if (!out.heads) out.heads = m->heads;
  if (!out.kv_heads) out.kv_heads = m->kv_heads;
  if (!out.head_dim) out.head_dim = m->head_dim;
  if (!out.vocab) out.vocab = m->vocab;
  if (!out.intermediate) out.intermediate = m->intermediate;
  if (!out.tied_embeddings) out.tied_embeddings = m->tied_embeddings;
  if (!out.experts && m->experts > 0) out.experts = m->experts;
  if (!out.experts_per_token && m->experts_per_token > 0)
    out.experts_per_token = m->experts_per_token;
  return out;
}

}  // namespace burst
