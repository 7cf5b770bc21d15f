// The LLM shape table's second file (model_shapes() is model_shapes.cpp's rows, then these; the
// first file had reached the house limit of 500 lines). Same facts, same columns, same rules: each
// row from the model's published config as a public copy gives it (the `source` column names the
// copy and the commit read), and the parameter counts from the model's card or paper, else summed
// from the dimensions (said so). Added 2026-12-01, thirty-eighth session.
//
// A plain two-matrix MLP (fc1 and fc2 of width d_ff: GPT-NeoX, Pythia, Phi-2, StarCoder2) is
// entered as the table's gated one of the same parameters: intermediate = 2/3 x d_ff. A model that
// runs attention and the MLP side by side (GPT-NeoX, Pythia, Phi-2) reads and computes the same
// weights a token as one that runs them in turn.
//
// Copies cited: LIT is Lightning-AI/litgpt litgpt/config.py at 2685705 (each entry names the
// config.json it transcribes); MLC is mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py at
// 79d603f (config.json dictionaries verbatim); HFT is huggingface/transformers.
#include <vector>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst::cost {

const std::vector<ModelShape>& more_model_shapes() {
  // The columns of model_shapes.cpp: name, params_b, active_params_b, layers, hidden, heads,
  // kv_heads, head_dim, vocab, intermediate, tied embeddings, source[, experts, experts per
  // token[, attention window, windowed layers[, KV latent values, published precision[, experts
  // fused]]]].
  static const std::vector<ModelShape> kMore = {
      // LLaMA (2023): multi-head attention throughout. The 7B and 13B have Llama 2's dimensions
      // (same_shapes.cpp names them); the 33B and 65B are rows of their own.
      {"llama-30b", 32.5, 32.5, 60, 6656, 52, 52, 128, 32000, 17920, false,
       "https://huggingface.co/huggyllama/llama-30b (copies: scottlogic-alex/llm-memory-calculator "
       "llama-models.ts at 2135873, which links this config.json; LIT's Platypus-30B, a LLaMA-30B "
       "fine-tune; 32.5B per the LLaMA paper's Table 2)"},
      {"llama-65b", 65.2, 65.2, 80, 8192, 64, 64, 128, 32000, 22016, false,
       "https://huggingface.co/huggyllama/llama-65b (copy: scottlogic-alex/llm-memory-calculator "
       "llama-models.ts at 2135873, which links this config.json; 65.2B per the LLaMA paper's "
       "Table 2)"},
      // Gemma (1): 256-wide heads, so the 7B's queries are 4096 wide on a 3072 model; tied
      // embeddings (GemmaConfig's default). 8.54B and 2.51B per the Gemma report's Table 2.
      {"gemma-7b", 8.54, 8.54, 28, 3072, 16, 16, 256, 256000, 24576, true,
       "https://huggingface.co/google/gemma-7b (copies: LIT Gemma-7b; HFT configuration_gemma.py "
       "at 008e574, whose defaults its docstring names as google/gemma-7b's)"},
      {"gemma-2b", 2.51, 2.51, 18, 2048, 8, 1, 256, 256000, 16384, true,
       "https://huggingface.co/google/gemma-2b (copy: MLC gemma_2b; LIT Gemma-2b agrees)"},
      // Phi-2: fc1 / fc2 of 10240, untied with a biased lm_head; 2.78B summed (the card: 2.7B).
      {"phi-2", 2.78, 2.78, 32, 2560, 32, 32, 80, 51200, 6827, false,
       "https://huggingface.co/microsoft/phi-2 (copy: MLC phi-2, the original phi-msft "
       "config: n_inner None, 4 x 2560; a module print in liuutin9/FPGA-Acceleration-of-"
       "TinyLLaVA-Inference-via-HLS phi-2_structure.py at 5de3edf agrees)"},
      {"tinyllama-1.1b", 1.10, 1.10, 22, 2048, 32, 4, 64, 32000, 5632, false,
       "https://huggingface.co/TinyLlama/TinyLlama-1.1B-Chat-v1.0 (copy: MLC "
       "tinyllama_1b_chat_v1.0; 1.1B per its name and card)"},
      {"phi-4-mini", 3.84, 3.84, 32, 3072, 24, 8, 128, 200064, 8192, true,
       "https://huggingface.co/microsoft/Phi-4-mini-instruct (copies: LIT Phi-4-mini-instruct; "
       "pytorch/executorch examples/models/phi_4_mini/config/config.json at 76fcedc; tied, as a "
       "test fixture of its config.json gives it; 3.8B per executorch's README, 3.84B summed)"},
      {"smollm2-135m", 0.135, 0.135, 30, 576, 9, 3, 64, 49152, 1536, true,
       "https://huggingface.co/HuggingFaceTB/SmolLM2-135M (copy: MLC smollm2_135m; LIT agrees)"},
      {"smollm2-360m", 0.362, 0.362, 32, 960, 15, 5, 64, 49152, 2560, true,
       "https://huggingface.co/HuggingFaceTB/SmolLM2-360M (copy: MLC smollm2_360m; LIT agrees; "
       "0.362B summed)"},
      // StarCoder2 7B: c_fc / c_proj of 18432, a 4096-token sliding window on every layer; tied
      // (its config states none: the library's default). 7.17B summed.
      {"starcoder2-7b", 7.17, 7.17, 32, 4608, 36, 4, 128, 49152, 12288, true,
       "https://huggingface.co/bigcode/starcoder2-7b (copy: MLC starcoder2: 32 layers of 4608, "
       "sliding_window 4096)",
       0, 0, 4096, 32},
      // EleutherAI's GPT-NeoX 20B and Pythia 12B: dense_h_to_4h / dense_4h_to_h, untied.
      {"gpt-neox-20b", 20.55, 20.55, 44, 6144, 64, 64, 96, 50432, 16384, false,
       "https://huggingface.co/EleutherAI/gpt-neox-20b (HFT configuration_gpt_neox.py at "
       "008e574, whose defaults its docstring names as this checkpoint's; 20.55B summed)"},
      {"pythia-12b", 11.84, 11.84, 36, 5120, 40, 40, 128, 50688, 13653, false,
       "https://huggingface.co/EleutherAI/pythia-12b (copy: LIT pythia-12b, its vocabulary padded "
       "to 50688; 11.84B summed)"},
      {"internlm2-7b", 7.74, 7.74, 32, 4096, 32, 8, 128, 92544, 14336, false,
       "https://huggingface.co/internlm/internlm2-7b (copy: MLC internlm2; 7.74B summed)"},
      {"baichuan2-7b", 7.51, 7.51, 32, 4096, 32, 32, 128, 125696, 11008, false,
       "https://huggingface.co/baichuan-inc/Baichuan2-7B-Base (copy: MLC baichuan, Baichuan 2's "
       "125696-token vocabulary at 32 layers of 4096; 7.51B summed)"},
      // Mixtures of experts. DBRX stores each layer's 16 experts as one flat tensor a projection
      // (ffn.experts.mlp.w1, v1, w2: llama.cpp's gguf-py tensor_mapping.py lists them as merged).
      {"dbrx", 132.0, 36.0, 40, 6144, 48, 8, 128, 100352, 10752, false,
       "https://huggingface.co/databricks/dbrx-instruct (copy: HFT models/dbrx/config.json at "
       "0b36d82, verbatim: 16 experts, 4 a token; 132B and 36B active per databricks/dbrx "
       "MODEL_CARD_dbrx_instruct.md at 0edd966)",
       16, 4, 0, 0, 0, nullptr, true},
      {"phi-3.5-moe", 41.87, 6.6, 32, 4096, 32, 8, 128, 32064, 6400, false,
       "https://huggingface.co/microsoft/Phi-3.5-MoE-instruct (HFT configuration_phimoe.py at "
       "040e1a7, whose defaults its docstring names as this checkpoint's: 16 experts, 2 a token; "
       "6.6B active per its card, 41.87B summed)",
       16, 2},
      // 2026 releases, from their config.json as ai-dynamo/aiconfigurator copies it at 0b077da
      // (aic-core/src/aiconfigurator_core/model_configs), verbatim. Their names give the counts
      // (no card was in reach); the parameters are summed from the dimensions, the multi-token-
      // prediction layer left out as for DeepSeek V3, active counts without the input embeddings'
      // lookup. Qwen3.5's two larger mixtures of experts mix as its 35B-A3B (three Gated
      // DeltaNet layers to each gated-attention one) with twice the DeltaNet's value heads, 64 of
      // 128 x 128 and a 4-wide convolution over 12288 channels: 1,085,440 values a layer and
      // sequence, the KV of 1060 tokens of their attention layers (2 heads of 256), entered as
      // local attention over 1060 tokens. A shared expert beside the routed ones, every layer; the
      // vision tower (27 blocks of 1152) left out, as for the 35B-A3B.
      {"qwen3.5-122b-a10b", 122.1, 8.97, 48, 3072, 32, 2, 256, 248320, 1024, false,
       "https://huggingface.co/Qwen/Qwen3.5-122B-A10B (its config.json as AIC copies it: 36 "
       "linear_attention and 12 full_attention layers, linear_num_value_heads 64, 256 experts, 8 "
       "a token, moe_intermediate_size and shared_expert_intermediate_size 1024)",
       256, 8, 1060, 36},
      {"qwen3.5-397b-a17b", 396.3, 16.2, 60, 4096, 32, 2, 256, 248320, 1024, false,
       "https://huggingface.co/Qwen/Qwen3.5-397B-A17B (its config.json as AIC copies it: 45 "
       "linear_attention and 15 full_attention layers, linear_num_value_heads 64, 512 experts, 10 "
       "a token, expert and shared expert 1024)",
       512, 10, 1060, 45},
      // GLM-5 (and 5.1, the same config): DeepSeek V3's latent attention (kv_lora_rank 512 + rope
      // 64 cached a layer and token; queries of 192 + 64), 3 dense layers of 12288, then 256
      // routed experts (8 a token) and a shared one. Its DeepSeek sparse attention keeps an
      // indexer a layer (32 heads of 128, 9.4M weights, summed in) that picks 2048 tokens for
      // the attention to read: neither the indexer's own small cache nor the sparse read is
      // priced, so long contexts are priced as full attention. 744B and 40B active per its
      // technical report's table as glennklockwood.com/garden/GLM-5 quotes it; bf16.
      {"glm-5", 744.0, 40.0, 78, 6144, 64, 64, 256, 154880, 2048, false,
       "https://huggingface.co/zai-org/GLM-5 (its config.json as AIC copies it: "
       "GlmMoeDsaForCausalLM, 78 layers, first_k_dense_replace 3, n_routed_experts 256, "
       "num_experts_per_tok 8, n_shared_experts 1, kv_lora_rank 512, q_lora_rank 2048)",
       256, 8, 0, 0, 576},
      {"mimo-7b", 7.62, 7.62, 36, 4096, 32, 8, 128, 151680, 11008, false,
       "https://huggingface.co/XiaomiMiMo/MiMo-7B-Base (its config.json as AIC copies it; its "
       "one multi-token-prediction layer left out; 7.62B summed)"},
  };
  return kMore;
}

}  // namespace burst::cost
