// The built-in table of video denoisers' shapes (`workload.model`, `--model`): each row from the
// model's config, conversion script or pipeline (its `source`), never fitted. The token path
// (VideoLatent::token_params_b) is counted from the block shapes the source gives: attention's
// q, k, v, o (4 d^2 a block), cross-attention's q and o where the text enters by cross-attention
// (2 d^2; its k and v run on the text), and the MLP. How a row turns into work per pass:
// diffusion.cpp; docs/cost-model.md, "Video".
#include <vector>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst::cost {
namespace {

// The fields a video row fills: the rest of DiffusionShape as an image DiT's (no UNet levels, no
// audio frame rate, guidance batched unless `in_turn`, SD's 8x VAE unless `vae`).
DiffusionShape video_row(const char* name, double params_b, long layers, long hidden, double patch,
                         double guidance, long width, long height, long frames,
                         double temporal_downsample, double temporal_patch, double token_params_b,
                         const char* source, bool one_pass = false, bool in_turn = false,
                         double vae = 0) {
  DiffusionShape d{name, "dit", params_b, layers, hidden, patch, 0, guidance, width, {}, source};
  d.guidance_in_one_pass = one_pass;
  d.guidance_in_turn = in_turn;
  d.vae_downsample = vae;
  d.video = {temporal_downsample, temporal_patch, frames, height, token_params_b};
  return d;
}

// A row with its attention heads (VideoLatent::heads), as its source gives them.
DiffusionShape with_heads(DiffusionShape d, long heads) {
  d.video.heads = heads;
  return d;
}

}  // namespace

