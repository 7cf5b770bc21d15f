// The workload cost model: how much memory a workload needs, and how long it takes on a GPU.
// Pure arithmetic over the spec's Workload and the catalog's GpuSpec; no I/O. Every formula is
// written out in docs/cost-model.md, with the calibration and its residuals.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "burst/gpu_catalog.h"
#include "burst/result.h"
#include "burst/spec.h"

namespace burst {

// Bytes per parameter for a precision name ("fp32" 4, "fp16"/"bf16" 2, "fp8"/"int8" 1, "int4" 0.5).
// kInvalid for an unknown name.
Result<double> bytes_per_param(const std::string& precision);

struct MemoryBreakdown {
  double weights_gib = 0;
  double gradients_gib = 0;
  double optimizer_gib = 0;
  double activations_gib = 0;
  double kv_cache_gib = 0;
  double total_gib() const {
    return weights_gib + gradients_gib + optimizer_gib + activations_gib + kv_cache_gib;
  }
};

// What the workload needs in GPU memory, before headroom. kInvalid when the workload lacks what
// its kind needs (e.g. params_b) or has a bad value.
Result<MemoryBreakdown> memory_need(const Workload& w);

// A diffusion pipeline's parts as its peak memory counts them (docs/cost-model.md, "Diffusion
// memory"): the denoiser (one expert's weights where it alternates between `experts`), its text
// and image encoders, its VAE, one block of the denoiser (what sequential offload keeps), and the
// denoiser's activations (kDiffusionActivationBytesPerParam a parameter per item); `offload`
// none, model or sequential.
struct DiffusionMemoryParts {
  std::string offload;
  double denoiser_gib = 0, encoders_gib = 0, vae_gib = 0, block_gib = 0;
  int experts = 1;
  double activations_gib = 0;
};
// `w` shaped (with_model_shape), with a resolution or audio seconds; `params` the denoiser's,
// `bpp` its bytes a parameter.
Result<DiffusionMemoryParts> diffusion_memory_parts(const Workload& w, double params, double bpp);

// Headroom per card: a fixed reserve for the CUDA/ROCm context and runtime plus a fraction for
// fragmentation, chosen so configurations measured to run are accepted (70B FP8 on one 80 GB
// card, 8B F16 on a 16 GB card; docs/cost-model.md, "Headroom"). A card's memory is what the
// driver reports (driver_vram_gib: the catalog's vram_mib, else vram_gb read as GiB).
inline constexpr double kVramReserveGib = 0.5;
inline constexpr double kVramHeadroom = 0.02;

// Usable GiB on one card of `gpu`: driver_vram_gib x (1 - kVramHeadroom) - kVramReserveGib.
double usable_gib(const GpuSpec& gpu);

// Most GPUs one job is ever sized for (nodes of 8 beyond 8).
inline constexpr int kMaxGpus = 1024;

// Smallest GPU count in {1, 2, 4, 8, 16, 24, ...} whose usable memory holds `need`; 0 when even
// kMaxGpus do not.
int gpus_needed(const MemoryBreakdown& need, const GpuSpec& gpu);
// `w`'s own count among those sizes: its memory_need fits, and a batching engine that reserves a
// share of the cards (vllm, sglang, tensorrt-llm: engine_holds) holds its sequences there. An
// engine cannot start a model its share does not hold, however much the cards have. A diffusion
// pipeline without sequence_parallel places whole components on cards: its denoiser and the
// denoiser's activations must fit one (diffusion_card_gib). 0: none.
int gpus_needed(const Workload& w, const GpuSpec& gpu);
// A diffusion pipeline's largest piece that must sit on one card when it is spread over several
// without sequence_parallel (diffusers' device_map "balanced" places whole components): the
// denoiser (every expert without offload, one with model offload, one block with sequential)
// and its activations. 0 for other kinds, a pipeline without a resolution, or sequence_parallel.
double diffusion_card_gib(const Workload& w);
// Whether `w`'s serving engine holds its concurrent sequences (workload.concurrency, 1 unset) on
// `gpus` x `gpu` in what it leaves for the KV cache (max_concurrency). True for engines that take
// no share and for other kinds: the usable memory memory_need is held against covers them.
bool engine_holds(const Workload& w, const GpuSpec& gpu, int gpus);
// Whether `engine` reserves a share of the cards before its KV cache: vllm, sglang, tensorrt-llm.
bool engine_reserves_share(const std::string& engine);
// `w` as its engine runs it on `gpus` x `gpu`. A batching engine (engine_reserves_share) admits
// requests while its KV cache has room and queues the rest (vLLM's scheduler; docs.vllm.ai,
// "Optimization and Tuning", Preemption): where its share holds the weights and at least one but
// fewer than the requested sequences a copy, `concurrency` becomes what a copy holds and the
// requests become `items` (each generating `tokens`), run in rounds. The copies are
// workload.tensor_parallel's, else one over all `gpus`. The scheduler also runs at most
// engine_sequence_cap a copy, however many its cache holds. Otherwise `w` unchanged, so an
// engine that holds nothing beside the weights still does not fit.
Workload engine_admits(const Workload& w, const GpuSpec& gpu, int gpus);
// The sequences `w` runs at once on `gpus` x `gpu`, all copies together: its concurrency, or
// where engine_admits queues, what each copy runs times the copies.
long sequences_at_once(const Workload& w, const GpuSpec& gpu, int gpus);
// The most sequences `engine`'s scheduler runs at once on `gpu` by default, memory aside; 0: no
// such cap. vLLM's max_num_seqs: 1024 on a card of at least 70 GiB that is not an A100, else 256
// (vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults, the same for `vllm serve` and LLM()).
long engine_max_sequences(const std::string& engine, const GpuSpec& gpu);
// The most sequences `w`'s engine runs at once a copy on `gpu`: workload.max_num_seqs where
// given, else engine_max_sequences. 0: no cap.
long engine_sequence_cap(const Workload& w, const GpuSpec& gpu);
// The fewest of gpus_needed's sizes that run `w`: gpus_needed(w, gpu), else, for a batching
// engine that no count holds every sequence on, the fewest whose share holds the weights and one
// (it queues the rest: engine_admits). 0: none.
int gpus_to_run(const Workload& w, const GpuSpec& gpu);
// The share of memory `w`'s engine takes: workload.gpu_memory_utilization, else the engine's
// default (0.9 for vllm, sglang and tensorrt-llm); 1 for engines that take no share.
double engine_memory_share(const Workload& w);

// KV-cache capacity: the most sequences of `w`'s context (context_tokens, default 4096) that fit
// beside its weights on `gpus` x `gpu`, in what `w`'s serving engine leaves for the KV cache
// (vLLM/SGLang and TensorRT-LLM reserve their documented shares and a workspace; llama.cpp and
// the rest get usable_gib; src/cost/engine_memory.cpp). 0 when the weights alone do not fit.
// The cards pool into one copy, unless workload.tensor_parallel names N < gpus: then each of the
// gpus / N copies holds the weights and its own sequences, and their capacities add.
// llm-inference only (0 for other kinds or a bad workload).
long max_concurrency(const Workload& w, const GpuSpec& gpu, int gpus);

// A popular open model's shape, from its published config (sources in src/cost/model_shapes.cpp).
struct ModelShape {
  const char* name;
  double params_b;
  double active_params_b;  // = params_b unless mixture of experts
  long layers, hidden, heads, kv_heads, head_dim, vocab, intermediate;
  bool tied_embeddings;
  const char* source;
  // Mixture of experts: routed experts per layer and how many each token uses (the config's
  // num_local_experts and num_experts_per_tok); 0 for a dense model.
  long experts = 0;
  long experts_per_token = 0;
  // Local attention (the config's sliding_window or attention_chunk_size, and which layers use
  // it: layer_types, sliding_window_pattern, no_rope_layers): `window_layers` layers keep at most
  // `attention_window` tokens of KV cache a sequence; 0 for full attention everywhere.
  long attention_window = 0;
  long window_layers = 0;
  // Multi-head latent attention: values cached per layer and token (kv_lora_rank +
  // qk_rope_head_dim); 0 for keys and values of kv_heads x head_dim each.
  long kv_latent = 0;
  // The precision its weights are published in, where that is not 16-bit (DeepSeek V3: fp8);
  // null for bf16 / fp16, the spec's default.
  const char* precision = nullptr;
  // A mixture of experts whose checkpoint stores each layer's routed experts fused in one tensor
  // per projection (gpt-oss's `experts.gate_up_proj_blocks`, Llama 4's `experts.gate_up_proj`),
  // not one tensor an expert (checkpoint_expert_tensors).
  bool experts_fused = false;
};
const std::vector<ModelShape>& model_shapes();
// A row of model_shapes() by its name, a Hugging Face id of it, or a model published with its exact
// shape (same_shapes()).
const ModelShape* find_model(const std::string& name);

// A model published under another name with a row's exact shape (a distillation or a fine-tune:
// DeepSeek R1 is DeepSeek V3's architecture), as its own config.json shows: `row` names a row of
// model_shapes() or diffusion_shapes().
struct SameShape {
  const char* name;
  const char* row;
  const char* source;
  // The precision the release's weights are published in, where it differs from the row's (Kimi
  // K2.5's routed experts in int4 where K2's are fp8); null: the row's.
  const char* precision = nullptr;
};
const std::vector<SameShape>& same_shapes();

// `w` with the fields of its workload.model filled in where `w` leaves them unset (the precision a
// quantized repository's name states, "-FP8", "-AWQ", before a release's, before the row's); `w`
// itself when it names no model; kInvalid for an unknown name (listing the built-in ones).
Result<Workload> with_model_shape(const Workload& w);

// The routed experts' tensors in `w`'s checkpoint, which an engine's default loader handles one
// at a time (vLLM's FusedMoE.weight_loader is called once per expert tensor): layers x experts x
// 3 projections (gate, up, down), twice that for a quantized precision (fp8, int8, int4: a scale
// tensor beside each weight), when `w` (shaped: with_model_shape) is a mixture of experts whose
// checkpoint stores them one tensor an expert; 0 for a dense model or fused experts. Every layer
// is counted (DeepSeek V3's first three are dense: a 5% overcount). Counted, not priced: a cost a
// tensor was fitted and not kept (bench/README.md, "A mixture of experts' checkpoint, tensor by
// tensor"); `burst estimate --json` shows the count. docs/cost-model.md, "Weight load".
long checkpoint_expert_tensors(const Workload& w);

// A diffusion denoiser's shape (src/cost/diffusion_shapes.cpp, each row with its source). A UNet's
// attention: at latent side / divisor, `blocks` transformer blocks of `width` channels.
struct UnetAttention {
  double divisor = 1;
  double width = 0;
  double blocks = 0;
};
// A video denoiser's latent (zeros for an image or audio denoiser): the VAE's temporal
// downsampling (F pixel frames become 1 + (F - 1) / t latent frames, the first frame encoded
// alone), the latent frames one token spans, the pipeline's default frames and height (the row's
// `resolution` is then its width), and the parameters a latent token runs through: the rest
// (cross-attention's keys and values of the text or image, per-sample modulation, the text
// stream of a two-stream block) run on a few hundred text tokens or once a step, and are left
// out as biases are (0: all of params_b).
struct VideoLatent {
  double temporal_downsample = 0;
  double temporal_patch = 1;
  long frames = 0;
  long height = 0;
  double token_params_b = 0;
  // Attention heads a block (hidden / head dim, from the row's source): Ulysses gives each card of
  // a sequence-parallel group whole heads. 0: not known, not checked.
  long heads = 0;
};
struct DiffusionShape {
  const char* name;
  const char* architecture;  // unet | dit | flow-tts
  double params_b;           // the denoiser alone
  long layers, hidden;       // transformer blocks and width (dit, flow-tts)
  double patch;              // dit: latent positions per token side
  double frame_rate;         // flow-tts: latent frames per second of audio
  double guidance;           // default classifier-free guidance scale (0: distilled, one pass)
  long resolution;           // default image side, pixels (0: audio)
  UnetAttention attention[3];
  const char* source;
  // Optional, after the source (false / 0 where a row leaves them out):
  // - guidance never adds a pass: it is an input of the denoiser (FLUX.1 dev, LCM's w embedding)
  //   or the pipeline ignores it (FLUX.1 schnell), whatever scale the spec gives;
  // - the pipeline's two guidance passes are two calls a step, not one call of twice the batch
  //   (Qwen-Image, CogView4, Lumina 2: workload.guidance_batched's default);
  // - the self-attention is linear in the tokens (Sana): no quadratic attention term;
  // - the VAE's spatial downsampling (0: 8, as SD's VAE; Sana's DC-AE is 32);
  // - the images an editing model takes in, whose latent tokens join the sequence it denoises
  //   (FLUX.1 Kontext, Qwen-Image-Edit: 1);
  // - a video denoiser's latent.
  bool guidance_in_one_pass = false;
  bool guidance_in_turn = false;
  bool linear_attention = false;
  double vae_downsample = 0;
  int image_inputs = 0;
  VideoLatent video{};
};
const std::vector<DiffusionShape>& diffusion_shapes();
const DiffusionShape* find_diffusion_model(const std::string& name);
// `w` with the shape's fields filled in where `w` leaves them unset.
Workload with_diffusion_shape(const Workload& w, const DiffusionShape& m);

// One denoising pass of one item, from the architecture (docs/cost-model.md, "diffusion"):
//   unet:     2 P N / 12.7 + sum over attention levels of blocks x 4 (N / div^2)^2 x width
//   dit:      2 P T + layers x 4 T^2 x hidden,   T = (1 + image inputs) x N / patch^2
//             (no attention term for linear attention)
//   flow-tts: the same with T = audio_seconds x frames per second
// N = (width / VAE downsampling) x (height / VAE downsampling) latent positions, the
// downsampling 8 unless the shape says otherwise; a video's N is that times its latent frames,
// (1 + (frames - 1) / t) / temporal patch (t: 4 unless the shape says otherwise). Without a
// resolution or audio seconds (the old form), 2 P x workload.tokens (default 256). Guidance > 1
// doubles the passes per step (one call of twice the batch, or two calls when guidance_batched
// is false); the VAE or vocoder decodes each item once (a video: every frame).
struct DiffusionWork {
  std::string architecture;
  double latent_tokens = 0;   // what one pass denoises per item
  double flops_per_pass = 0;  // one item, one pass
  // Of flops_per_pass, the self-attention over the latent tokens (a video pass's runs at the
  // attention kernel's share of the card's rate: cost/attention_rate.h).
  double attention_flops_per_pass = 0;
  int passes = 1;  // per step: 2 with classifier-free guidance
  // Calls of the denoiser per step: 1 when guidance's passes run as one batch (the default),
  // `passes` when they run one after the other (workload.guidance_batched false). Each call pays
  // the per-call overhead and reads the weights.
  int calls = 1;
  double decode_flops = 0;  // per item, once
};
// `w` already shaped (with_model_shape); `params` its parameter count.
Result<DiffusionWork> diffusion_work_of(const Workload& w, double params);

// FLOPs of prefilling one sequence's prompt (workload.context_tokens - tokens; 0 when the context
// is not larger): 2 x active parameters a token, plus causal attention over the prompt,
// 2 x layers x heads x head_dim x prompt^2 (docs/cost-model.md, "Prefill by engine"). `w`
// already shaped (with_model_shape); `total_params` its parameter count.
double prefill_flops_of(const Workload& w, double total_params);

// Compute efficiency and per-step overhead of a denoising step per architecture and memory
// technology, fitted on the fit set (bench/validation); "" matches any.
struct DiffusionFit {
  const char* architecture;
  const char* memory;
  double eta_compute;
  double t0_s;
  int rows;
};
const std::vector<DiffusionFit>& diffusion_fits();
// (architecture, memory), then (architecture, any), (any, memory), (any, any); null if none.
const DiffusionFit* diffusion_fit(const std::string& architecture, const std::string& memory);

// Efficiencies and fixed per-step overhead, fitted to published measurements.
struct Calibration {
  double eta_bw = 0;       // achieved / peak memory bandwidth
  double eta_compute = 0;  // achieved / peak tensor TFLOPS
  double t0_s = 0;         // fixed overhead per step (kernel launches, sync), seconds
};

// The calibration burst ships with (see docs/cost-model.md for the fit).
const Calibration& default_calibration();

// LLM decode efficiency per serving engine and memory family, fitted to published measurements
// (docs/cost-model.md, "Validation"). engine "" = no engine named; family = "gddr nvidia" etc.
// (GpuSpec::memory + " " + vendor), or just the memory technology for every vendor.
struct DecodeFit {
  const char* engine;
  const char* family;
  double eta_bw;
  double t0_s;
  int rows;  // in-sample measurements behind it
};
const std::vector<DecodeFit>& decode_fits();

// Prompt-processing (prefill) efficiency per serving engine, fitted to published measurements
// (docs/cost-model.md, "Prefill by engine"); an engine without a row uses the calibration's
// eta_compute. The rate it applies to: llama.cpp's FP16-accumulate tensor rate (src/cost/
// engine_rates.cpp), the catalog's rate for every other engine.
struct PrefillFit {
  const char* engine;
  double eta_compute;
  int rows;  // in-sample measurements behind it
};
const std::vector<PrefillFit>& prefill_fits();

// Serving engines `workload.engine` / `--engine` accept.
inline constexpr const char* kEngines[] = {"llama.cpp", "vllm", "sglang", "tensorrt-llm",
                                           "pytorch"};
bool known_engine(const std::string& engine);

// The calibration run_time applies to `w` on `gpu`: for llm-inference, the decode fit of (engine,
// family), falling back to (engine, memory), then vLLM's for TensorRT-LLM and SGLang (no rows of
// their own), then ("", family), ("", memory), each scaled by how far
// `cal` is from default_calibration() (so a fit from history still applies); otherwise `cal`.
// No engine named means vLLM on an HBM card and any engine ("") on others. Efficiencies stay <= 1.
Calibration effective_calibration(const Workload& w, const GpuSpec& gpu, const Calibration& cal);

// How `gpus` cards of one offer share the work (src/cost/parallel.cpp, docs/cost-model.md
// "Multi-GPU"): the smallest group that holds the model (`group`: tensor parallel for inference,
// fully sharded data parallel for training; never more than one card for a model that fits one),
// and as many independent replicas of that group as the offer has room for. Groups above 8 cards
// span nodes: 8-way tensor parallel inside each node, a pipeline across nodes.
struct ParallelLayout {
  int group = 1;
  int replicas = 1;
  int nodes = 1;  // ceil(group / 8)
};
inline constexpr int kGpusPerNode = 8;
ParallelLayout parallel_layout(const Workload& w, const GpuSpec& gpu, int gpus);
// workload.tensor_parallel's layout on `gpus` cards: groups of that many cards, each one copy of
// the model, as many replicas as fit (spare cards idle). kInvalid where it does not apply (not
// llm-inference; llama.cpp, which splits by layers) or asks for more than `gpus` cards.
Result<ParallelLayout> tensor_parallel_layout(const Workload& w, int gpus);
// workload.sequence_parallel's layout on `gpus` cards: groups of that many cards, each splitting
// one item's tokens (DeepSpeed-Ulysses), as many copies as fit (spare cards idle). kInvalid where
// it does not apply (not diffusion; a unet or flow-tts denoiser) or asks for more than `gpus`,
// or where cfg_parallel is set on an odd degree or a denoiser that runs one pass a step. Each
// message starts with the field at fault: "sequence_parallel ..." or "cfg_parallel ...".
// `w` is the shaped workload (with_model_shape: a named model's architecture known).
Result<ParallelLayout> sequence_parallel_layout(const Workload& w, int gpus);
// What each card of a sequence-parallel group of `group` holds: the whole need but for the
// activations, of which its 1/group share.
double sequence_parallel_card_gib(const MemoryBreakdown& need, int group);
// Whether `gpus` x `gpu` hold `w` as run_time lays it out: with workload.tensor_parallel, each
// group holds the model and its replica's share of the sequences; with sequence_parallel, each
// card holds the whole denoiser and its share of the activations; a diffusion pipeline otherwise
// holds its denoiser and activations on one card (diffusion_card_gib); otherwise the cards' memory
// together holds the whole need. False for a workload memory_need refuses.
bool layout_holds(const Workload& w, const GpuSpec& gpu, int gpus);

// Collective communication, from the catalog's interconnect (interconnect_gbs is bidirectional
// per GPU: half of it each way). A ring all-reduce of `bytes` over n cards moves 2 (n-1)/n x bytes
// through each card's link at kLinkEfficiency of its one-way rate, after a fixed latency per call
// (kAllReduceLatencyFastS on NVLink / Infinity Fabric, kAllReduceLatencySlowS on PCIe). Across
// nodes the link is the node's network, kInterNodeGbsPerGpu each way per GPU.
inline constexpr double kLinkEfficiency = 0.8;
inline constexpr double kAllReduceLatencyFastS = 10e-6;
inline constexpr double kAllReduceLatencySlowS = 45e-6;
inline constexpr double kInterNodeGbsPerGpu = 50;
// A fused-MoE layer call's fixed cost at a decode step: the median of five kernel benchmarks'
// floors (24.5-54.4 us; bench/validation/moe_search.md; docs/cost-model.md, "llm-inference").
inline constexpr double kMoeLayerFloorS = 29.7e-6;
// The routed experts a decode step touches stream at this share of the decode fit's bandwidth
// efficiency (grouped GEMMs over many small expert matrices); fitted on the fit set's
// mixture-of-experts serving rows (docs/cost-model.md, "llm-inference"; bench/README.md,
// "Experts' weights at their own bandwidth efficiency"). 1 leaves them at the dense rate.
inline constexpr double kMoeExpertBandwidthShare = 0.72;
// How many of a layer's E experts a decode step of `batch` tokens touches with top-k routing:
// E (1 - (1 - k/E)^B) on average (uniform, independent routing).
inline double experts_touched(double experts, double per_token, long batch) {
  return experts *
         (1 - std::pow(1 - per_token / experts, static_cast<double>(std::max(1L, batch))));
}
// Effective one-way GB/s of `gpu`'s link for a collective over `n` cards (n > 8: across nodes).
double link_gbs(const GpuSpec& gpu, int n);
double allreduce_seconds(const GpuSpec& gpu, int n, double bytes);
// Seconds each card spends moving `bytes` (per card, already counting the (n-1)/n share) plus
// `calls` latencies: the cost of all-gathers and reduce-scatters of training's sharded state.
double collective_seconds(const GpuSpec& gpu, int n, double bytes, long calls);

struct RunTime {
  double compute_s = 0;  // the whole run step's compute time on this candidate
  double step_s = 0;     // one step (decode token, denoising step, training step)
  long steps = 0;
  // "bandwidth" | "compute" | "capacity" | "overhead" (diffusion: the per-call floor t0 binds,
  // the host issuing kernels, not the card): the step's, except an llm-inference run whose
  // prompts (prefill_s x rounds) take more of its time than its decode steps, "compute"
  std::string bound;
  int batch = 1;  // items or sequences processed together
  // llm-inference: prefill of one round's prompts (context_tokens - tokens per sequence, when
  // context_tokens is given and larger), compute-bound; diffusion: the VAE or vocoder decode of
  // one round's items. compute_s includes it once per round.
  double prefill_s = 0;
  long rounds = 1;
  ParallelLayout layout;  // how the offer's cards were used
  double comm_s = 0;      // per step: the collectives not hidden behind compute
  // llm-inference, a mixture of experts: per decode step, its layers' fused-MoE calls' fixed
  // cost (kMoeLayerFloorS each; included in step_s).
  double moe_s = 0;
  // llm-inference, a mixture of experts: per decode step, the bytes of the routed experts its
  // tokens touch (part of what the step reads; at kMoeExpertBandwidthShare of the rate).
  double expert_bytes = 0;
  double read_bytes = 0;  // llm-inference: all a decode step reads (weights, experts, KV cache)
  // diffusion with workload.offload: the whole run's host-to-device weight copies (included in
  // compute_s).
  double offload_s = 0;
};

// Time of the run step for `w` on `gpus` x `gpu`, by the roofline
//   step = max(bytes / (bw x eta_bw), flops / (tflops x eta_compute)) + t0
// (a mixture of experts' decode step: its touched experts' bytes at kMoeExpertBandwidthShare of
// bw x eta_bw, + layers x kMoeLayerFloorS; an LLM decode step's KV read at bw x eta_bw added
// beside the max, its attention kernels running beside the products) per group of
// parallel_layout, plus the group's collectives (tensor parallel: two all-reduces of the step's
// activations per layer; sequence parallel: Ulysses's four all-to-alls a block per call;
// training: the sharded state's all-gathers and gradient reduction, overlapped with compute),
// with the replicas splitting the items or sequences in rounds (a diffusion job's last batch
// priced at the items it holds, src/cost/last_round.cpp; an engine's queued rounds all full).
// A custom workload scales workload.reference by the ratio of the bounding resource between the
// reference GPU (looked up in `catalog`) and `gpu`.
Result<RunTime> run_time(const Workload& w, const GpuSpec& gpu, int gpus,
                         const std::vector<GpuSpec>& catalog, const Calibration& cal);

}  // namespace burst
