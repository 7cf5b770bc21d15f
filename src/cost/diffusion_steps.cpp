// The denoising steps a named model runs when the spec gives none: what its publisher's card,
// README or official inference script runs (a user following the model's own instructions),
// else, where they pass no count, the default of the diffusers pipeline that runs it
// (huggingface/diffusers 58eb52c). A few-step model's pipeline default is 28-50 steps where its
// card runs 1-4, so the card comes first. Contract: cost_internal.h; docs/cost-model.md,
// "Default steps".
#include <string>

#include "cost/cost_internal.h"

namespace burst::cost {

namespace {

struct DefaultSteps {
  const char* model;  // a row of diffusion_shapes()
  long steps;
  const char* source;
};

constexpr DefaultSteps kSteps[] = {
    {"sd-1.5", 50, "card passes none; StableDiffusionPipeline num_inference_steps=50"},
    {"sd-2.1", 50, "card passes none; StableDiffusionPipeline 50"},
    {"sd-2.1-base", 50, "StableDiffusionPipeline 50"},
    {"sdxl", 50, "card passes none; StableDiffusionXLPipeline 50"},
    {"sdxl-refiner", 15,
     "card passes none; StableDiffusionXLImg2ImgPipeline 50 steps at strength 0.3: "
     "int(50 x 0.3) run"},
    {"sdxl-turbo", 1, "diffusers sdxl_turbo.md and the card: num_inference_steps=1"},
    {"sdxl-lightning", 4, "the card's 4-step checkpoint: num_inference_steps=4"},
    {"lcm-sdxl", 4, "diffusers latent_consistency_models.md: num_inference_steps=4"},
    {"lcm-dreamshaper-v7", 4, "luosiallen/latent-consistency-model README: 4 steps"},
    {"sd-turbo", 1, "card: num_inference_steps=1"},
    {"ssd-1b", 50, "card passes none; StableDiffusionXLPipeline 50"},
    {"segmind-vega", 50, "card passes none; StableDiffusionXLPipeline 50"},
    {"sd-3-medium", 28, "diffusers stable_diffusion_3.md: num_inference_steps=28"},
    {"sd-3.5-large", 28, "card: num_inference_steps=28"},
    {"sd-3.5-large-turbo", 4, "Stability-AI/sd3.5 sd3_infer.py: steps 4"},
    {"sd-3.5-medium", 40, "card: num_inference_steps=40"},
    {"flux-dev", 50, "card and black-forest-labs/flux src/flux/cli.py: 50"},
    {"flux-schnell", 4, "card and black-forest-labs/flux src/flux/cli.py: 4"},
    {"flux-kontext-dev", 28, "card passes none; FluxKontextPipeline 28"},
    {"flux-2-dev", 50, "black-forest-labs/flux2 model card: num_inference_steps=50"},
    {"pixart-sigma", 20, "README passes none; PixArtSigmaPipeline 20"},
    {"hunyuan-dit", 50, "the README's diffusers example passes none; HunyuanDiTPipeline 50"},
    {"playground-v2.5", 50, "card: num_inference_steps=50"},
    {"kandinsky-2.2", 100, "card passes none; KandinskyV22Pipeline (the decoder) 100"},
    {"sana-600m", 20, "SanaPipeline 20"},
    {"sana-1600m", 20, "NVlabs/Sana model_zoo.md: num_inference_steps=20"},
    {"qwen-image", 50, "QwenLM/Qwen-Image README: num_inference_steps=50"},
    {"qwen-image-edit", 50, "QwenLM/Qwen-Image README: num_inference_steps 50"},
    {"auraflow", 50, "card: num_inference_steps=50"},
    {"lumina-image-2.0", 50, "Alpha-VLLM/Lumina-Image-2.0 README: num_inference_steps=50"},
    {"cogview4", 50, "THUDM/CogView4 README and cli_demo_cogview4.py: 50"},
    {"f5-tts", 32, "SWivid/F5-TTS utils_infer.py: nfe_step = 32"},
    {"e2-tts", 32, "SWivid/F5-TTS utils_infer.py: nfe_step = 32"},
    {"wan2.1-t2v-1.3b", 50, "Wan-Video/Wan2.1 generate.py: 50 for text-to-video"},
    {"wan2.1-t2v-14b", 50, "Wan-Video/Wan2.1 generate.py: 50 for text-to-video"},
    {"wan2.1-i2v-14b-720p", 40, "Wan-Video/Wan2.1 generate.py: 40 for image-to-video"},
    {"wan2.2-ti2v-5b", 50, "Wan-Video/Wan2.2 wan/configs/wan_ti2v_5B.py: sample_steps = 50"},
    {"wan2.2-t2v-a14b", 40, "Wan-Video/Wan2.2 wan/configs/wan_t2v_A14B.py: sample_steps = 40"},
    {"wan2.2-i2v-a14b", 40, "Wan-Video/Wan2.2 wan/configs/wan_i2v_A14B.py: sample_steps = 40"},
    {"hunyuanvideo", 50, "Tencent/HunyuanVideo hyvideo/config.py: --infer-steps 50"},
    {"cogvideox-2b", 50, "THUDM/CogVideo inference/cli_demo.py: 50"},
    {"cogvideox-5b", 50, "THUDM/CogVideo inference/cli_demo.py: 50"},
    {"cogvideox1.5-5b", 50, "THUDM/CogVideo inference/cli_demo.py: 50"},
    {"ltx-video-2b", 40, "Lightricks/LTX-Video configs/ltxv-2b-0.9.yaml: 40"},
    // Its two resolutions' 27 + 13 steps, all priced at the full size (the row's one size).
    {"ltx-video-13b", 40, "Lightricks/LTX-Video configs/ltxv-13b-0.9.8-dev.yaml: 27 + 13"},
    {"ltx-video-13b-distilled", 10,
     "Lightricks/LTX-Video configs/ltxv-13b-0.9.8-distilled.yaml: 7 + 3 timesteps"},
    {"mochi-1-preview", 64, "genmoai/mochi demos/cli.py: --num_steps 64"},
};

}  // namespace

long default_diffusion_steps(const std::string& model) {
  for (const DefaultSteps& s : kSteps)
    if (model == s.model) return s.steps;
  return 0;
}

}  // namespace burst::cost
