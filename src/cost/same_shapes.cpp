// Models published under another name with a row's exact shape (burst/cost_model.h,
// same_shapes(); docs/cost-model.md, "Model shapes"): distillations, fine-tunes, releases and
// single-file checkpoints, each with the source that shows its config is the row's.
#include <vector>

#include "burst/cost_model.h"

namespace burst {

const std::vector<SameShape>& same_shapes() {
  // name (as its Hugging Face id, matched as a row's is), the row whose shape it has, source[,
  // the release's own published precision].
  static const std::vector<SameShape> kSame = {
      {"deepseek-ai/DeepSeek-R1", "deepseek-v3",
       "DeepSeek-R1's README ('trained based on DeepSeek-V3-Base', 671B, 37B active); its config "
       "as OPEA/DeepSeek-R1-int4-gptq-sym-inc copies it: V3's 61 layers, 256 experts, rank 512"},
      {"Qwen/QwQ-32B", "qwen2.5-32b", "unsloth/QwQ-32B config.json (_name_or_path Qwen/QwQ-32B)"},
      {"Qwen/Qwen2.5-Coder-7B", "qwen2.5-7b",
       "a copy of Qwen2.5-Coder-7B-Instruct's config.json; 7.61B per both cards"},
      {"Qwen/Qwen2.5-Coder-14B", "qwen2.5-14b", "unsloth/Qwen2.5-Coder-14B config.json"},
      {"Qwen/Qwen2.5-Coder-32B", "qwen2.5-32b",
       "Qwen/Qwen2.5-Coder-32B-Instruct's config.json as ai-team-20/qwen3-coder-480b-3 copies it"},
      {"deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "qwen2.5-7b",
       "mlfoundations-dev/DeepSeek-R1-Distill-Qwen-7B_OpenThoughts3 config.json"},
      {"deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", "qwen2.5-14b", "neody/r1-14b-awq config.json"},
      {"deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "qwen2.5-32b",
       "AIFunOver/DeepSeek-R1-Distill-Qwen-32B-openvino-8bit config.json"},
      {"deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "llama-3.1-8b",
       "a copy of its config.json (Virende/Solphie-1S-Foundation-Model); DeepSeek-R1's README "
       "names Llama-3.1-8B its base"},
      {"deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "llama-3.3-70b",
       "casperhansen/deepseek-r1-distill-llama-70b-awq config.json; DeepSeek-R1's README names "
       "Llama-3.3-70B-Instruct its base"},
      // Added 2026-12-01.
      {"Qwen/Qwen2-7B", "qwen2.5-7b",
       "Qwen2-7B-Instruct's config.json as jianchang512/fireredasr-ui copies it: Qwen2.5-7B's in "
       "every shape field; the Qwen2.5 blog: 'the same size as Qwen2'"},
      {"Qwen/Qwen2-72B", "qwen2.5-72b",
       "the Qwen2 technical report's Table 1 (80 layers, 8192, 64 / 8 heads, 29568): "
       "Qwen2.5-72B's"},
      {"Qwen/Qwen3-Coder-30B-A3B", "qwen3-30b-a3b",
       "its config.json as ztxz16/fastllm copies it: Qwen3-30B-A3B's layers, experts and heads "
       "(a longer context)"},
      {"moonshotai/Kimi-K2.5", "kimi-k2",
       "its config.json as ai-dynamo/aiconfigurator copies it at 095f58a: a text_config of Kimi "
       "K2's every shape field (a longer context) beside a 0.4B MoonViT tower; compressed-tensors "
       "int4 (group 32) for the routed experts, bf16 for attention, the shared expert and layer "
       "0 (553 GiB in all, tokenspeed#287), so int4 counts it 12% short",
       "int4"},
      {"zai-org/GLM-4.6", "glm-4.5",
       "a GLM-4.6 conversion test's full config and THUDM/slime glm4.5-355B-A32B.sh agree: "
       "GLM-4.5's 92 layers, 160 experts, 8 a token (a longer context, 202752); 355B and 32B "
       "active"},
      {"Qwen/Qwen3.6-27B", "qwen3.5-27b",
       "nvidia/Qwen3.6-27B-NVFP4's config.json as ai-dynamo/aiconfigurator copies it at 90f7fc0: "
       "Qwen3.5-27B's text config in every shape field"},
      {"Qwen/Qwen3.6-35B-A3B", "qwen3.5-35b-a3b",
       "its config.json as ai-dynamo/aiconfigurator copies it at 21555d0: Qwen3.5-35B-A3B's text "
       "config in every shape field"},
      {"deepseek-ai/DeepSeek-V3.1", "deepseek-v3",
       "its card: 'The model structure of DeepSeek-V3.1 is the same as DeepSeek-V3'; 671B, 37B "
       "active"},
      {"lmsys/vicuna-13b-v1.5", "llama-2-13b",
       "lm-sys/FastChat docs/vicuna_weights_version.md (v1.5: Llama 2 the base); litgpt's "
       "transcriptions of both configs are identical"},
      {"lmsys/vicuna-7b-v1.5", "llama-2-7b",
       "lm-sys/FastChat docs/vicuna_weights_version.md (v1.5 7B: Llama 2 the base)"},
      {"nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", "llama-3.1-70b",
       "its config.json (copy: Curtispyke/Llama3.1-Nemotron-70b; _name_or_path "
       "meta-llama/Llama-3.1-70B-Instruct): Llama 3.1 70B's"},
      {"codellama/CodeLlama-7b-hf", "llama-2-7b",
       "its config.json as mlc-ai/mlc-llm model_preset.py codellama_7b writes it: Llama 2 7B's, "
       "with 16 more vocabulary rows (infilling tokens, 0.002% of its weights) and a longer RoPE"},
      {"codellama/CodeLlama-13b-hf", "llama-2-13b",
       "its config.json as mlc-ai/mlc-llm model_preset.py codellama_13b writes it: Llama 2 13B's, "
       "with 16 more vocabulary rows and a longer RoPE"},
      {"microsoft/Phi-3.5-mini-instruct", "phi-3-mini",
       "mlc-ai/mlc-llm model_preset.py phi-3_5: Phi-3-mini's dimensions (a longer context)"},
      // Added 2026-12-01, thirty-eighth session (model_shapes_more.cpp's header names the copies).
      {"huggyllama/llama-7b", "llama-2-7b",
       "scottlogic-alex/llm-memory-calculator llama-models.ts at 2135873 (linking its config.json) "
       "and the module print in its llama-sizes.md: 32 layers of 4096, 32 heads, 11008, 32000, "
       "untied: Llama 2 7B's (a shorter context)"},
      {"huggyllama/llama-13b", "llama-2-13b",
       "scottlogic-alex/llm-memory-calculator llama-models.ts at 2135873: 40 layers of 5120, 40 "
       "heads, 13824, 32000: Llama 2 13B's (a shorter context)"},
      {"HuggingFaceH4/zephyr-7b-beta", "mistral-7b",
       "its card: a fine-tune of mistralai/Mistral-7B-v0.1; abhibambhaniya/GenZ-LLM-Analyzer "
       "Model_sets/misc.py at 091bdd0 transcribes its config: Mistral 7B's every shape field"},
      {"internlm/internlm2-chat-7b", "internlm2-7b",
       "the chat model of internlm/internlm2-7b (mlc-ai/mlc-llm model_preset.py internlm2)"},
      {"internlm/internlm2_5-7b-chat", "internlm2-7b",
       "mlc-ai/mlc-llm model_preset.py internlm2_5_7b at 79d603f: internlm2's every shape field "
       "(a dynamic RoPE scaling)"},
      {"MiniMaxAI/MiniMax-M2.5", "minimax-m2",
       "its config.json as ai-dynamo/aiconfigurator copies it at 0b077da: MiniMaxM2ForCausalLM, "
       "MiniMax-M2's every shape field, fp8"},
      {"zai-org/GLM-5.1", "glm-5",
       "its config.json as ai-dynamo/aiconfigurator copies it at e418fe2: GLM-5's in every field "
       "but transformers_version"},
      {"MiniMaxAI/MiniMax-M2.7", "minimax-m2",
       "its config.json as ai-dynamo/aiconfigurator copies it at 0b077da: MiniMax-M2.5's every "
       "shape field (a longer context, 204800), fp8"},
      // Diffusion denoisers.
      {"CompVis/stable-diffusion-v1-4", "sd-1.5",
       "its unet/config.json (as JSchalter/models copies it): SD 1.5's, 860M"},
      // Single-file checkpoints as their repositories name them (ComfyUI and A1111 users give
      // the file's name): the same weights as the row's diffusers folders.
      {"flux1-dev.safetensors", "flux-dev",
       "https://huggingface.co/black-forest-labs/FLUX.1-dev/resolve/main/flux1-dev.safetensors"},
      {"flux1-schnell.safetensors", "flux-schnell",
       "https://huggingface.co/black-forest-labs/FLUX.1-schnell/resolve/main/"
       "flux1-schnell.safetensors"},
      {"sd_xl_base_1.0.safetensors", "sdxl",
       "https://huggingface.co/stabilityai/stable-diffusion-xl-base-1.0/resolve/main/"
       "sd_xl_base_1.0.safetensors"},
      {"v1-5-pruned-emaonly.safetensors", "sd-1.5",
       "https://huggingface.co/stable-diffusion-v1-5/stable-diffusion-v1-5/resolve/main/"
       "v1-5-pruned-emaonly.safetensors"},
      {"black-forest-labs/FLUX.1-Krea-dev", "flux-dev",
       "black-forest-labs/flux util.py flux-dev-krea: FLUX.1-dev's FluxParams and autoencoder; "
       "its card: 'a drop-in replacement in every system that supports the original FLUX.1 [dev]'"},
      {"flux1-krea-dev.safetensors", "flux-dev",
       "black-forest-labs/flux util.py flux-dev-krea: repo_flow 'flux1-krea-dev.safetensors'"},
      {"flux1-kontext-dev.safetensors", "flux-kontext-dev",
       "black-forest-labs/flux util.py flux-dev-kontext: repo_flow "
       "'flux1-kontext-dev.safetensors'"},
      {"PixArt-alpha/PixArt-XL-2-1024-MS", "pixart-sigma",
       "diffusers scripts/convert_pixart_alpha_to_diffusers.py: PixArt-Sigma's 28 x 1152, patch 2; "
       "0.6B per PixArt-alpha/PixArt-alpha's README; guidance 4.5 in pipeline_pixart_alpha.py"},
      // Video denoisers (video_shapes.cpp): another release or file of a row's shape.
      {"Wan-AI/Wan2.1-I2V-14B-480P", "wan2.1-i2v-14b-720p",
       "Wan-Video/Wan2.1 wan/configs/wan_i2v_14B.py: one config for both sizes (the 480P a "
       "different checkpoint of it)"},
      {"wan2.1_i2v_720p_14B_fp16.safetensors", "wan2.1-i2v-14b-720p",
       "comfyanonymous/ComfyUI_examples wan/README.md: Comfy-Org/Wan_2.1_ComfyUI_repackaged"},
      {"wan2.1_i2v_480p_14B_fp16.safetensors", "wan2.1-i2v-14b-720p",
       "comfyanonymous/ComfyUI_examples wan/README.md: Comfy-Org/Wan_2.1_ComfyUI_repackaged"},
      {"hunyuanvideo-community/HunyuanVideo", "hunyuanvideo",
       "diffusers docs/source/en/api/pipelines/hunyuan_video.md: the diffusers port of "
       "tencent/HunyuanVideo"},
      {"hunyuan_video_t2v_720p_bf16.safetensors", "hunyuanvideo",
       "comfyanonymous/ComfyUI_examples hunyuan_video/README.md"},
      {"a-r-r-o-w/LTX-Video-0.9.1-diffusers", "ltx-video-2b",
       "Lightricks/LTX-Video configs/ltxv-2b-0.9.1.yaml and diffusers convert_ltx_to_diffusers.py: "
       "0.9.0 to 0.9.6 share the 2B's 28 x 2048"},
      {"Lightricks/LTX-Video-0.9.5", "ltx-video-2b",
       "diffusers convert_ltx_to_diffusers.py '0.9.5': the 2B's transformer"},
      {"ltxv-13b-0.9.7-dev.safetensors", "ltx-video-13b",
       "Lightricks/LTX-Video configs/ltxv-13b-0.9.7-dev.yaml"},
      {"THUDM/CogVideoX-5b-I2V", "cogvideox-5b",
       "diffusers scripts/convert_cogvideox_to_diffusers.py: the I2V transformer is the 5B's with "
       "32 input channels (the image's latent joins the noise's channels, not its tokens)"},
      {"THUDM/CogVideoX1.5-5B-I2V", "cogvideox1.5-5b",
       "diffusers scripts/convert_cogvideox_to_diffusers.py: 1.5's transformer with 32 input "
       "channels"},
      {"Lightricks/LTX-Video-0.9.8-13B-distilled", "ltx-video-13b-distilled",
       "Lightricks/LTX-Video configs/ltxv-13b-0.9.8-distilled.yaml: the 0.9.7 13B's transformer, "
       "distilled (guidance 1)"},
      {"ltxv-13b-0.9.7-distilled.safetensors", "ltx-video-13b-distilled",
       "Lightricks/LTX-Video README's file list"},
      {"mochi_preview_bf16.safetensors", "mochi-1-preview",
       "comfyanonymous/ComfyUI_examples mochi/README.md"},
  };
  return kSame;
}

}  // namespace burst
