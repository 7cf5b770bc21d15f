// Diffusion from the architecture: the work of one denoising pass from the denoiser's shape and
// the latent it denoises (an image's resolution, or seconds of audio), classifier-free guidance,
// the VAE or vocoder decode, and the efficiency per architecture fitted on the fit set
// (bench/validation). Every constant: docs/cost-model.md, "diffusion".
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst {

const std::vector<DiffusionShape>& diffusion_shapes() {
  // name, architecture, params_b (the denoiser alone), layers, hidden, patch, frames per second
  // of audio, guidance by default (0: guidance-distilled, one pass), resolution by default, the
  // UNet's two attention levels {latent-side divisor, width, transformer blocks}, source.
  static const std::vector<DiffusionShape> kShapes = {
      {"sd-1.5",
       "unet",
       0.86,
       0,
       0,
       1,
       0,
       7.5,
       512,
       {{1, 320, 5}, {2, 640, 5}},
       "https://huggingface.co/stable-diffusion-v1-5/stable-diffusion-v1-5 (unet/config.json)"},
      {"sd-2.1",
       "unet",
       0.87,
       0,
       0,
       1,
       0,
       7.5,
       768,
       {{1, 320, 5}, {2, 640, 5}},
       "https://huggingface.co/stabilityai/stable-diffusion-2-1 (unet/config.json)"},
      {"sdxl",
       "unet",
       2.57,
       0,
       0,
       1,
       0,
       5.0,
       1024,
       {{2, 640, 10}, {4, 1280, 60}},
       "https://huggingface.co/stabilityai/stable-diffusion-xl-base-1.0 (unet/config.json: "
       "transformer_layers_per_block [1, 2, 10])"},
      {"sd-3-medium",
       "dit",
       2.0,
       24,
       1536,
       2,
       0,
       7.0,
       1024,
       {},
       "https://huggingface.co/stabilityai/stable-diffusion-3-medium-diffusers "
       "(transformer/config.json: num_layers 24, 64 x 24 heads, patch 2)"},
      {"flux-dev",
       "dit",
       11.9,
       57,
       3072,
       2,
       0,
       0,
       1024,
       {},
       "https://huggingface.co/black-forest-labs/FLUX.1-dev (transformer/config.json: 19 + 38 "
       "blocks, 24 x 128 heads, guidance-distilled: pipeline_flux.py's guidance_scale 3.5 is an "
       "embedding)",
       true},
      {"flux-schnell",
       "dit",
       11.9,
       57,
       3072,
       2,
       0,
       0,
       1024,
       {},
       "https://huggingface.co/black-forest-labs/FLUX.1-schnell (transformer/config.json: "
       "FLUX.1-dev's 19 + 38 blocks of 24 x 128, guidance_embeds false; the card's example: "
       "guidance 0, 4 steps; pipeline_flux.py ignores guidance_scale without guidance_embeds)",
       true},
      {"sd-3.5-large",
       "dit",
       8.1,
       38,
       2432,
       2,
       0,
       3.5,
       1024,
       {},
       "https://huggingface.co/stabilityai/stable-diffusion-3.5-large (transformer/config.json: "
       "num_layers 38, 38 x 64 heads, patch 2; 8.1B per Stability's announcement; guidance 3.5 and "
       "28 steps in copies of the card's example)"},
      {"sd-3.5-large-turbo",
       "dit",
       8.1,
       38,
       2432,
       2,
       0,
       0,
       1024,
       {},
       "https://huggingface.co/stabilityai/stable-diffusion-3.5-large-turbo (SD 3.5 Large's "
       "transformer, adversarially distilled: the card's example runs 4 steps at guidance 0)"},
      {"sd-3.5-medium",
       "dit",
       2.5,
       24,
       1536,
       2,
       0,
       4.5,
       1024,
       {},
       "https://huggingface.co/stabilityai/stable-diffusion-3.5-medium (transformer/config.json: "
       "num_layers 24, 24 x 64 heads, patch 2; the second attention of its 13 dual-attention "
       "layers is not counted; guidance 4.5 and 40 steps in copies of the card's example)"},
      {"sdxl-turbo",
       "unet",
       2.57,
       0,
       0,
       1,
       0,
       0,
       512,
       {{2, 640, 10}, {4, 1280, 60}},
       "https://huggingface.co/stabilityai/sdxl-turbo (SDXL 1.0's UNet, distilled: the card runs "
       "one step at guidance 0, 512 x 512)"},
      // Added 2026-12-01: each denoiser from the conversion script or official code that builds it
      // (no diffusers config.json of these in reach), its parameter count from its README.
      {"pixart-sigma",
       "dit",
       0.6,
       28,
       1152,
       2,
       0,
       4.5,
       1024,
       {},
       "https://huggingface.co/PixArt-alpha/PixArt-Sigma-XL-2-1024-MS (diffusers "
       "scripts/convert_pixart_sigma_to_diffusers.py: num_layers 28, 16 x 72 heads, patch 2; 0.6B "
       "per PixArt-alpha/PixArt-sigma's README; guidance 4.5 in pipeline_pixart_sigma.py)"},
      {"hunyuan-dit",
       "dit",
       1.5,
       40,
       1408,
       2,
       0,
       5.0,
       1024,
       {},
       "https://huggingface.co/Tencent-Hunyuan/HunyuanDiT-v1.2-Diffusers (Tencent/HunyuanDiT "
       "hydit/modules/models.py DiT-g/2: depth 40, hidden 1408, patch 2; 1.5B per its README; "
       "guidance 5 in diffusers' pipeline_hunyuandit.py)"},
      {"playground-v2.5",
       "unet",
       2.57,
       0,
       0,
       1,
       0,
       3.0,
       1024,
       {{2, 640, 10}, {4, 1280, 60}},
       "https://huggingface.co/playgroundai/playground-v2.5-1024px-aesthetic (SDXL's "
       "architecture, per Playground's cards and diffusers' single_file_utils.py, which reads its "
       "checkpoint as an SDXL UNet; the card's example: guidance 3, 1024 x 1024)"},
      {"sd-2.1-base",
       "unet",
       0.87,
       0,
       0,
       1,
       0,
       7.5,
       512,
       {{1, 320, 5}, {2, 640, 5}},
       "https://huggingface.co/stabilityai/stable-diffusion-2-1-base (unet/config.json: SD 2.1's, "
       "at sample_size 64, 512 px)"},
      // Added 2026-12-02, each from the sources in its row (diffusers 58eb52c's pipelines and
      // conversion scripts, ComfyUI's model_detection.py for the distilled SDXL UNets, the
      // official repositories). UNet levels: transformer blocks summed over the down, mid and up
      // blocks at each latent divisor; the trailing flags are the optional fields after `source`
      // (guidance in one pass, guidance in turn, linear attention, VAE downsampling, input images).
      {"sdxl-lightning",
       "unet",
       2.57,
       0,
       0,
       1,
       0,
       0,
       1024,
       {{2, 640, 10}, {4, 1280, 60}},
       "https://huggingface.co/ByteDance/SDXL-Lightning (the card loads its 1-, 2-, 4- and 8-step "
       "UNet checkpoints into SDXL 1.0 base's unet config and runs them at guidance_scale=0)"},
      {"lcm-sdxl",
       "unet",
       2.57,
       0,
       0,
       1,
       0,
       8.0,
       1024,
       {{2, 640, 10}, {4, 1280, 60}},
       "https://huggingface.co/latent-consistency/lcm-sdxl (unet/config.json: SDXL base's, with a "
       "guidance embedding; diffusers' latent_consistency_models.md: 4 steps at guidance 8, and "
       "'LCM applies guidance with guidance embeddings and doesn't need to double the batch')",
       true},
      {"lcm-dreamshaper-v7",
       "unet",
       0.86,
       0,
       0,
       1,
       0,
       8.5,
       768,
       {{1, 320, 5}, {2, 640, 5}},
       "https://huggingface.co/SimianLuo/LCM_Dreamshaper_v7 (unet/config.json as "
       "deinferno/LCM_Dreamshaper_v7-openvino copies it: SD 1.5's blocks, sample_size 96, "
       "time_cond_proj_dim 256; pipeline_latent_consistency_text2img.py: 4 steps, guidance 8.5, "
       "do_classifier_free_guidance False)",
       true},
      {"sd-turbo",
       "unet",
       0.87,
       0,
       0,
       1,
       0,
       0,
       512,
       {{1, 320, 5}, {2, 640, 5}},
       "https://huggingface.co/stabilityai/sd-turbo (a distilled SD 2.1, its unet/config.json SD "
       "2.1's blocks; the card: one step at guidance_scale=0.0, 512 x 512)"},
      {"sdxl-refiner",
       "unet",
       2.26,
       0,
       0,
       1,
       0,
       5.0,
       1024,
       {{2, 768, 20}, {4, 1536, 20}, {8, 1536, 4}},
       "https://huggingface.co/stabilityai/stable-diffusion-xl-refiner-1.0 (unet/config.json: "
       "block_out_channels [384, 768, 1536, 1536]; Stability-AI/generative-models "
       "sd_xl_refiner.yaml: transformer_depth 4 at attention_resolutions [4, 2] and the middle; "
       "2.26B from its 9.04 GB fp32 file; pipeline_stable_diffusion_xl_img2img.py: guidance 5, "
       "50 steps x strength 0.3 = 15 run)"},
      {"ssd-1b",
       "unet",
       1.3,
       0,
       0,
       1,
       0,
       5.0,
       1024,
       {{2, 640, 8}, {4, 1280, 26}},
       "https://huggingface.co/segmind/SSD-1B (1.3B per segmind/SSD-1B's README; ComfyUI "
       "model_detection.py SSD_1B: transformer_depth [0, 0, 2, 2, 4, 4], output [0, 0, 0, 1, 1, 2, "
       "10, 4, 4], no middle transformer; the card runs the SDXL pipeline's guidance 5)"},
      {"segmind-vega",
       "unet",
       0.74,
       0,
       0,
       1,
       0,
       5.0,
       1024,
       {{2, 640, 5}, {4, 1280, 10}},
       "https://huggingface.co/segmind/Segmind-Vega (0.74B per arXiv 2401.02677; ComfyUI "
       "model_detection.py Segmind_Vega: transformer_depth [0, 0, 1, 1, 2, 2], output [0, 0, 0, 1, "
       "1, 1, 2, 2, 2], no middle transformer; the SDXL pipeline's guidance 5)"},
      {"kandinsky-2.2",
       "unet",
       1.22,
       0,
       0,
       1,
       0,
       4.0,
       512,
       {{2, 768, 7}, {4, 1152, 7}, {8, 1536, 8}},
       "https://huggingface.co/kandinsky-community/kandinsky-2-2-decoder (unet/config.json: "
       "block_out_channels [384, 768, 1152, 1536], layers_per_block 3, one attention a block at "
       "the three lower levels and the middle; 1.22B per ai-forever/Kandinsky-2's README; MoVQ "
       "downsamples 8; pipeline_kandinsky2_2.py: 512 x 512, 100 steps, guidance 4)"},
      {"sana-600m",
       "dit",
       0.6,
       28,
       1152,
       1,
       0,
       4.5,
       1024,
       {},
       "https://huggingface.co/Efficient-Large-Model/Sana_600M_1024px_diffusers (diffusers "
       "scripts/convert_sana_to_diffusers.py SanaMS_600M_P1_D28: 28 layers, 36 x 32 heads, patch "
       "1, DC-AE f32c32; ReLU linear self-attention; 0.6B per NVlabs/Sana's model zoo; "
       "pipeline_sana.py: 20 steps, guidance 4.5)",
       false,
       false,
       true,
       32},
      {"sana-1600m",
       "dit",
       1.6,
       20,
       2240,
       1,
       0,
       4.5,
       1024,
       {},
       "https://huggingface.co/Efficient-Large-Model/Sana_1600M_1024px_diffusers (diffusers "
       "scripts/convert_sana_to_diffusers.py SanaMS_1600M_P1_D20: 20 layers, 70 x 32 heads, patch "
       "1, DC-AE f32c32; ReLU linear self-attention; 1.6B per NVlabs/Sana's model zoo; "
       "pipeline_sana.py: 20 steps, guidance 4.5)",
       false,
       false,
       true,
       32},
      {"flux-kontext-dev",
       "dit",
       11.9,
       57,
       3072,
       2,
       0,
       2.5,
       1024,
       {},
       "https://huggingface.co/black-forest-labs/FLUX.1-Kontext-dev (black-forest-labs/flux "
       "util.py flux-dev-kontext: FLUX.1-dev's 19 + 38 blocks of 3072, guidance_embed; "
       "sampling.py and diffusers' pipeline_flux_kontext.py concatenate the input image's tokens "
       "to the latent's; cli_kontext.py: 30 steps, guidance 2.5)",
       true,
       false,
       false,
       0,
       1},
      {"qwen-image",
       "dit",
       20.4,
       60,
       3072,
       2,
       0,
       4.0,
       1024,
       {},
       "https://huggingface.co/Qwen/Qwen-Image (transformer/config.json as kohya-ss/musubi-tuner "
       "copies it: num_layers 60, 24 x 128 heads, patch_size 2; 20B per QwenLM/Qwen-Image's "
       "README, 20.43B counted; the README's example: 50 steps, true_cfg_scale 4 with a negative "
       "prompt, which pipeline_qwenimage.py runs as a second call)",
       false,
       true},
      {"qwen-image-edit",
       "dit",
       20.4,
       60,
       3072,
       2,
       0,
       4.0,
       1024,
       {},
       "https://huggingface.co/Qwen/Qwen-Image-Edit (Qwen-Image's transformer; "
       "pipeline_qwenimage_edit.py concatenates the input image's latent tokens to the latent's "
       "and runs true CFG as a second call; QwenLM/Qwen-Image README: 50 steps, true_cfg_scale 4, "
       "negative prompt ' ')",
       false,
       true,
       false,
       0,
       1},
      {"auraflow",
       "dit",
       6.8,
       36,
       3072,
       2,
       0,
       3.5,
       1024,
       {},
       "https://huggingface.co/fal/AuraFlow-v0.3 (diffusers auraflow_transformer_2d.py: 4 MMDiT + "
       "32 single blocks, 12 x 256 heads, patch 2; 6.8B per openlaboratory.ai, 6.79B counted; "
       "pipeline_aura_flow.py: 50 steps, guidance 3.5)"},
      {"lumina-image-2.0",
       "dit",
       2.6,
       28,
       2304,
       2,
       0,
       4.0,
       1024,
       {},
       "https://huggingface.co/Alpha-VLLM/Lumina-Image-2.0 (transformer/config.json as "
       "sgl-project/sglang's test_lumina2.py copies it: 26 layers and 2 noise-refiner layers over "
       "the image tokens, 24 x 96 heads, patch 2; 2.6B per its README; pipeline_lumina2.py: 30 "
       "steps, guidance 4, the unconditional pass a second call)",
       false,
       true},
      {"cogview4",
       "dit",
       6.0,
       28,
       4096,
       2,
       0,
       5.0,
       1024,
       {},
       "https://huggingface.co/THUDM/CogView4-6B (diffusers convert_cogview4_to_diffusers.py: 28 "
       "layers, 32 x 128 heads, patch 2; 6B per its name, 5.6B in its blocks; "
       "pipeline_cogview4.py: 50 steps, guidance 5, the unconditional pass a second call)",
       false,
       true},
      {"flux-2-dev",
       "dit",
       32.0,
       56,
       6144,
       2,
       0,
       4.0,
       1024,
       {},
       "https://huggingface.co/black-forest-labs/FLUX.2-dev (diffusers "
       "convert_flux2_to_diffusers.py "
       "flux2-dev: 8 + 48 blocks, 48 x 128 heads, 2 x 2 latents a token; 32B per "
       "black-forest-labs/flux2's README, guidance-distilled; pipeline_flux2.py: 50 steps, "
       "guidance 4 as an embedding)",
       true},
      {"e2-tts",
       "flow-tts",
       0.333,
       24,
       1024,
       1,
       cost::kMelFramesPerSecond,
       2.0,
       0,
       {},
       "https://github.com/SWivid/F5-TTS (src/f5_tts/configs/E2TTS_Base.yaml: UNetT, dim 1024, "
       "depth 24, ff_mult 4; F5-TTS's mel settings and cfg_strength 2; 0.333B summed from its "
       "modules)"},
      {"f5-tts",
       "flow-tts",
       0.336,
       22,
       1024,
       1,
       cost::kMelFramesPerSecond,
       2.0,
       0,
       {},
       "https://github.com/SWivid/F5-TTS (F5TTS_Base: dim 1024, depth 22; 24 kHz mel, hop 256; "
       "cfg_strength 2)"},
  };
  return kShapes;
}

const DiffusionShape* find_diffusion_model(const std::string& name) {
  return cost::find_row(diffusion_shapes(), name);
}

Workload with_diffusion_shape(const Workload& w, const DiffusionShape& m) {
  Workload out = w;
  if (!out.params_b) out.params_b = m.params_b;
  if (out.architecture.empty()) out.architecture = m.architecture;
  if (!out.layers && m.layers > 0) out.layers = m.layers;
  if (!out.hidden && m.hidden > 0) out.hidden = m.hidden;
  if (!out.resolution && m.resolution > 0 && !out.audio_seconds) out.resolution = m.resolution;
  if (!out.guidance) out.guidance = m.guidance;
  return out;
}

const std::vector<DiffusionFit>& diffusion_fits() {
  // Fitted by bench/validate_cost_model.py --fit on the fit set's diffusion rows only (the
  // diffusers PyTorch 2.0 benchmark and stable-fast's vanilla-PyTorch rows for UNets, the F5-TTS
  // papers for flow-matching TTS), with step = max(bytes / (bw x eta_bw), flops / (tflops x eta),
  // t0): t0 is the per-step host overhead, a floor that batching amortises until the card's
  // compute saturates; tflops is tensor_tflops() (the FP32-accumulate rate on GeForce, as
  // PyTorch runs fp16; a power-capped card's sustained share), t0 paid once per denoiser call
  // (DiffusionWork::calls: two a step where guidance's passes run in turn, as on the F5-TTS code
  // of the fit rows, one where they run as one batch). eta is the published-MFU prior
  // (default_calibration's eta_compute), not fitted: fitting it per architecture fits each
  // source's software and predicts the other source worse (leave-one-source-out on the image
  // rows 36% against 18%). Only t0 is fitted (least absolute log error), per architecture; a DiT,
  // without rows of its own, takes the pooled one. The F5-TTS rows are compute-bound within 9%
  // (the paper's two in fp32, at the card's FP32 rate: cost/fp32_rate.h) and bound t0 only from
  // above: the largest t0 they allow, set by Fast F5-TTS's 7 steps of two calls each (its code,
  // SWivid/F5-TTS 2e2acc6, calls the transformer twice a step). Residuals: docs/cost-model.md.
  static const std::vector<DiffusionFit> kFits{
      // architecture, memory, eta_compute, t0_s, fit-set rows   fit-set median error
      {"unet", "", 0.45, 0.04015, 20},     // 15.3%
      {"flow-tts", "", 0.45, 0.02215, 3},  // 5.5% (F5-TTS on an RTX 3090)
      {"", "", 0.45, 0.03690, 23},         // 13.1%
  };
  return kFits;
}

const DiffusionFit* diffusion_fit(const std::string& architecture, const std::string& memory) {
  for (const std::string& arch : {architecture, std::string()}) {
    for (const std::string& mem : {memory, std::string()}) {
      for (const DiffusionFit& f : diffusion_fits())
        if (arch == f.architecture && mem == f.memory) return &f;
    }
  }
  return nullptr;
}

namespace {

// Attention of one transformer block over n tokens of width d: QK^T and AV, 2 n^2 d
// multiply-adds each.
double attention_flops(double n, double d) { return 4.0 * n * n * d; }

}  // namespace

Result<DiffusionWork> diffusion_work_of(const Workload& w, double params) {
  DiffusionWork d;
  d.architecture = !w.architecture.empty() ? w.architecture : "dit";
  if (d.architecture != "unet" && d.architecture != "dit" && d.architecture != "flow-tts") {
    return make_error(ErrorCode::kInvalid, "workload.architecture \"" + w.architecture +
                                               "\" is not one of unet, dit, flow-tts");
  }
  const DiffusionShape* shape = find_diffusion_model(w.model);
  const cost::Shape s = cost::shape_of(w, params);
  const double guidance =
      w.guidance.value_or(w.architecture.empty() && !w.resolution && !w.audio_seconds ? 0 : 2);
  d.passes = guidance > 1 && !(shape && shape->guidance_in_one_pass) ? 2 : 1;
  d.calls = w.guidance_batched.value_or(!(shape && shape->guidance_in_turn)) ? 1 : d.passes;
  if (d.architecture == "flow-tts") {
    if (!w.audio_seconds && !(w.tokens && *w.tokens > 0))
      return make_error(ErrorCode::kInvalid,
                        "workload.audio_seconds (seconds of audio per item) is required to "
                        "estimate a flow-tts diffusion");
    const double fps =
        shape && shape->frame_rate > 0 ? shape->frame_rate : cost::kMelFramesPerSecond;
    d.latent_tokens = w.audio_seconds ? *w.audio_seconds * fps : static_cast<double>(*w.tokens);
    d.flops_per_pass =
        2.0 * params * d.latent_tokens + s.layers * attention_flops(d.latent_tokens, s.hidden);
    d.decode_flops = cost::kVocoderFlopsPerAudioSecond * w.audio_seconds.value_or(0);
    return d;
  }
  if (!w.resolution) {
    // No image size: the latent positions each parameter is applied to, as workload.tokens says
    // (docs/cost-model.md: the old effective-token form), without an attention term or decode.
    d.latent_tokens = static_cast<double>(
        w.tokens && *w.tokens > 0 ? *w.tokens : cost::kDiffusionDefaultTokensPerItem);
    d.flops_per_pass = 2.0 * params * d.latent_tokens;
    return d;
  }
  const double downsample =
      shape && shape->vae_downsample > 0 ? shape->vae_downsample : cost::kVaeDownsample;
  const double side = static_cast<double>(*w.resolution) / downsample;
  const double positions = side * side;
  const double megapixels = static_cast<double>(*w.resolution) * *w.resolution / 1e6;
  d.decode_flops = cost::kVaeDecodeFlopsPerMegapixel * megapixels;
  if (d.architecture == "unet") {
    d.latent_tokens = positions;
    d.flops_per_pass = 2.0 * params * positions / cost::kUnetPositionsPerParamUse;
    const auto& levels = shape && shape->attention[0].blocks > 0
                             ? shape->attention
                             : find_diffusion_model("sd-1.5")->attention;
    for (const UnetAttention& a : levels) {
      if (a.blocks <= 0) continue;
      const double n = positions / (a.divisor * a.divisor);
      d.flops_per_pass += a.blocks * attention_flops(n, a.width);
    }
    return d;
  }
  const double patch = shape && shape->patch > 0 ? shape->patch : cost::kDitPatch;
  // An editing model's input images are encoded by the same VAE at the same size and their
  // tokens concatenated to the noisy latent's: every block runs over both.
  const double images = 1.0 + (shape ? std::max(0, shape->image_inputs) : 0);
  d.latent_tokens = images * positions / (patch * patch);
  d.flops_per_pass = 2.0 * params * d.latent_tokens;
  // Linear attention (Sana's ReLU kernel, heads of 32) costs 4 T x hidden x 32 a layer: under 1%
  // of the linear layers' 2 P T / layers; left out like the biases.
  if (!(shape && shape->linear_attention))
    d.flops_per_pass += s.layers * attention_flops(d.latent_tokens, s.hidden);
  return d;
}

}  // namespace burst
