// The built-in model shape table (src/cost/model_shapes.cpp, docs/cost-model.md "Model shapes"):
// every row's dimensions add up to its stated parameter counts, so a mistyped dimension cannot
// hide; local attention (sliding windows, chunks) caps the KV cache of the layers that use it;
// latent attention caches one vector a layer; a Hugging Face id names its row.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <utility>

#include "burst/cost_model.h"
#include "burst/spec.h"

namespace burst {
namespace {

// Parameters from a decoder's dimensions: the embeddings (twice when untied), and per layer the
// attention's four projections and the MLP's three, times the experts for a mixture of experts.
struct Counted {
  double total, active;
};
Counted count(const ModelShape& m) {
  const double h = static_cast<double>(m.hidden), q = static_cast<double>(m.heads * m.head_dim),
               kv = static_cast<double>(m.kv_heads * m.head_dim);
  const double embed = static_cast<double>(m.vocab) * h * (m.tied_embeddings ? 1 : 2);
  const double attention = h * q + 2 * h * kv + q * h;
  const double mlp = 3 * h * static_cast<double>(m.intermediate);
  // Llama 4 Scout and Hunyuan-A13B run a shared expert beside their routed ones (maxtext
  // llama4-17b-16e.yml; Hunyuan's num_shared_expert).
  const std::string name = m.name;
  const double shared = name == "llama-4-scout" || name == "hunyuan-a13b" ? 1 : 0;
  const double experts = m.experts > 0 ? static_cast<double>(m.experts) + shared : 1;
  const double used = m.experts > 0 ? static_cast<double>(m.experts_per_token) + shared : 1;
  const double layers = static_cast<double>(m.layers);
  const bool wide_delta_net = name == "qwen3.5-122b-a10b" || name == "qwen3.5-397b-a17b";
  if (name == "qwen3-next-80b-a3b" || name == "qwen3.5-35b-a3b" || wide_delta_net) {
    // Gated DeltaNet layers and gated-attention ones (q twice as wide: query and gate); every
    // layer's experts and a shared one of the same width. The DeltaNet's widths (in_proj_qkvz,
    // in_proj_ba, the 4-wide conv's channels, out_proj's input): 12288, 64, 8192, 4096 with 32
    // value heads; 20480, 128, 12288, 8192 with the larger Qwen3.5s' 64.
    const double qkvz = wide_delta_net ? 20480 : 12288, ba = wide_delta_net ? 128 : 64;
    const double conv = wide_delta_net ? 12288 : 8192, out = wide_delta_net ? 8192 : 4096;
    const double delta_net = h * qkvz + h * ba + conv * 4 + out * h;
    const double gated = attention + h * q;
    const double linear = static_cast<double>(m.window_layers), full = layers - linear;
    const double moe = (experts + 1) * mlp + h * static_cast<double>(m.experts);  // + router
    const double moe_used = (used + 1) * mlp;
    return {embed + linear * delta_net + full * gated + layers * moe,
            embed + linear * delta_net + full * gated + layers * moe_used};
  }
  if (name == "qwen3.5-27b") {
    // Dense: 48 Gated DeltaNet layers at hidden 5120 (in_proj_qkvz -> 16384, in_proj_ba -> 96,
    // conv 10240 x 4, out_proj 6144 -> 5120) and 16 gated-attention ones; every layer's MLP.
    const double delta_net = h * 16384 + h * 96 + 10240 * 4 + 6144 * h;
    const double gated = attention + h * q;
    const double total = embed + 48 * delta_net + 16 * gated + layers * mlp;
    return {total, total};
  }
  if (name == "ling-mini-2.0") {
    // Layer 0 dense (ffn 5120), the other 19 routed experts and a shared one (moe-layer-freq).
    const double dense = 3 * h * 5120;
    return {embed + layers * attention + dense + (layers - 1) * (experts + 1) * mlp,
            embed + layers * attention + dense + (layers - 1) * (used + 1) * mlp};
  }
  if (name == "llama-4-maverick") {
    // Half its layers are MoE (128 routed experts and a shared one), half dense at 16384
    // (its text_config's intermediate_size_mlp; interleave_moe_layer_step 2).
    const double dense = 3 * h * 16384;
    return {embed + layers * attention + layers / 2 * ((experts + 1) * mlp + dense),
            embed + layers * attention + layers / 2 * ((used + 1) * mlp + dense)};
  }
  return {embed + layers * (attention + experts * mlp), embed + layers * (attention + used * mlp)};
}

TEST(CostModelShapes, EveryRowsDimensionsAddUpToItsStatedParameters) {
  for (const ModelShape& m : model_shapes()) {
    const Counted c = count(m);
    const std::string name = m.name;
    EXPECT_NE(std::string(m.source).find("https://"), std::string::npos) << name;
    // Latent attention's down- and up-projections and DeepSeek's dense first layers are not
    // dimensions of the table: LatentAttentionCachesOneVectorALayer checks that row.
    if (m.kv_latent > 0) continue;
    // Llama 4 Scout's card counts its vision encoder too: its text decoder is 4% below the card.
    const double tolerance = name == "llama-4-scout" ? 0.05 : 0.03;
    // A dense row with fewer active parameters than held is a vision-language model: its
    // dimensions are the language model's (the active ones), and the tower a tenth or less.
    const bool vision_tower = m.experts == 0 && m.active_params_b < m.params_b;
    EXPECT_NEAR(c.total / 1e9, vision_tower ? m.active_params_b : m.params_b,
                m.params_b * tolerance)
        << name;
    if (vision_tower) {
      EXPECT_LT(m.params_b - m.active_params_b, 0.1 * m.params_b) << name;
    } else if (m.experts > 0) {
      // A card's active count leaves out the input embeddings (a lookup, not a read): between
      // the decoder with and without them.
      const double embed = static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
      EXPECT_LE(m.active_params_b, c.active / 1e9 * 1.10) << name;
      EXPECT_GE(m.active_params_b, (c.active - embed) / 1e9 * 0.95) << name;
    } else {
      EXPECT_DOUBLE_EQ(m.active_params_b, m.params_b) << name;
    }
    EXPECT_LE(m.window_layers, m.layers) << name;
    EXPECT_EQ(m.window_layers > 0, m.attention_window > 0) << name;
  }
}

Workload serving(const std::string& model, long context) {
  Workload w;
  w.kind = "llm-inference";
  w.model = model;
  w.precision = "bf16";
  w.context_tokens = context;
  return w;
}

double kv_gib(const Workload& spec_w) {
  auto w = with_model_shape(spec_w);
  EXPECT_TRUE(w.ok()) << w.error().message;
  auto m = memory_need(*w);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return m.ok() ? m->kv_cache_gib : 0;
}

TEST(CostModelShapes, LocalAttentionLayersKeepOnlyTheirWindowOfKvCache) {
  // Gemma 3 27B at 128K tokens: 10 global layers hold all 131072 tokens, 52 sliding-window
  // layers 1024 each; 16 KV heads of 128 in bf16 are 8 KiB a token and layer.
  const double per_token_layer = 2.0 * 16 * 128 * 2;
  EXPECT_NEAR(kv_gib(serving("gemma-3-27b", 131072)),
              (10.0 * 131072 + 52.0 * 1024) * per_token_layer / (1024.0 * 1024 * 1024), 1e-9);
  // Within the window every layer holds the whole context, as without local attention.
  Workload full = serving("gemma-3-27b", 1024);
  full.attention_window = 1;
  full.window_layers = 0;  // the spec's way to say the engine keeps every layer whole
  EXPECT_DOUBLE_EQ(kv_gib(serving("gemma-3-27b", 1024)), kv_gib(full));
  // Beyond it the windowed model holds far less than the same shape without windows.
  full.context_tokens = 131072;
  EXPECT_LT(kv_gib(serving("gemma-3-27b", 131072)), kv_gib(full) / 5);
  // A spec's own window replaces the table's.
  Workload own = serving("gemma-3-27b", 131072);
  own.attention_window = 4096;
  own.window_layers = 52;
  EXPECT_GT(kv_gib(own), kv_gib(serving("gemma-3-27b", 131072)));
}

TEST(CostModelShapes, MoreLocalLayersFitMoreSequencesOnACard) {
  // gpt-oss-20b at 32K tokens on one 80 GB card: half its layers keep 128 tokens, so about twice
  // the sequences of the same shape with full attention everywhere.
  GpuSpec g;
  g.name = "H";
  g.vram_gb = 80;
  g.mem_bw_gbs = 3350;
  g.fp16_tflops = 989;
  Workload w = serving("gpt-oss-20b", 32768);
  w.precision = "int4";
  auto shaped = with_model_shape(w);
  ASSERT_TRUE(shaped.ok());
  Workload full = *shaped;
  full.window_layers = 0;
  const long windowed = max_concurrency(*shaped, g, 1), whole = max_concurrency(full, g, 1);
  ASSERT_GT(whole, 0);
  EXPECT_GT(windowed, 19 * whole / 10);
  EXPECT_LE(windowed, 2 * whole + 1);
}

TEST(CostModelShapes, LatentAttentionCachesOneVectorALayer) {
  // DeepSeek V3 at 4096 tokens: 61 layers x 576 values x 2 bytes a token, 0.27 GiB a sequence,
  // where keys and values of its 128 heads would be 2 x 128 x 192 values a layer (85x more).
  const double gib = 1024.0 * 1024 * 1024;
  EXPECT_NEAR(kv_gib(serving("deepseek-v3", 4096)), 61.0 * 576 * 4096 * 2 / gib, 1e-9);
  Workload heads = serving("deepseek-v3", 4096);
  auto shaped = with_model_shape(heads);
  ASSERT_TRUE(shaped.ok());
  heads = *shaped;
  heads.model.clear();  // the shape is filled in; the table would put the latent back
  heads.kv_latent.reset();
  EXPECT_NEAR(kv_gib(heads) / kv_gib(serving("deepseek-v3", 4096)), 2.0 * 128 * 192 / 576, 1e-6);
  // Its parameters as DeepSeek's weights README breaks them down: per layer the latent attention
  // (q 7168 -> 1536 -> 128 x 192, kv 7168 -> 512 + 64 -> 128 x (128 + 128), out 128 x 128 ->
  // 7168), 3 dense MLPs of 18432, 58 layers of 256 routed and 1 shared expert of 2048.
  const ModelShape* m = find_model("deepseek-v3");
  ASSERT_NE(m, nullptr);
  const double h = 7168,
               attention = h * 1536 + 1536 * 128 * 192 + h * 576 + 512 * 128 * 256 + 128 * 128 * h;
  const double total = 61 * attention + 3 * 3 * h * 18432 + 58 * 257 * 3 * h * m->intermediate +
                       2 * static_cast<double>(m->vocab) * h;
  EXPECT_NEAR(total / 1e9, m->params_b, m->params_b * 0.01);
  // Published in fp8: a byte a parameter unless the spec says otherwise.
  Workload w = serving("deepseek-v3", 4096);
  w.precision.clear();
  auto filled = with_model_shape(w);
  ASSERT_TRUE(filled.ok());
  EXPECT_EQ(filled->precision, "fp8");
  EXPECT_NEAR(memory_need(*filled)->weights_gib, 671e9 / gib, 1e-6);
  w.precision = "bf16";
  EXPECT_EQ(with_model_shape(w)->precision, "bf16");
}

TEST(CostModelShapes, GlmFiveIsLatentAttentionWithAnIndexerALayer) {
  // GLM-5 at 4096 tokens caches 78 layers x 576 values a token, as DeepSeek V3 does; its weights
  // add up from its config: per layer the latent attention (q 6144 -> 2048 -> 64 x 256, kv 6144
  // -> 512 + 64 -> 64 x (192 + 256), out 64 x 256 -> 6144) and the sparse attention's indexer
  // (2048 -> 32 x 128, 6144 -> 128, 6144 -> 32), 3 dense MLPs of 12288, 75 layers of 256 routed
  // experts and a shared one of 2048 with a router.
  const double gib = 1024.0 * 1024 * 1024;
  EXPECT_NEAR(kv_gib(serving("zai-org/GLM-5", 4096)), 78.0 * 576 * 4096 * 2 / gib, 1e-9);
  const ModelShape* m = find_model("zai-org/GLM-5.1");
  ASSERT_NE(m, nullptr);
  EXPECT_STREQ(m->name, "glm-5");
  const double h = 6144;
  const double attention = h * 2048 + 2048 * 64 * 256 + h * 576 + 512 * 64 * 448 + 64 * 256 * h;
  const double indexer = 2048 * 32 * 128 + h * 128 + h * 32;
  const double total = 78 * (attention + indexer) + 3 * 3 * h * 12288 +
                       75 * (257 * 3 * h * 2048 + h * 256) + 2 * 154880 * h;
  EXPECT_NEAR(total / 1e9, m->params_b, m->params_b * 0.01);
}

TEST(CostModelShapes, QwenNextsLinearLayersHoldAFixedStateNotTheContext) {
  // At 32K tokens in bf16: 12 attention layers of 2 KV heads of 256 hold every token, the 36
  // Gated DeltaNet layers their fixed 548,864-value state each (the 536 tokens it is entered as).
  const double per_token_layer = 2.0 * 2 * 256 * 2;
  EXPECT_NEAR(kv_gib(serving("Qwen/Qwen3-Next-80B-A3B-Instruct", 32768)),
              (12.0 * 32768 + 36.0 * 536) * per_token_layer / (1024.0 * 1024 * 1024), 1e-9);
  EXPECT_NEAR(36.0 * 536 * 2 * 2 * 256, 36.0 * (32 * 128 * 128 + 3 * 8192), 36.0 * 1024);
}

TEST(CostModelShapes, AVisionLanguageModelHoldsItsTowerButATextTokenNeverRunsIt) {
  // Qwen2.5-VL 7B is Qwen2.5 7B's language model and a 0.68B vision tower: the tower's weights
  // are held (bf16: 2 bytes each), a text token reads and computes the language model's only.
  Workload vl = serving("Qwen/Qwen2.5-VL-7B-Instruct", 4096);
  Workload text = serving("qwen2.5-7b", 4096);
  auto v = with_model_shape(vl), t = with_model_shape(text);
  ASSERT_TRUE(v.ok() && t.ok());
  auto vm = memory_need(*v), tm = memory_need(*t);
  ASSERT_TRUE(vm.ok() && tm.ok());
  EXPECT_NEAR((vm->weights_gib - tm->weights_gib) * 1024 * 1024 * 1024, 2 * 0.67e9, 0.02e9);
  EXPECT_DOUBLE_EQ(vm->kv_cache_gib, tm->kv_cache_gib);
  EXPECT_DOUBLE_EQ(*v->active_params_b, *t->params_b);
}

TEST(CostModelShapes, HuggingFaceIdsAndReleasesOfARowsShapeNameIt) {
  // What users paste into a spec: the repository id, an instruct or dated release of the same
  // shape; letter case ignored.
  const std::pair<const char*, const char*> named[] = {
      {"Qwen/Qwen3-8B", "qwen3-8b"},
      {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"},
      {"meta-llama/Meta-Llama-3-8B-Instruct", "llama-3-8b"},
      {"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"},
      {"Qwen/Qwen3-30B-A3B-Instruct-2507", "qwen3-30b-a3b"},
      {"google/gemma-3-27b-it", "gemma-3-27b"},
      {"microsoft/Phi-3-mini-4k-instruct", "phi-3-mini"},
      {"deepseek-ai/DeepSeek-V3-0324", "deepseek-v3"},
      {"mistralai/Mistral-Nemo-Instruct-2407", "mistral-nemo-12b"},
      {"LLAMA-3.3-70B", "llama-3.3-70b"},
  };
  for (const auto& [asked, row] : named) {
    const ModelShape* m = find_model(asked);
    ASSERT_NE(m, nullptr) << asked;
    EXPECT_STREQ(m->name, row) << asked;
  }
  const DiffusionShape* flux = find_diffusion_model("black-forest-labs/FLUX.1-dev");
  ASSERT_NE(flux, nullptr);
  EXPECT_STREQ(flux->name, "flux-dev");
  // Another model is not guessed: a version in the name stays.
  for (const char* other : {"deepseek-ai/DeepSeek-V2", "Qwen/Qwen3-9B", "Qwen/Qwen3.5-8B"})
    EXPECT_EQ(find_model(other), nullptr) << other;
  Workload w = serving("meta-llama/Llama-3.1-8B-Instruct", 4096);
  auto shaped = with_model_shape(w);
  ASSERT_TRUE(shaped.ok()) << shaped.error().message;
  EXPECT_EQ(shaped->kv_heads, 8);
}

TEST(CostModelShapes, AQuantizedReleaseNamesItsRowAndItsWeightsPrecision) {
  // A quantized repository's tail says its weights' precision, used where the spec gives none;
  // Meta's old "Meta-Llama-3.1" ids name the renamed rows.
  const std::pair<const char*, const char*> named[] = {
      {"Qwen/Qwen3-8B-FP8", "fp8"},
      {"neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", "fp8"},
      {"RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "fp8"},
      {"Qwen/Qwen2.5-7B-Instruct-AWQ", "int4"},
      {"hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "int4"},
      {"Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "int8"},
      {"RedHatAI/Llama-3.3-70B-Instruct-quantized.w8a8", "int8"},
      {"unsloth/llama-3-8b-bnb-4bit", "int4"},
      {"Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "q4_k_m"},
  };
  for (const auto& [asked, precision] : named) {
    Workload w = serving(asked, 4096);
    w.precision.clear();
    auto shaped = with_model_shape(w);
    ASSERT_TRUE(shaped.ok()) << asked << ": " << shaped.error().message;
    EXPECT_EQ(shaped->precision, precision) << asked;
  }
  EXPECT_STREQ(find_model("meta-llama/Meta-Llama-3.1-70B-Instruct")->name, "llama-3.1-70b");
  // The spec's precision wins; 8B in fp8 is half its bf16 weights.
  Workload fp8 = serving("Qwen/Qwen3-8B-FP8", 4096);
  fp8.precision.clear();
  Workload bf16 = serving("Qwen/Qwen3-8B-FP8", 4096);
  EXPECT_EQ(with_model_shape(bf16)->precision, "bf16");
  EXPECT_NEAR(memory_need(*with_model_shape(fp8))->weights_gib * 2,
              memory_need(*with_model_shape(bf16))->weights_gib, 1e-9);
  // A tail that names no one precision (GPTQ of 2 to 8 bits, a GGUF repository of many types)
  // finds the row but asks for the precision rather than pricing 16-bit weights.
  for (const char* unsaid :
       {"TheBloke/Llama-2-7B-Chat-GPTQ", "bartowski/Qwen2.5-7B-Instruct-GGUF"}) {
    Workload w = serving(unsaid, 4096);
    w.precision.clear();
    auto shaped = with_model_shape(w);
    ASSERT_FALSE(shaped.ok()) << unsaid;
    EXPECT_NE(shaped.error().message.find("give workload.precision"), std::string::npos);
    w.precision = "q4_k_m";
    EXPECT_TRUE(with_model_shape(w).ok()) << unsaid;
  }
}

TEST(CostModelShapes, ADiffusionCheckpointsNameSetsItsWeightsPrecision) {
  // What ComfyUI and diffusers users paste: a single file's name, an fp8 copy's, a repository with
  // underscores. The fp8 tail halves the weights a card must hold, as it does for an LLM.
  const std::tuple<const char*, const char*, const char*> named[] = {
      {"Comfy-Org/flux1-dev/flux1-dev-fp8.safetensors", "flux-dev", "fp8"},
      {"flux1-dev-fp8_e4m3fn.safetensors", "flux-dev", "fp8"},
      {"flux1-schnell.safetensors", "flux-schnell", ""},
      {"sd_xl_base_1.0.safetensors", "sdxl", ""},
      {"v1-5-pruned-emaonly.safetensors", "sd-1.5", ""},
  };
  for (const auto& [asked, row, precision] : named) {
    const DiffusionShape* d = find_diffusion_model(asked);
    ASSERT_NE(d, nullptr) << asked;
    EXPECT_STREQ(d->name, row) << asked;
    Workload w;
    w.kind = "diffusion";
    w.model = asked;
    auto shaped = with_model_shape(w);
    ASSERT_TRUE(shaped.ok()) << asked << ": " << shaped.error().message;
    EXPECT_EQ(shaped->precision, precision) << asked;
  }
  Workload fp8;
  fp8.kind = "diffusion";
  fp8.model = "flux1-dev-fp8.safetensors";
  Workload bf16 = fp8;
  bf16.model = "black-forest-labs/FLUX.1-dev";
  bf16.precision = "bf16";
  // The pipeline's weights differ by half the denoiser's: its encoders and VAE stay at 16 bits.
  EXPECT_NEAR(memory_need(*with_model_shape(bf16))->weights_gib -
                  memory_need(*with_model_shape(fp8))->weights_gib,
              find_diffusion_model("flux-dev")->params_b * 1e9 / (1024.0 * 1024 * 1024), 1e-9);
  // A GGUF of FLUX names no one type: the precision is asked for, not guessed.
  Workload gguf = fp8;
  gguf.model = "city96/FLUX.1-dev-gguf";
  auto shaped = with_model_shape(gguf);
  ASSERT_FALSE(shaped.ok());
  EXPECT_NE(shaped.error().message.find("give workload.precision"), std::string::npos);
  // The underscore is read as a hyphen on both sides, so an LLM's GGUF tail still names its type.
  Workload q;
  q.model = "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf";
  EXPECT_EQ(with_model_shape(q)->precision, "q4_k_m");
}

TEST(CostModelShapes, AModelPublishedWithARowsShapeFindsThatRow) {
  // Distillations and fine-tunes whose config.json is a row's: every entry names a row.
  for (const SameShape& same : same_shapes()) {
    const bool row = find_model(same.row) != nullptr || find_diffusion_model(same.row) != nullptr;
    EXPECT_TRUE(row) << same.name << " -> " << same.row;
    EXPECT_NE(std::string(same.source), "") << same.name;
  }
  const std::pair<const char*, const char*> named[] = {
      {"deepseek-ai/DeepSeek-R1-0528", "deepseek-v3"},
      {"Qwen/QwQ-32B", "qwen2.5-32b"},
      {"Qwen/Qwen2.5-Coder-7B-Instruct", "qwen2.5-7b"},
      {"deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "llama-3.3-70b"},
      {"deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", "deepseek-r1-distill-qwen-1.5b"},
      {"google/gemma-3-4b-it", "gemma-3-4b"},
      {"mistralai/Mistral-Large-Instruct-2407", "mistral-large-2407"},
      {"Qwen/Qwen2-7B-Instruct", "qwen2.5-7b"},
      {"Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-30b-a3b"},
      {"deepseek-ai/DeepSeek-V3.1", "deepseek-v3"},
      {"lmsys/vicuna-13b-v1.5", "llama-2-13b"},
      {"nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", "llama-3.1-70b"},
      {"codellama/CodeLlama-7b-Instruct-hf", "llama-2-7b"},
      {"codellama/CodeLlama-34b-Instruct-hf", "codellama-34b"},
      {"01-ai/Yi-34B-Chat", "yi-34b"},
      {"CohereLabs/c4ai-command-r-v01", "command-r"},
      {"zai-org/GLM-4.5-Air-FP8", "glm-4.5-air"},
      {"moonshotai/Kimi-K2-Instruct-0905", "kimi-k2"},
      {"moonshotai/Kimi-K2.5", "kimi-k2"},
      {"zai-org/GLM-4.6", "glm-4.5"},
      {"Qwen/Qwen3.6-35B-A3B", "qwen3.5-35b-a3b"},
      {"Qwen/Qwen3.6-27B", "qwen3.5-27b"},
      {"MiniMaxAI/MiniMax-M2", "minimax-m2"},
      {"tencent/Hunyuan-A13B-Instruct", "hunyuan-a13b"},
      {"deepseek-ai/DeepSeek-V2-Lite-Chat", "deepseek-v2-lite"},
      {"Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3-coder-480b-a35b"},
      {"HuggingFaceTB/SmolLM2-1.7B-Instruct", "smollm2-1.7b"},
      {"allenai/OLMo-2-1124-7B-Instruct", "olmo-2-1124-7b"},
      {"meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "llama-4-maverick"},
      {"facebook/opt-13b", "opt-13b"},
      {"bigscience/bloom", "bloom-176b"},
      {"EleutherAI/gpt-j-6b", "gpt-j-6b"},
      {"tiiuae/falcon-40b-instruct", "falcon-40b"},
      // model_shapes_more.cpp's rows and releases (2026-12-01).
      {"huggyllama/llama-7b", "llama-2-7b"},
      {"huggyllama/llama-30b", "llama-30b"},
      {"google/gemma-7b-it", "gemma-7b"},
      {"microsoft/phi-2", "phi-2"},
      {"TinyLlama/TinyLlama-1.1B-Chat-v1.0", "tinyllama-1.1b"},
      {"microsoft/Phi-4-mini-instruct", "phi-4-mini"},
      {"bigcode/starcoder2-7b", "starcoder2-7b"},
      {"EleutherAI/gpt-neox-20b", "gpt-neox-20b"},
      {"internlm/internlm2_5-7b-chat", "internlm2-7b"},
      {"baichuan-inc/Baichuan2-7B-Chat", "baichuan2-7b"},
      {"databricks/dbrx-instruct", "dbrx"},
      {"microsoft/Phi-3.5-MoE-instruct", "phi-3.5-moe"},
      {"HuggingFaceH4/zephyr-7b-beta", "mistral-7b"},
      {"MiniMaxAI/MiniMax-M2.7", "minimax-m2"},
  };
  for (const auto& [asked, row] : named) {
    const ModelShape* m = find_model(asked);
    ASSERT_NE(m, nullptr) << asked;
    EXPECT_STREQ(m->name, row) << asked;
  }
  // DeepSeek R1 is V3's shape and its fp8 weights; R1's 1.5B distillation keeps its own untied
  // output head (0.23B more than Qwen2.5-1.5B's).
  Workload r1 = serving("deepseek-ai/DeepSeek-R1", 4096);
  r1.precision.clear();
  EXPECT_EQ(with_model_shape(r1)->precision, "fp8");
  // Kimi K2.5 is K2's shape published in int4 (its routed experts), not K2's fp8: a release's own
  // precision before its row's, a name's tail or the spec's before both.
  Workload k25 = serving("moonshotai/Kimi-K2.5", 4096);
  k25.precision.clear();
  EXPECT_EQ(with_model_shape(k25)->precision, "int4");
  Workload k2 = serving("moonshotai/Kimi-K2-Instruct", 4096);
  k2.precision.clear();
  EXPECT_EQ(with_model_shape(k2)->precision, "fp8");
  k25.model = "moonshotai/Kimi-K2.5-FP8";
  EXPECT_EQ(with_model_shape(k25)->precision, "fp8");
  k25.precision = "bf16";
  EXPECT_EQ(with_model_shape(k25)->precision, "bf16");
  EXPECT_FALSE(find_model("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B")->tied_embeddings);
  const std::pair<const char*, const char*> denoisers[] = {
      {"CompVis/stable-diffusion-v1-4", "sd-1.5"},
      {"PixArt-alpha/PixArt-XL-2-1024-MS", "pixart-sigma"},
      {"Tencent-Hunyuan/HunyuanDiT-v1.2-Diffusers", "hunyuan-dit"},
      {"stabilityai/stable-diffusion-3-medium", "sd-3-medium"},
      {"playgroundai/playground-v2.5-1024px-aesthetic", "playground-v2.5"},
      // A row's own id wins over another row's with a suffix dropped ("-base": SD 2.1's id).
      {"stabilityai/stable-diffusion-2-1-base", "sd-2.1-base"},
      {"stabilityai/stable-diffusion-2-1", "sd-2.1"},
      {"black-forest-labs/FLUX.1-Krea-dev", "flux-dev"},
      {"flux1-kontext-dev.safetensors", "flux-kontext-dev"},
      {"Qwen/Qwen-Image-Edit-2509", "qwen-image-edit"},
      {"Efficient-Large-Model/Sana_1600M_1024px", "sana-1600m"},
      {"Efficient-Large-Model/Sana_600M_1024px_diffusers", "sana-600m"},
      {"kandinsky-community/kandinsky-2-2-decoder", "kandinsky-2.2"},
  };
  for (const auto& [asked, row] : denoisers) {
    const DiffusionShape* d = find_diffusion_model(asked);
    ASSERT_NE(d, nullptr) << asked;
    EXPECT_STREQ(d->name, row) << asked;
  }
}

}  // namespace
}  // namespace burst
