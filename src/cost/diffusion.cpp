// Diffusion from the architecture: the work of one denoising pass from the denoiser's shape and
// the latent it denoises (an image's resolution, or seconds of audio), classifier-free guidance,
// the VAE or vocoder decode, and the efficiency per architecture fitted on the fit set
// (bench/validation). Every constant: docs/cost-model.md, "diffusion". The denoisers' shapes:
// diffusion_shapes.cpp.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst {

const std::vector<DiffusionShape>& diffusion_shapes() {
  static const std::vector<DiffusionShape> kAll = [] {
    std::vector<DiffusionShape> all = cost::image_and_audio_shapes();
    all.insert(all.end(), cost::video_shapes().begin(), cost::video_shapes().end());
    return all;
  }();
  return kAll;
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
  if (!out.resolution && m.resolution > 0 && !out.audio_seconds) {
    out.resolution = m.resolution;
    if (!out.height && m.video.height > 0) out.height = m.video.height;
  }
  if (!out.frames && m.video.frames > 0) out.frames = m.video.frames;
  if (!out.guidance) out.guidance = m.guidance;
  if (!out.steps) {
    if (const long steps = cost::default_diffusion_steps(m.name); steps > 0) out.steps = steps;
  }
  return out;
}

const std::vector<DiffusionFit>& diffusion_fits() {
  // Fitted by bench/validate_cost_model.py --fit on the fit set's diffusion rows only (UNets: the
  // diffusers PyTorch 2.0 benchmark, stable-fast's vanilla-PyTorch rows and three sources of
  // round 2 of "A UNet's second roof"; DiTs: three sources of that round; the F5-TTS papers for
  // flow-matching TTS), with step = max(bytes / (bw x eta_bw), flops / (tflops x eta), t0), a
  // UNet's bytes the larger of its weights and activations and its activation traffic
  // (kUnetActivationBytesPerPosition, fitted with its t0): t0 is the per-step host overhead, a
  // floor that batching amortises until the card's compute saturates; tflops is tensor_tflops()
  // (the FP32-accumulate rate on GeForce, as PyTorch runs fp16; a power-capped card's sustained
  // share), t0 paid once per denoiser call (DiffusionWork::calls: two a step where guidance's
  // passes run in turn, as on the F5-TTS code of the fit rows, one where they run as one batch).
  // eta is the published-MFU prior (default_calibration's eta_compute), not fitted: fitting it per
  // architecture fits each source's software and predicts the other source worse
  // (leave-one-source-out on the image rows 36% against 18%). Only t0 is fitted (least absolute log
  // error), per architecture. The F5-TTS rows are compute-bound within 9% (the paper's two in fp32,
  // at the card's FP32 rate: cost/fp32_rate.h) and bound t0 only from above: the largest t0 they
  // allow, set by Fast F5-TTS's 7 steps of two calls each (its code, SWivid/F5-TTS 2e2acc6, calls
  // the transformer twice a step). Residuals: docs/cost-model.md. A video denoiser (a workload with
  // frames) is the exception: its eta is fitted, on the fit set's 24 video rows from 10 sources
  // (bench/README.md, "Video fit sources and a fitted video efficiency: the rule"). They are
  // compute-bound at seconds a step, so the floor is the pooled one and never binds, and a time
  // scales as 1 / eta: the fit centres their log errors.
  static const std::vector<DiffusionFit> kFits{
      // architecture, memory, eta_compute, t0_s, fit-set rows   fit-set median error
      {"unet", "", 0.45, 0.03445, 33},  // 11.5%
      // An image DiT takes the video row's eta (cost::image_dit); this eta is the old form's
      // (no resolution). Its t0 is round 2's, kept by round 3's rule.
      {"dit", "", 0.45, 0.04155, 13},
      {"flow-tts", "", 0.45, 0.02215, 3},  // 5.5% (F5-TTS on an RTX 3090)
      {"video", "", 0.625, 0.03390, 24},   // 8.5%
      {"", "", 0.45, 0.03390, 49},         // 18.1%
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

namespace cost {

bool image_dit(const Workload& w) {
  return w.kind == "diffusion" && !w.frames && w.resolution &&
         (w.architecture.empty() || w.architecture == "dit");
}

Calibration diffusion_calibration(const Workload& w, const GpuSpec& gpu, const Calibration& cal) {
  // A video denoiser (frames: the shaped workload's, a video row's default included) has its
  // own fit.
  const DiffusionFit* fit = diffusion_fit(w.frames                 ? "video"
                                          : w.architecture.empty() ? "dit"
                                                                   : w.architecture,
                                          gpu.memory);
  if (!fit) return cal;
  // An image DiT takes the video fit's efficiency (the same transformer; bench/README.md, "An
  // image DiT priced as a video DiT"), its own floor.
  double eta = fit->eta_compute;
  if (image_dit(w))
    if (const DiffusionFit* video = diffusion_fit("video", gpu.memory)) eta = video->eta_compute;
  // Scaled like the decode fits: a history fit moves both by its time factor.
  const Calibration& prior = default_calibration();
  Calibration c = cal;
  c.eta_compute = std::min(1.0, eta * cal.eta_compute / prior.eta_compute);
  c.t0_s = prior.t0_s > 0 ? fit->t0_s * cal.t0_s / prior.t0_s : fit->t0_s;
  return c;
}

}  // namespace cost

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
  // Guidance parallel: each card runs one of the two passes, one call a step.
  if (w.sequence_parallel && w.cfg_parallel.value_or(false)) d.calls = 1;
  const bool video_shape = shape && shape->video.temporal_downsample > 0;
  if (w.frames && shape && !video_shape)
    return make_error(ErrorCode::kInvalid, "workload.frames: \"" + w.model +
                                               "\" is an image or audio denoiser; frames are "
                                               "for a video one");
  if (w.frames && d.architecture != "dit")
    return make_error(ErrorCode::kInvalid,
                      "workload.frames: a video denoiser is a dit, not " + d.architecture);
  if (w.frames && !w.resolution)
    return make_error(ErrorCode::kInvalid,
                      "workload.frames needs workload.resolution (a frame's width x height)");
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
  const double width = static_cast<double>(*w.resolution);
  const double height = static_cast<double>(w.height.value_or(*w.resolution));
  double positions = (width / downsample) * (height / downsample);
  const double frames = static_cast<double>(w.frames.value_or(1));
  d.decode_flops = cost::kVaeDecodeFlopsPerMegapixel * width * height / 1e6 * frames;
  const double patch_t = video_shape ? std::max(1.0, shape->video.temporal_patch) : 1.0;
  if (w.frames) {
    // The first frame is a latent frame of its own; each later t pixel frames make one more
    // (a count that is not 1 + a multiple of t is cut down to one, as the pipelines do), and a
    // token spans `temporal_patch` latent frames (the last padded).
    const double t =
        video_shape ? shape->video.temporal_downsample : cost::kVideoTemporalDownsample;
    positions *= std::ceil((1 + std::floor((frames - 1) / t)) / patch_t) * patch_t;
  }
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
  d.latent_tokens = images * positions / (patch * patch * patch_t);
  // A video row's token path, as its share of the row's parameters (a spec's own params_b
  // scales it).
  const double token_params = video_shape && shape->video.token_params_b > 0
                                  ? params * shape->video.token_params_b / shape->params_b
                                  : params;
  d.flops_per_pass = 2.0 * token_params * d.latent_tokens;
  // Linear attention (Sana's ReLU kernel, heads of 32) costs 4 T x hidden x 32 a layer: under 1%
  // of the linear layers' 2 P T / layers; left out like the biases.
  if (!(shape && shape->linear_attention))
    d.attention_flops_per_pass = s.layers * attention_flops(d.latent_tokens, s.hidden);
  d.flops_per_pass += d.attention_flops_per_pass;
  return d;
}

}  // namespace burst
