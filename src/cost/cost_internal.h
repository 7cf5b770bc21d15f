// Helpers shared by the memory and run-time halves of the cost model. Every constant here is
// explained in docs/cost-model.md.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/result.h"
#include "burst/spec.h"

namespace burst::cost {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Local attention (workload.attention_window, window_layers): how many of `layers` attend only to
// the last attention_window tokens; 0 when the workload names no window.
inline double windowed_layers(const Workload& w, double layers) {
  if (!w.attention_window || !w.window_layers || *w.attention_window <= 0) return 0;
  return std::min(layers, static_cast<double>(std::max(0L, *w.window_layers)));
}

// Whether `asked` names the shape table's row `name` whose source is `source`
// (src/cost/model_names.cpp): the row's own name, or its Hugging Face id ("Qwen/Qwen3-8B") as a
// user copies it, with or without the organisation and the suffixes a release of the same shape
// adds (-Instruct, -it, -Chat, -hf, -Base, -pt, -diffusers, a date such as -2507, a version such as
// -v0.1, a quantization such as -FP8 or -AWQ; "Meta-Llama-3.1" as "Llama-3.1"); letter case
// ignored.
bool names_shape(const std::string& asked, const char* name, const char* source);
// The `n` of `names` nearest `asked` (edit distance between the keys names_shape compares), the
// nearest first: what an unknown model's error suggests. None for a name of over 128 characters.
std::vector<std::string> nearest_names(const std::string& asked,
                                       const std::vector<std::string>& names, size_t n);
// Whether `asked` and `other` name the same model, as names_shape compares them.
bool same_model(const std::string& asked, const char* other);
// Whether `asked` is, letter case and the organisation aside, exactly the Hugging Face id `source`
// cites: "stabilityai/stable-diffusion-2-1-base" is that row's, before any suffix is dropped.
bool is_row_id(const std::string& asked, const char* source);
// The row of `rows` (model_shapes() or diffusion_shapes()) that `asked` names: its own name; the
// Hugging Face id a row cites, exactly; one as names_shape reads it; else a model published with
// a row's shape (same_shapes()). nullptr when none.
template <class Row>
const Row* find_row(const std::vector<Row>& rows, const std::string& asked) {
  for (const Row& row : rows)
    if (asked == row.name) return &row;
  for (const Row& row : rows)
    if (is_row_id(asked, row.source)) return &row;
  for (const Row& row : rows)
    if (names_shape(asked, row.name, row.source)) return &row;
  for (const SameShape& same : same_shapes()) {
    if (!same_model(asked, same.name)) continue;
    for (const Row& row : rows)
      if (std::string(same.row) == row.name) return &row;
  }
  return nullptr;
}
// model_shapes() is model_shapes.cpp's rows, then these (model_shapes_more.cpp).
const std::vector<ModelShape>& more_model_shapes();
// diffusion_shapes() is these two tables, images and audio then video (diffusion_shapes.cpp,
// video_shapes.cpp).
const std::vector<DiffusionShape>& image_and_audio_shapes();
const std::vector<DiffusionShape>& video_shapes();
// The steps a row of those tables runs when the workload gives none: its publisher's count, else
// its diffusers pipeline's default (diffusion_steps.cpp); 0 for a name without one.
long default_diffusion_steps(const std::string& model);
// The weights' precision a quantized repository's name states ("Qwen/Qwen3-8B-FP8": "fp8",
// "...-AWQ": "int4"); "" for a quantized one whose name does not say which ("-GPTQ", "-GGUF");
// nullptr for a name with no quantization tail.
const char* named_precision(const std::string& asked);

// Full fine-tune with mixed-precision AdamW: bf16 weights, fp32 gradients, fp32 master weights and
// two fp32 moments.
inline constexpr double kTrainWeightBytes = 2;
inline constexpr double kTrainGradBytes = 4;
inline constexpr double kTrainOptimizerBytes = 12;
// LoRA/QLoRA: adapters of rank kLoraDefaultRank on every linear layer (attention q, k, v, o and
// the three MLP projections); their weights, gradients and AdamW state are the trained state.
inline constexpr long kLoraDefaultRank = 16;
// QLoRA: NF4 base weights with double quantization, 4 bits + 0.127 bits of constants per
// parameter (Dettmers et al. 2023, section 3); embeddings and the output head stay bf16.
inline constexpr double kQloraBaseBytes = 0.516;
// Per-layer activation bytes per token per hidden unit with FlashAttention (Korthikanti et al.
// 2022, eq. 1 without the 5as/h attention-score term). With gradient checkpointing each layer
// keeps only its bf16 input (2 bytes per token per hidden unit) and one layer's full set is live
// during its recomputation.
inline constexpr double kActivationBytesPerTokenHidden = 34;
inline constexpr double kCheckpointBytesPerTokenHidden = 2;
// Logits for the loss, bf16, one per vocabulary entry per token.
inline constexpr double kLogitBytes = 2;
// Memory defaults for training: micro-batch 1 of 2048 tokens.
inline constexpr long kTrainMemoryMicroBatch = 1;

// vLLM and SGLang: the share of each card the server takes (vLLM's gpu_memory_utilization
// default, docs.vllm.ai "Engine Arguments"; SGLang's mem_fraction_static is set near it), and the
// tokens of the batch whose activations it profiles before sizing the KV cache (vLLM's
// max_num_batched_tokens with chunked prefill, 8192), each holding the MLP's two intermediate
// projections and four hidden-sized tensors in 2 bytes.
inline constexpr double kServerMemoryUtilization = 0.9;
inline constexpr double kServerBatchTokens = 8192;
inline constexpr double kServerActivationBytes = 2;
// TensorRT-LLM: KvCacheConfig.free_gpu_memory_fraction, 0.9 of the memory still free once the
// model is loaded (nvidia.github.io/TensorRT-LLM/examples/kvcacheconfig.html).
inline constexpr double kTrtFreeMemoryFraction = 0.9;

// The activations a batching server sets aside for its batch of kServerBatchTokens (`w` shaped).
double server_workspace_gib(const Workload& w);
// GiB the engine of `w` (shaped) leaves for the KV cache on `gpus` x `gpu` beside `weights_gib`
// of weights (src/cost/engine_memory.cpp); negative when the weights do not fit its share.
double kv_budget_gib(const Workload& w, const GpuSpec& gpu, int gpus, double weights_gib);

// KV cache: fp16 unless workload.kv_precision says fp8; default context 4096 tokens.
inline constexpr long kKvDefaultContext = 4096;

// A model without a shape gets one derived from its size, the way dense decoders are built:
// params ~= 12 x layers x hidden^2 with layers ~= hidden / 128; head_dim 128; 8 KV heads
// (grouped-query attention, as every recent open model of 7B and up); a 32000-token vocabulary.
inline constexpr double kShapeHiddenPerLayer = 128;
inline constexpr long kDefaultKvHeads = 8;
inline constexpr long kDefaultHeadDim = 128;
inline constexpr long kDefaultVocab = 32000;

// Diffusion: activation bytes per batch item per parameter, and effective tokens (latent
// positions) each parameter is applied to per item per denoising step when neither a resolution
// nor seconds of audio are given.
inline constexpr double kDiffusionActivationBytesPerParam = 0.5;
inline constexpr long kDiffusionDefaultTokensPerItem = 256;
// Latent diffusion's VAE: 8 x 8 pixels per latent position (Rombach et al. 2022, f = 8; SDXL,
// SD 3 and FLUX keep it). Its decoder, from its convolution shapes (channels 512, 512, 256, 128
// at 1/8, 1/4, 1/2 and full size, three 3x3 ResNet blocks of two convolutions per level plus the
// upsampling convolutions): about 2.4 TFLOP for a 512 x 512 image, 9.2 TFLOP per megapixel.
inline constexpr double kVaeDownsample = 8;
inline constexpr double kVaeDecodeFlopsPerMegapixel = 9.2e12;
// A UNet applies its parameters at several resolutions, most of them below the latent's: SD 1.4's
// UNet is 339 G multiply-adds per pass at 64 x 64 latents (Kim et al. 2023, BK-SDM, Table 1),
// 678 GFLOP of which its attention (below) is 122: 2 x 0.86e9 x 4096 / 556e9 = one use of each
// parameter per 12.7 latent positions.
inline constexpr double kUnetPositionsPerParamUse = 12.7;
// A DiT without a shape: 2 x 2 latent patches (DiT, SD 3, FLUX).
inline constexpr double kDitPatch = 2;
// A video DiT without a shape: a VAE that keeps the first frame and encodes each later 4 as one
// latent frame (Wan 2.1, HunyuanVideo and CogVideoX's causal 3D VAEs), one latent frame a token.
inline constexpr double kVideoTemporalDownsample = 4;
// Flow-matching TTS: 24 kHz mel frames at hop 256 = 93.75 per second (F5-TTS, E2 TTS), decoded
// by Vocos (13.5 M parameters, one pass per frame: 2 x 13.5e6 x 93.75).
inline constexpr double kMelFramesPerSecond = 93.75;
inline constexpr double kVocoderFlopsPerAudioSecond = 2.0 * 13.5e6 * 93.75;

// What a diffusion pipeline holds besides its denoiser (pipeline_components.cpp): text and image
// encoders and the VAE, billions of parameters (held in 16 bits); the experts its denoiser
// alternates between (Wan 2.2 A14B: 2, params_b being one).
struct PipelineComponents {
  const char* name;
  double encoders_b;
  double vae_b;
  int experts;
  const char* source;
};
// The row of the diffusion shape `model` names (its resolved name), or nullptr.
const PipelineComponents* pipeline_components(const std::string& model);

// A diffusion pipeline's peak memory on one card from its parts by phase (diffusion_memory.cpp;
// docs/cost-model.md, "Diffusion memory"): `w` shaped, `params` the denoiser's, `bpp` its bytes
// a parameter. Without a resolution or audio seconds: the denoiser and kDiffusion-
// ActivationBytesPerParam a parameter and item, as before the parts were known.
Result<MemoryBreakdown> diffusion_memory(const Workload& w, double params, double bpp);
// The peak of `p`: the phases `p.offload` keeps on the card (docs/cost-model.md, "Diffusion
// memory").
MemoryBreakdown diffusion_peak(const DiffusionMemoryParts& p);
// What one denoiser call reads (the run-time roofline's bytes): its weights and
// kDiffusionActivationBytesPerParam a parameter and item, whatever the pipeline holds.
MemoryBreakdown denoiser_traffic(const Workload& w, double params, double bpp);
// The seconds a diffusion pipeline's offload copies weights to the card (offload_time.cpp): each
// denoiser call's (sequential) and each round's (the other components; with model offload every
// component). `w` shaped, `params` the denoiser's; zeros without an offload.
struct OffloadCopies {
  double per_call_s = 0;
  double per_round_s = 0;
};
OffloadCopies offload_copies(const Workload& w, double params);
// The rate those copies run at, host to device: fitted (least absolute log error) on the fit
// set's six timing rows with an offload (bench/validate_offload.py; docs/cost-model.md,
// "Offload's transfer time"). Far below PCIe's 25 GB/s: accelerate's hooks copy module by module
// from pageable memory (CogVideoX-5b's sequential offload on an A100: 10.23 s a step, about 7 s
// of it copying 11 GB).
inline constexpr double kOffloadHostToDeviceBps = 1.6788e9;

// A UNet step's activation traffic, bytes per latent position it processes (passes x batch x
// positions), at the bandwidth's prior share: a roof beside the weights, the tensor work and the
// floor (bench/README.md, "A UNet's second roof", round 2; docs/cost-model.md, "diffusion").
// Fitted jointly with the UNet's t0 on the fit set's 33 UNet timing rows (bench/validate_fits.py
// dfit_groups), the cards whose L2 holds the roof off (cost/l2_cache.h) at none. Chosen by leave
// one source out over the forms the rule named; 3.9 MB a position is about 16 GB a pass of SD 1.5
// at 512 px, more than its activations can move: it prices what slows a UNet on a card whose
// tensor rate outruns the rest (an A100, a V100), not a byte count.
inline constexpr double kUnetActivationBytesPerPosition = 3.89e6;

// An image DiT: a `dit` denoiser (the default architecture) over an image (a resolution, no
// frames). Priced as a video denoiser is: the video fit's efficiency, its self-attention at the
// kernel's share (bench/README.md, "An image DiT priced as a video DiT").
bool image_dit(const Workload& w);

// effective_calibration() for a diffusion workload: its architecture's fit (a video denoiser's
// own; an image DiT the video fit's efficiency and its own floor), scaled by a history fit.
Calibration diffusion_calibration(const Workload& w, const GpuSpec& gpu, const Calibration& cal);

// Training: default tokens per optimizer step for the run time (batch 8 x 2048 tokens).
inline constexpr long kTrainDefaultBatch = 8;
inline constexpr long kTrainDefaultContext = 2048;

// "full" when the spec leaves it empty.
std::string training_mode(const Workload& w);

// params_b x 1e9, or kInvalid when missing or not positive.
Result<double> param_count(const Workload& w);

// Parameters used per token: active_params_b for a mixture of experts, else the total.
double active_param_count(const Workload& w, double params);

// The transformer's shape, from the spec (or its model) where given, else derived from the size.
struct Shape {
  double layers, hidden, heads, kv_heads, head_dim, vocab, intermediate;
  bool tied;
};
Shape shape_of(const Workload& w, double params);

// The precision to use when the spec leaves it empty: fp16 (bf16 for LoRA's frozen weights).
std::string effective_precision(const Workload& w);

// Whether `w`'s matrix products accumulate in FP16 (its prefill when `prefill`, else its steps):
// llama.cpp's prefill in fp16 or quantized; never bf16, fp32 or fp8, never PyTorch (diffusion).
bool fp16_accumulates(const Workload& w, bool prefill);

// Dense tensor TFLOPS of `gpu` for `w`'s precision: fp8 where the card has it; with
// `fp16_accumulate`, twice the catalog's FP16 rate on GeForce cards (which list the
// FP32-accumulate rate); else the catalog's FP16/BF16 rate. Each times the share a power-capped
// card sustains (cost/sustained_rate.h).
double tensor_tflops(const Workload& w, const GpuSpec& gpu, bool fp16_accumulate);

// The prefill efficiency for `w`'s engine (prefill_fits, scaled as `cal` is from the default
// calibration), or cal.eta_compute when the engine has no fit.
double prefill_eta(const Workload& w, const Calibration& cal);

// "%g" without I/O headers leaking into messages.
std::string format_number(double v);

// run_time with every round priced as a full one (cost_model.cpp); run_time (last_round.cpp)
// prices a diffusion job's partial last batch at the items it holds.
Result<RunTime> run_time_in_full_rounds(const Workload& w, const GpuSpec& gpu, int gpus,
                                        const std::vector<GpuSpec>& catalog,
                                        const Calibration& cal);

}  // namespace burst::cost
