// The built-in table of what a diffusion pipeline holds besides its denoiser (`workload.model`):
// its text encoders (and image encoder), its VAE and the experts a denoiser alternates between.
// Every count is from the model's files or code (its `source`), never fitted; how they turn into
// memory: diffusion_memory.cpp and docs/cost-model.md, "Diffusion memory".
#include <string>
#include <vector>

#include "cost/cost_internal.h"

namespace burst::cost {
namespace {

// Text encoders, parameters (billions): CLIP ViT-L/14's text tower 0.123, OpenCLIP ViT-bigG/14's
// 0.695, OpenCLIP ViT-H/14's 0.354, T5 v1.1 XXL's encoder 4.76 (9.52 GB in bf16, HF blog
// diffusers-quantization.md at 0b53cb1: "T5 - 9.52 GB; CLIP - 246 MB (in BF16)"); SD's VAE
// (AutoencoderKL, 4 or 16 latent channels) 0.084 ("VAE ... 168 MB (in BF16)", the same blog).
constexpr double kClipL = 0.123, kClipG = 0.695, kOpenClipH = 0.354, kT5Xxl = 4.76;
constexpr double kSdVae = 0.084;
// umT5-XXL's encoder (Wan): umt5_xxl_fp16.safetensors, 11,366,399,385 bytes / 2
// (Comfy-Org/Wan_2.1_ComfyUI_repackaged at dfcea77). Wan 2.1's VAE: wan_2.1_vae.safetensors,
// 254 MB, 0.127; Wan 2.2's: wan2.2_vae.safetensors, 1.41 GB in 16 bits, 0.705.
constexpr double kUmt5Xxl = 5.68, kWan21Vae = 0.127, kWan22Vae = 0.705;

const std::vector<PipelineComponents>& table() {
  static const std::vector<PipelineComponents> kRows = {
      // name, encoders_b, vae_b, experts, source
      {"sd-1.5", kClipL, kSdVae, 1, "runwayml/stable-diffusion-v1-5: CLIPTextModel ViT-L/14"},
      {"lcm-dreamshaper-v7", kClipL, kSdVae, 1, "SimianLuo/LCM_Dreamshaper_v7: SD 1.5's"},
      {"sd-2.1", kOpenClipH, kSdVae, 1, "stabilityai/stable-diffusion-2-1: OpenCLIP ViT-H/14"},
      {"sd-2.1-base", kOpenClipH, kSdVae, 1, "stabilityai/stable-diffusion-2-1-base"},
      {"sd-turbo", kOpenClipH, kSdVae, 1, "stabilityai/sd-turbo: SD 2.1's"},
      {"sdxl", kClipL + kClipG, kSdVae, 1,
       "stabilityai/stable-diffusion-xl-base-1.0: CLIP ViT-L and OpenCLIP ViT-bigG"},
      {"sdxl-turbo", kClipL + kClipG, kSdVae, 1, "stabilityai/sdxl-turbo: SDXL's"},
      {"sdxl-lightning", kClipL + kClipG, kSdVae, 1, "ByteDance/SDXL-Lightning: SDXL's"},
      {"lcm-sdxl", kClipL + kClipG, kSdVae, 1, "latent-consistency/lcm-sdxl: SDXL's"},
      {"playground-v2.5", kClipL + kClipG, kSdVae, 1, "playgroundai/playground-v2.5: SDXL's"},
      {"ssd-1b", kClipL + kClipG, kSdVae, 1, "segmind/SSD-1B: SDXL's"},
      {"segmind-vega", kClipL + kClipG, kSdVae, 1, "segmind/Segmind-Vega: SDXL's"},
      {"sdxl-refiner", kClipG, kSdVae, 1, "stabilityai/stable-diffusion-xl-refiner-1.0: bigG"},
      {"sd-3-medium", kClipL + kClipG + kT5Xxl, kSdVae, 1,
       "stabilityai/stable-diffusion-3-medium-diffusers: CLIP-L, CLIP-G, T5-XXL ('the "
       "memory-intensive 4.7B parameter T5-XXL text encoder', diffusers' stable_diffusion_3.md)"},
      {"sd-3.5-large", kClipL + kClipG + kT5Xxl, kSdVae, 1,
       "HF blog sd3-5.md: 'text encoders, VAE ... stay exactly the same as SD3 Medium'"},
      {"sd-3.5-large-turbo", kClipL + kClipG + kT5Xxl, kSdVae, 1, "SD 3.5 Large's"},
      {"sd-3.5-medium", kClipL + kClipG + kT5Xxl, kSdVae, 1, "SD 3.5 Large's"},
      {"flux-dev", kClipL + kT5Xxl, kSdVae, 1,
       "black-forest-labs/FLUX.1-dev: CLIP-L and T5-XXL (pipeline_flux.py)"},
      {"flux-schnell", kClipL + kT5Xxl, kSdVae, 1, "FLUX.1 dev's"},
      {"flux-kontext-dev", kClipL + kT5Xxl, kSdVae, 1, "FLUX.1 dev's"},
      {"pixart-sigma", kT5Xxl, kSdVae, 1, "PixArt-alpha/PixArt-Sigma-XL-2-1024-MS: T5-XXL"},
      // HunyuanDiT: mT5-XL's encoder (t2i/mt5/config.json: d_model 2048, d_ff 5120 gated, 24
      // layers, vocabulary 250112: 1.67B) and a bilingual BERT-large CLIP text encoder (hidden
      // 1024, 24 layers, vocabulary 47020: 0.35B); SDXL's VAE.
      {"hunyuan-dit", 1.67 + 0.35, kSdVae, 1,
       "Tencent-Hunyuan/HunyuanDiT: t2i/mt5 and t2i/clip_text_encoder configs"},
      {"flux-2-dev", 24.0, kSdVae, 1,
       "black-forest-labs/FLUX.2-dev: Mistral-Small-3.1-24B as its text encoder"},
      {"cogview4", 9.4, kSdVae, 1,
       "THUDM/CogView4 README: encoder GLM-4-9B (THUDM/glm-4-9b-hf, 9.4B)"},
      {"lumina-image-2.0", 2.61, kSdVae, 1,
       "Alpha-VLLM/Lumina-Image-2.0: Gemma-2-2B (google/gemma-2-2b, 2.61B) and FLUX's VAE"},
      {"qwen-image", 8.29, kWan21Vae, 1,
       "Qwen/Qwen-Image: Qwen2.5-VL-7B-Instruct (8.29B) and a Wan 2.1-style VAE"},
      {"qwen-image-edit", 8.29, kWan21Vae, 1, "Qwen-Image's"},
      {"sana-600m", 2.61, 0, 1, "Efficient-Large-Model/Sana: Gemma-2-2B (DC-AE not counted)"},
      {"sana-1600m", 2.61, 0, 1, "Sana 600M's"},
      {"wan2.1-t2v-1.3b", kUmt5Xxl, kWan21Vae, 1, "Wan-Video/Wan2.1: umT5-XXL, Wan-VAE"},
      {"wan2.1-t2v-14b", kUmt5Xxl, kWan21Vae, 1, "Wan-Video/Wan2.1: umT5-XXL, Wan-VAE"},
      {"wan2.1-i2v-14b-720p", kUmt5Xxl, kWan21Vae, 1,
       "Wan-Video/Wan2.1: umT5-XXL, Wan-VAE (its CLIP image encoder's size not found, not "
       "counted)"},
      {"wan2.2-ti2v-5b", kUmt5Xxl, kWan22Vae, 1, "Wan-Video/Wan2.2: umT5-XXL, Wan2.2-VAE"},
      {"wan2.2-t2v-a14b", kUmt5Xxl, kWan21Vae, 2,
       "Wan-Video/Wan2.2: 'Each expert model has about 14B parameters, resulting in a total of "
       "27B'; umT5-XXL and Wan 2.1's VAE"},
      {"wan2.2-i2v-a14b", kUmt5Xxl, kWan21Vae, 2, "Wan 2.2 T2V-A14B's"},
      // HunyuanVideo: llava_llama3_fp16.safetensors 16.1 GB (8.03B) and CLIP-L;
      // hunyuan_video_vae_bf16.safetensors 493 MB (Comfy-Org/HunyuanVideo_repackaged at
      // 5cb3dc3).
      {"hunyuanvideo", 8.03 + kClipL, 0.246, 1,
       "Tencent/HunyuanVideo ckpts/README.md: llava-llama-3-8b's language model and CLIP-L"},
      // CogVideoX: T5-XXL; its VAE 431 MB in 16 bits (THUDM/CogVideoX-5b).
      {"cogvideox-2b", kT5Xxl, 0.216, 1, "THUDM/CogVideoX-2b: T5 v1.1 XXL"},
      {"cogvideox-5b", kT5Xxl, 0.216, 1, "THUDM/CogVideoX-5b: T5 v1.1 XXL"},
      {"cogvideox1.5-5b", kT5Xxl, 0.216, 1, "THUDM/CogVideoX1.5-5B: T5 v1.1 XXL"},
      {"ltx-video-2b", kT5Xxl, 0, 1, "Lightricks/LTX-Video: T5 v1.1 XXL (VAE not counted)"},
      {"ltx-video-13b", kT5Xxl, 0, 1, "LTX-Video's"},
      {"ltx-video-13b-distilled", kT5Xxl, 0, 1, "LTX-Video's"},
      {"mochi-1-preview", kT5Xxl, 0.362, 1,
       "genmo/mochi-1-preview: T5 v1.1 XXL; vae.bf16.safetensors 725 MB"},
  };
  return kRows;
}

}  // namespace

const PipelineComponents* pipeline_components(const std::string& model) {
  for (const PipelineComponents& c : table())
    if (model == c.name) return &c;
  return nullptr;
}

}  // namespace burst::cost