const std::vector<DiffusionShape>& video_shapes() {
  // name, params_b (the denoiser), layers, hidden, patch, guidance, width, height, frames (the
  // pipeline's defaults), the VAE's temporal downsampling, latent frames a token, the token
  // path's parameters (billions), source; guidance embedded (one pass), guidance's passes as
  // two calls, the VAE's spatial downsampling. with_heads: the attention heads, hidden / head
  // dim (Wan's configs: num_heads 12, 40 and 24; HunyuanVideo's hyvideo/modules/models.py:
  // heads_num 24; the others as their sources give them).
  static const std::vector<DiffusionShape> kShapes = {
      // Wan 2.1 and 2.2: text by cross-attention (512 tokens), guidance's two passes as two calls
      // a step (generate.py and diffusers' pipeline_wan.py), 1 + (F - 1) / 4 latent frames.
      with_heads(
          video_row(
              "wan2.1-t2v-1.3b", 1.42, 30, 1536, 2, 5.0, 832, 480, 81, 4, 1, 1.25,
              "https://huggingface.co/Wan-AI/Wan2.1-T2V-1.3B (Wan-Video/Wan2.1 "
              "wan/configs/wan_t2v_1_3B.py: dim 1536, ffn 8960, 30 layers, patch (1, 2, 2), "
              "vae_stride (4, 8, 8); generate.py: 81 frames, 50 steps, guidance 5; 1.42B summed "
              "from wan/modules/model.py)",
              false, true),
          12),
      with_heads(
          video_row("wan2.1-t2v-14b", 14.29, 40, 5120, 2, 5.0, 1280, 720, 81, 4, 1, 11.95,
                    "https://huggingface.co/Wan-AI/Wan2.1-T2V-14B (Wan-Video/Wan2.1 "
                    "wan/configs/wan_t2v_14B.py: dim 5120, ffn 13824, 40 layers, patch (1, 2, 2); "
                    "generate.py: 1280*720, 81 frames, 50 steps, guidance 5; 14.29B summed)",
                    false, true),
          40),
      // Its image enters by its own cross-attention (257 CLIP tokens) and as channels of the
      // latent: the video tokens are T2V's.
      with_heads(
          video_row("wan2.1-i2v-14b-720p", 16.39, 40, 5120, 2, 5.0, 1280, 720, 81, 4, 1, 11.95,
                    "https://huggingface.co/Wan-AI/Wan2.1-I2V-14B-720P (Wan-Video/Wan2.1 "
                    "wan/configs/wan_i2v_14B.py: T2V-14B's blocks with k_img and v_img, 36 input "
                    "channels; generate.py: 40 steps for i2v, guidance 5; 16.39B summed)",
                    false, true),
          40),
      // Wan 2.2's own VAE: 16 x 16 pixels a latent position, 2 x 2 positions a token.
      with_heads(
          video_row("wan2.2-ti2v-5b", 5.00, 30, 3072, 2, 5.0, 1280, 704, 121, 4, 1, 4.34,
                    "https://huggingface.co/Wan-AI/Wan2.2-TI2V-5B (Wan-Video/Wan2.2 "
                    "wan/configs/wan_ti2v_5B.py: dim 3072, ffn 14336, 30 layers, patch (1, 2, 2), "
                    "vae_stride (4, 16, 16), 121 frames, 50 steps, guidance 5)",
                    false, true, 16),
          24),
      // A14B: two 14B experts, the high-noise one above a boundary timestep and the low-noise
      // one below: one runs each step (and the pipeline holds or offloads the other).
      with_heads(
          video_row("wan2.2-t2v-a14b", 14.29, 40, 5120, 2, 4.0, 1280, 720, 81, 4, 1, 11.95,
                    "https://huggingface.co/Wan-AI/Wan2.2-T2V-A14B (Wan-Video/Wan2.2 "
                    "wan/configs/wan_t2v_A14B.py: each expert Wan 2.1 14B's shape, boundary 0.875, "
                    "40 steps, guidance (3.0, 4.0); 'only 14B active parameters per step' per the "
                    "README)",
                    false, true),
          40),
      with_heads(
          video_row(
              "wan2.2-i2v-a14b", 14.29, 40, 5120, 2, 3.5, 1280, 720, 81, 4, 1, 11.95,
              "https://huggingface.co/Wan-AI/Wan2.2-I2V-A14B (Wan-Video/Wan2.2 "
              "wan/configs/wan_i2v_A14B.py: the T2V experts' shape with 36 input channels and no "
              "CLIP branch, boundary 0.9, 40 steps, guidance 3.5)",
              false, true),
          40),
      // HunyuanVideo: 20 two-stream and 40 single-stream blocks over the joint video and text
      // sequence (the 256 text tokens, 0.2% of 720p's, are left out); guidance distilled into
      // an embedding, one pass a step. The token path: each block's video stream, 12 d^2.
      with_heads(
          video_row(
              "hunyuanvideo", 12.82, 60, 3072, 2, 6.0, 1280, 720, 129, 4, 1, 6.79,
              "https://huggingface.co/tencent/HunyuanVideo (Tencent/HunyuanVideo "
              "hyvideo/modules/models.py HYVideo-T/2-cfgdistill: 20 double and 40 single blocks "
              "of 3072, patch [1, 2, 2], guidance_embed; hyvideo/config.py: 720 x 1280, 129 "
              "frames, 50 steps, embedded guidance 6; 'over 13 billion parameters', 12.82B "
              "summed)",
              true),
          24),
      // CogVideoX: 226 text tokens join every layer's attention and MLP (1.3% of its tokens at
      // 720 x 480, left out); guidance as one call of twice the batch.
      with_heads(
          video_row(
              "cogvideox-2b", 1.69, 30, 1920, 2, 6.0, 720, 480, 49, 4, 1, 1.33,
              "https://huggingface.co/THUDM/CogVideoX-2b (diffusers "
              "convert_cogvideox_to_diffusers.py: 30 layers, 30 x 64 heads; "
              "pipeline_cogvideox.py: 720 x 480, 49 frames, 50 steps, guidance 6; 1.69B summed)"),
          30),
      with_heads(
          video_row(
              "cogvideox-5b", 5.57, 42, 3072, 2, 6.0, 720, 480, 49, 4, 1, 4.76,
              "https://huggingface.co/THUDM/CogVideoX-5b (diffusers "
              "convert_cogvideox_to_diffusers.py: 42 layers, 48 x 64 heads; the same pipeline "
              "defaults; 5.57B summed)"),
          48),
      // 1.5: two latent frames a token (patch_size_t 2, the last padded).
      with_heads(
          video_row(
              "cogvideox1.5-5b", 5.57, 42, 3072, 2, 6.0, 1360, 768, 81, 4, 2, 4.76,
              "https://huggingface.co/THUDM/CogVideoX1.5-5B (diffusers "
              "convert_cogvideox_to_diffusers.py: the 5B's blocks, patch_size_t 2, sample_frames "
              "81; THUDM/CogVideo cli_demo.py: 1360 x 768, 50 steps, guidance 6)"),
          48),
      // LTX-Video: 32 x 32 pixels and 8 frames a latent, one latent a token; text by
      // cross-attention. diffusers' LTXPipeline batches guidance's two passes; the official
      // inference.py adds a third (spatio-temporal guidance), not counted.
      with_heads(
          video_row(
              "ltx-video-2b", 1.92, 28, 2048, 1, 3.0, 704, 512, 161, 8, 1, 1.64,
              "https://huggingface.co/Lightricks/LTX-Video (diffusers convert_ltx_to_diffusers.py: "
              "28 layers of 2048, 32 x 64 heads, patch 1; the VAE 32 x 32 x 8 (arXiv "
              "2501.00103); pipeline_ltx.py: 704 x 512, 161 frames, 50 steps, guidance 3; 1.92B "
              "summed)",
              false, false, 32),
          32),
      // The 13B's official pipeline denoises twice, at two thirds and then twice that size,
      // with guidance scheduled by step: a plan gives the size of each pass it prices.
      with_heads(
          video_row(
              "ltx-video-13b", 13.04, 48, 4096, 1, 3.0, 1216, 704, 121, 8, 1, 11.27,
              "https://huggingface.co/Lightricks/LTX-Video-0.9.7-dev (diffusers "
              "convert_ltx_to_diffusers.py '0.9.7': 48 layers of 4096, 32 x 128 heads, patch 1; "
              "'a 13B parameter transformer' per diffusers' docs; 13.04B summed)",
              false, false, 32),
          32),
      // The 13B distilled: the same transformer, no guidance (one pass) and a few steps (7 and 3
      // over its two passes in the official configs).
      with_heads(
          video_row(
              "ltx-video-13b-distilled", 13.04, 48, 4096, 1, 1.0, 1216, 704, 121, 8, 1, 11.27,
              "https://huggingface.co/Lightricks/LTX-Video-0.9.7-distilled (Lightricks/LTX-Video "
              "configs/ltxv-13b-0.9.8-distilled.yaml: guidance_scale 1, stg_scale 0, 7 + 3 "
              "timesteps; the 13B's transformer per diffusers' docs)",
              false, false, 32),
          32),
      // Mochi: an asymmetric DiT (video 3072 wide, text 1536) over the joint sequence, 6 frames
      // a latent; diffusers' MochiPipeline batches guidance (the official demo runs it as two
      // calls).
      with_heads(
          video_row(
              "mochi-1-preview", 10.03, 48, 3072, 2, 4.5, 848, 480, 163, 6, 1, 5.44,
              "https://huggingface.co/genmo/mochi-1-preview (genmoai/mochi pipelines.py: depth "
              "48, patch 2, 24 heads, hidden 3072 and 1536, SwiGLU 8192; the README: 10B, 44520 "
              "visual tokens at 848 x 480 x 163; pipeline_mochi.py: 64 steps, guidance 4.5)"),
          24),
  };
  return kShapes;
}

}  // namespace burst::cost
