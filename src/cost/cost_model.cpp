// Run-time half of the cost model: the calibrated roofline per step, tensor-parallel scaling, and
// custom workloads scaled from a reference measurement. Formulas: docs/cost-model.md.
#include "burst/cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cost/attention_rate.h"
#include "cost/cost_internal.h"
#include "cost/experts.h"
#include "cost/l2_cache.h"

namespace burst {

const Calibration& default_calibration() {
  // eta_bw and t0_s: the pooled decode fit of the fit set (bench/validate_cost_model.py --fit:
  // least absolute log error over its 22 single-GPU decode rows, every engine and card; no
  // held-out row enters). eta_compute: published MFU (PaLM 46.2%, Megatron-LM 52%). Multi-GPU
  // costs come from the interconnect (src/cost/parallel.cpp), not from here.
  static const Calibration kDefault{
      .eta_bw = 0.766,
      .eta_compute = 0.45,
      .t0_s = 0.00214,
  };
  return kDefault;
}

const std::vector<DecodeFit>& decode_fits() {
  // Fitted by bench/validate_cost_model.py --fit on the fit set only (bench/validation/
  // measurements.csv; sources.csv keeps every held-out source out): least absolute log error over
  // its single-GPU decode rows (llama.cpp's batched rows are scored, not fitted). A group of
  // fewer than three rows fits eta_bw alone, with the pooled t0 (the median of its rows' etas).
  // Tensor-parallel rows fit only an (engine, family) without single-GPU rows, eta alone, their
  // collectives held at link physics (vLLM on MI300X). Refitted 2026-11-30 on the fit set with
  // rows 409-441 (bench/README.md, "Decode refit on the fit set as it stands"). Residuals:
  // docs/cost-model.md, "Validation".
  static const std::vector<DecodeFit> kFits{
      // engine, family, eta_bw, t0_s, fit-set rows
      {"llama.cpp", "gddr nvidia", 0.913, 0.00214, 2},  // llama.cpp #4766: RTX 4090
      {"llama.cpp", "gddr amd", 0.540, 0.00000, 3},     // #26284, #20934: RX 7900 XTX
      {"llama.cpp", "gddr", 1.000, 0.00334, 5},         //
      {"llama.cpp", "hbm nvidia", 1.000, 0.00476, 3},   // #3545, #3816: V100; #6017: A100 PCIe
      {"llama.cpp", "hbm", 1.000, 0.00476, 3},          //
      {"pytorch", "gddr nvidia", 0.680, 0.00030, 3},    // bitsandbytes' bf16 baseline: RTX 4090
      {"pytorch", "gddr", 0.680, 0.00030, 3},           //
      {"pytorch", "hbm nvidia", 0.490, 0.00970, 3},     // optimum's baseline: A100 80GB
      {"pytorch", "hbm", 0.490, 0.00970, 3},            //
      {"vllm", "gddr nvidia", 0.654, 0.00000, 6},       // RTX 4090 and A40 serving sweeps
      {"vllm", "gddr", 0.654, 0.00000, 6},              //
      {"vllm", "hbm nvidia", 0.857, 0.00214, 2},        // A100 40GB, concurrency 1 and 8
      {"vllm", "hbm amd", 0.335, 0.00214, 15},  // 8 x MI300X, TP 8 (Oracle, dstack, ROCm/vllm)
      {"vllm", "hbm", 0.857, 0.00214, 2},       //
      {"", "gddr nvidia", 0.694, 0.00000, 11},  //
      {"", "gddr amd", 0.540, 0.00000, 3},      //
      {"", "gddr", 0.728, 0.00186, 14},         //
      {"", "hbm nvidia", 1.000, 0.00638, 8},    //
      {"", "hbm", 1.000, 0.00638, 8},           //
  };
  return kFits;
}

bool known_engine(const std::string& engine) {
  for (const char* e : kEngines)
    if (engine == e) return true;
  return false;
}

Calibration effective_calibration(const Workload& w, const GpuSpec& gpu, const Calibration& cal) {
  if (w.kind == "diffusion") return cost::diffusion_calibration(w, gpu, cal);
  if (w.kind != "llm-inference" || gpu.memory.empty()) return cal;
  const std::string family = gpu.memory + " " + gpu.vendor;
  // No engine named: on HBM (datacenter) cards the serving engine of a cloud deployment is vLLM
  // or TensorRT-LLM, not llama.cpp, so vLLM's fit; on GDDR cards, the fit of every engine.
  const std::string named = !w.engine.empty() ? w.engine : gpu.memory == "hbm" ? "vllm" : "";
  // A batching server without measurements of its own (TensorRT-LLM, SGLang) takes vLLM's fit,
  // the engine of its class with rows, before the engine-agnostic one (llama.cpp's rows).
  const std::string like = named == "tensorrt-llm" || named == "sglang" ? "vllm" : named;
  // The card's family (memory and vendor) before the engine's rows on the other vendor: the
  // vendor's kernels move a family's efficiency more than the engine does (llama.cpp reads 0.913
  // of NVIDIA GDDR and 0.540 of AMD GDDR; engines on NVIDIA GDDR range 0.654-0.913).
  const DecodeFit* hit = nullptr;
  for (const std::string& fam : {family, gpu.memory}) {
    for (const std::string& engine : {named, like, std::string()}) {
      for (const DecodeFit& f : decode_fits())
        if (!hit && engine == f.engine && fam == f.family) hit = &f;
    }
  }
  if (!hit) return cal;
  const Calibration& prior = default_calibration();
  Calibration c = cal;
  // A history fit (plan/calibration.h apply_fit) divides the prior's eta_bw by its time factor,
  // capped at 1, and multiplies t0 by it; where the cap hid the factor, t0 still carries it.
  double eta_scale = cal.eta_bw / prior.eta_bw;
  if (cal.eta_bw >= 1.0 && prior.t0_s > 0 && cal.t0_s > 0)
    eta_scale = std::max(eta_scale, prior.t0_s / cal.t0_s);
  c.eta_bw = std::min(1.0, hit->eta_bw * eta_scale);
  c.t0_s = prior.t0_s > 0 ? hit->t0_s * cal.t0_s / prior.t0_s : hit->t0_s;
  return c;
}

double prefill_flops_of(const Workload& w, double total_params) {
  if (!w.tokens || !w.context_tokens || *w.context_tokens <= *w.tokens) return 0;
  // The prompt is the context not generated: each of its tokens goes through every active weight
  // once, and attends to the tokens before it. Attention's two products (Q.K and the weighted V)
  // cost 4 x layers x (heads x head_dim) FLOPs per token per earlier token (PaLM, Chowdhery et al.
  // 2022, appendix B: 12 x L x H x Q x T per token for training, a third of it forward); a
  // causal kernel (FlashAttention) skips the masked half, so the prompt's n tokens cost
  // 2 x layers x heads x head_dim x n^2 in all. A layer with local attention (a window of W
  // tokens) pairs each token with at most W before it: n W - W^2 / 2 pairs once n > W.
  const double n = static_cast<double>(*w.context_tokens - *w.tokens);
  const cost::Shape shape = cost::shape_of(w, total_params);
  const double active = cost::active_param_count(w, total_params);
  const double windowed = cost::windowed_layers(w, shape.layers);
  double windowed_pairs = n * n / 2;
  if (windowed > 0) {
    const double window = static_cast<double>(*w.attention_window);
    if (n > window) windowed_pairs = n * window - window * window / 2;
  }
  const double pairs = (shape.layers - windowed) * n * n / 2 + windowed * windowed_pairs;
  return 2.0 * active * n + 4.0 * shape.heads * shape.head_dim * pairs;
}

namespace {

using cost::kGiB;

// What one step moves and computes, before the roofline turns it into seconds.
struct StepWork {
  double bytes = 0;
  double flops = 0;
  long steps = 0;
  int batch = 1;
  double prefill_flops = 0;  // per round (llm-inference)
  long rounds = 1;
  int calls = 1;  // diffusion: denoiser calls per step, each paying the per-call floor t0
  // Of flops: the part that runs at the attention kernel's share of the card's rate (a video
  // denoiser's self-attention; 0 elsewhere).
  double attention_flops = 0;
  double activation_bytes = 0;  // a UNet's activation traffic a step (cost_internal.h)
  double expert_bytes = 0;      // of bytes: the routed experts a decode step touches
  // Of bytes: the KV cache a decode step reads, in its attention kernels, which run beside the
  // matrix products, not under them (llm-inference; 0 elsewhere).
  double kv_bytes = 0;
};

long positive_or(const std::optional<long>& v, long fallback) {
  return v && *v > 0 ? *v : fallback;
}

long ceil_div(long a, long b) { return (a + b - 1) / b; }

Error missing(const std::string& field, const std::string& kind) {
  return make_error(ErrorCode::kInvalid,
                    "workload." + field + " is required to estimate the run time of kind " + kind);
}

// `w` and `mem` are one replica's; `replicas` groups take rounds of items side by side; `params`
// the active parameters, `total_params` all of them (the attention's shape).
Result<StepWork> inference_work(const Workload& w, double params, double total_params,
                                const MemoryBreakdown& mem, int replicas) {
  if (!w.tokens || *w.tokens <= 0) return missing("tokens", w.kind);
  StepWork s;
  const long sequences = positive_or(w.concurrency, 1);
  s.batch = static_cast<int>(sequences);
  // Each decode step reads every active weight once and the KV cache of the batch as it stands:
  // on average the prompt plus half the output (the cache is sized for the whole context).
  double kv_share = 1;
  if (w.context_tokens && *w.context_tokens > 0 && *w.tokens <= *w.context_tokens)
    kv_share = (static_cast<double>(*w.context_tokens) - 0.5 * static_cast<double>(*w.tokens)) /
               static_cast<double>(*w.context_tokens);
  const cost::ReadShares read = cost::read_fraction(w, params, sequences);
  s.kv_bytes = mem.kv_cache_gib * kGiB * kv_share;
  s.bytes = mem.weights_gib * kGiB * read.total() + s.kv_bytes;
  s.expert_bytes = mem.weights_gib * kGiB * read.experts;
  s.flops = 2.0 * params * static_cast<double>(sequences);
  const long rounds = w.items ? ceil_div(std::max(*w.items, 1L), sequences * replicas) : 1;
  s.steps = rounds * *w.tokens;
  s.rounds = rounds;
  s.prefill_flops = prefill_flops_of(w, total_params) * static_cast<double>(sequences);
  return s;
}

Result<StepWork> diffusion_work(const Workload& w, double params, const MemoryBreakdown& mem,
                                int replicas) {
  if (!w.items || *w.items <= 0) return missing("items", w.kind);
  auto d = diffusion_work_of(w, params);
  if (!d) return d.error();
  StepWork s;
  // A replica batches only the items it gets: 4 items at batch 8 are one batch of 4, not 8.
  const long batch = std::min(positive_or(w.batch, 1), ceil_div(*w.items, replicas));
  s.batch = static_cast<int>(batch);
  // Weights are read once per denoiser call for the whole batch (one call a step when guidance's
  // two passes run as one batch, two when they run in turn); activations once each. Each round
  // decodes its items once (VAE or vocoder).
  s.calls = d->calls;
  s.bytes = (mem.weights_gib * kGiB + mem.activations_gib * kGiB) * d->calls;
  s.flops = d->flops_per_pass * d->passes * static_cast<double>(batch);
  // A video denoiser's and an image DiT's (priced as a video one): their efficiency is the one
  // fitted with the kernel's share; UNets and TTS were fitted without it.
  if (w.frames || cost::image_dit(w))
    s.attention_flops = d->attention_flops_per_pass * d->passes * static_cast<double>(batch);
  if (d->architecture == "unet")
    s.activation_bytes = cost::kUnetActivationBytesPerPosition * d->latent_tokens * d->passes *
                         static_cast<double>(batch);
  s.rounds = ceil_div(*w.items, batch * replicas);
  s.steps = s.rounds * positive_or(w.steps, 1);
  s.prefill_flops = d->decode_flops * static_cast<double>(batch);
  return s;
}

Result<StepWork> training_work(const Workload& w, double params, const MemoryBreakdown& mem) {
  if (!w.tokens || *w.tokens <= 0) return missing("tokens", w.kind);
  StepWork s;
  const long batch = positive_or(w.batch, cost::kTrainDefaultBatch);
  const long tokens_per_step = batch * positive_or(w.context_tokens, cost::kTrainDefaultContext);
  s.batch = static_cast<int>(batch);
  s.steps = ceil_div(*w.tokens, tokens_per_step);
  // Frozen weights need no weight gradients: 4 x params per token instead of 6.
  const double flops_per_token = cost::training_mode(w) == "full" ? 6.0 : 4.0;
  s.flops = flops_per_token * params * static_cast<double>(tokens_per_step);
  // Every byte of training state is touched about once per step.
  s.bytes = mem.total_gib() * kGiB;
  return s;
}

Result<RunTime> custom_time(const Workload& w, const GpuSpec& gpu,
                            const std::vector<GpuSpec>& catalog) {
  if (!w.reference) return missing("reference", w.kind);
  const WorkloadReference& ref = *w.reference;
  if (!(ref.runtime_seconds > 0)) {
    return make_error(ErrorCode::kInvalid, "workload.reference.runtime_seconds must be > 0 (got " +
                                               cost::format_number(ref.runtime_seconds) + ")");
  }
  RunTime t;
  t.steps = 1;
  t.bound = ref.bound == "compute" ? "compute" : "bandwidth";
  t.compute_s = ref.runtime_seconds;
  if (ref.gpu != kThisMachineGpu && !ref.gpu.empty()) {
    auto it = std::find_if(catalog.begin(), catalog.end(),
                           [&](const GpuSpec& g) { return g.name == ref.gpu; });
    if (it == catalog.end()) {
      return make_error(ErrorCode::kInvalid,
                        "workload.reference.gpu \"" + ref.gpu + "\" is not in the GPU catalog");
    }
    const double ref_rate = t.bound == "compute" ? it->fp16_tflops : it->mem_bw_gbs;
    const double rate = t.bound == "compute" ? gpu.fp16_tflops : gpu.mem_bw_gbs;
    if (ref_rate > 0 && rate > 0) t.compute_s = ref.runtime_seconds * ref_rate / rate;
  }
  t.step_s = t.compute_s;
  return t;
}

}  // namespace

Result<RunTime> cost::run_time_in_full_rounds(const Workload& spec_w, const GpuSpec& gpu, int gpus,
                                              const std::vector<GpuSpec>& catalog,
                                              const Calibration& given_cal) {
  auto shaped = with_model_shape(spec_w);
  if (!shaped) return shaped.error();
  // A batching engine whose share holds fewer sequences than asked runs those and queues the rest.
  const Workload w = engine_admits(*shaped, gpu, gpus);
  if (gpus < 1) {
    return make_error(ErrorCode::kInvalid, "gpus must be >= 1 (got " + std::to_string(gpus) + ")");
  }
  auto mem = memory_need(w);
  if (!mem) return mem.error();
  if (w.kind == "custom") return custom_time(w, gpu, catalog);
  // What a denoiser call reads is its weights and activations, not what the pipeline holds (its
  // encoders and VAE, cost/diffusion_memory.cpp).
  MemoryBreakdown traffic = *mem;
  if (w.kind == "diffusion") {
    auto params = cost::param_count(w);
    auto bpp = bytes_per_param(cost::effective_precision(w));
    if (!params) return params.error();
    if (!bpp) return bpp.error();
    traffic = cost::denoiser_traffic(w, *params, *bpp);
  }
  if (w.tensor_parallel) {
    if (auto l = tensor_parallel_layout(w, gpus); !l) return l.error();
  }
  if (w.sequence_parallel) {
    if (auto l = sequence_parallel_layout(w, gpus); !l) return l.error();
  }

  if (!layout_holds(w, gpu, gpus)) {
    RunTime t;
    t.bound = "capacity";
    t.compute_s = t.step_s = std::numeric_limits<double>::infinity();
    return t;
  }

  auto total_params = cost::param_count(w);
  if (!total_params) return total_params.error();
  // A mixture of experts computes (and, at batch 1, reads) only its active parameters per token.
  const double params = cost::active_param_count(w, *total_params);
  // Each layout's time; the fastest wins (one offer, one price). A model that fits one card is
  // never split; a larger one may use a wider group than it needs when that is faster.
  auto time_for = [&](const ParallelLayout& layout) -> Result<RunTime> {
    // Inference without items: the replicas share the concurrent sequences.
    Workload one = w;
    MemoryBreakdown one_mem = *mem;
    if (w.kind == "llm-inference" && layout.replicas > 1 && !w.items &&
        positive_or(w.concurrency, 1) > 1) {
      one.concurrency = ceil_div(*w.concurrency, layout.replicas);
      auto m = memory_need(one);
      if (!m) return m.error();
      one_mem = *m;
    }
    Result<StepWork> work =
        w.kind == "llm-inference"
            ? inference_work(one, params, *total_params, one_mem, layout.replicas)
        : w.kind == "diffusion" ? diffusion_work(w, params, traffic, layout.replicas)
                                : training_work(w, params, *mem);
    if (!work) return work.error();

    const double tflops = cost::tensor_tflops(w, gpu, cost::fp16_accumulates(w, false));
    const Calibration cal = effective_calibration(w, gpu, given_cal);
    const cost::Shape shape = cost::shape_of(w, *total_params);
    const bool training = w.kind == "llm-training";
    // Cards working on one step. Inference: the group; across nodes a pipeline of 8-way tensor
    // parallel stages, all busy only with a sequence per stage in flight. Training: every card
    // (the replicas split the batch; each group's cards hold and touch a shard of the state).
    // llama.cpp splits a model across cards by layers (its default --split-mode layer): a token
    // passes the cards in turn, so one card works at a time and the step reads all the weights at
    // one card's bandwidth; between cards only the activations hop, no all-reduce.
    const bool layer_split =
        w.kind == "llm-inference" && w.engine == "llama.cpp" && layout.group > 1;
    // Sequence parallel (diffusion): every card of the group computes 1/N of each pass's tokens
    // and reads the whole denoiser every call (each holds a copy), 1/N of the activations.
    const bool seq_split = w.kind == "diffusion" && w.sequence_parallel && layout.group > 1;
    // Without it a pipeline spread over cards places whole components on them (diffusers'
    // device_map "balanced"): the denoiser runs on one card, nothing is split or all-reduced.
    const bool placed = w.kind == "diffusion" && !w.sequence_parallel && layout.group > 1;
    double cards = layer_split || placed ? 1 : layout.group;
    if (!training && !layer_split && !seq_split && !placed && layout.nodes > 1)
      cards = std::min<double>(layout.group, static_cast<double>(kGpusPerNode) * work->batch);
    double bytes = work->bytes;
    if (seq_split)
      bytes = (traffic.weights_gib * layout.group + traffic.activations_gib) * kGiB * work->calls;
    // Attention at its kernel's share of the rate counts as that much more work at the rate.
    double step_flops = work->flops;
    if (work->attention_flops > 0)
      step_flops += work->attention_flops *
                    (1.0 / cost::attention_kernel_share(gpu, w.attention_kernel) - 1.0);
    if (training) {
      cards = gpus;
      bytes *= layout.replicas;
    }
    const double bw = gpu.mem_bw_gbs * 1e9 * cal.eta_bw * cards;
    const double flops = tflops * 1e12 * cal.eta_compute * cards;
    if (!(bw > 0) || !(flops > 0)) {
      return make_error(ErrorCode::kInvalid,
                        "GPU " + gpu.name + " has no memory bandwidth or TFLOPS in the catalog");
    }
    // A mixture of experts' touched experts stream at their own share of the rate (cost_model.h).
    const double expert_extra = work->expert_bytes * (1.0 / kMoeExpertBandwidthShare - 1.0);
    // A UNet's activation roof, where the card's L2 does not hold it off (cost/l2_cache.h).
    const double activation_bytes =
        cost::unet_activation_roof_applies(gpu) ? work->activation_bytes : 0.0;
    const double t_bw = std::max(bytes + expert_extra, activation_bytes) / bw;
    const double t_compute = step_flops / flops;
    // A decode step's kernels run in turn, each bound by its own roof: the attention kernels'
    // KV read (a few FLOPs a byte) adds to the matrix products, whose bytes and FLOPs share one
    // regime (bench/README.md, "A decode step's KV read beside its matrix products").
    const double t_kv = work->kv_bytes / bw;
    const double t_products = std::max(t_bw - t_kv, t_compute);

    // Collectives per step. Tensor parallel (Megatron-LM): two all-reduces of the step's
    // activations (tokens x hidden x 2 bytes) per layer, inside one node. Training (ZeRO-3 /
    // FSDP): each card all-gathers the weights twice and reduce-scatters the gradients,
    // 3 x state x (n-1)/n, plus the replicas' all-reduce of their gradient shards; overlapped
    // with compute, so only what exceeds it counts.
    constexpr double kActivationBytes = 2;
    const int tp = std::min(layout.group, kGpusPerNode);
    double comm = 0, prefill_comm = 0;
    if (training) {
      const double weights = mem->weights_gib * kGiB, grads = mem->gradients_gib * kGiB;
      double per_card = 0;
      long calls = 0;
      if (layout.group > 1) {
        per_card += (2 * weights + grads) * (layout.group - 1) / layout.group;
        calls += 3 * static_cast<long>(shape.layers);
      }
      if (layout.replicas > 1) {
        per_card += 2 * grads / layout.group * (layout.replicas - 1) / layout.replicas;
        calls += 1;
      }
      comm =
          std::max(0.0, collective_seconds(gpu, gpus, per_card, calls) - std::max(t_bw, t_compute));
    } else if (layer_split) {
      // group - 1 hops of the batch's activations (tokens x hidden x 2 bytes) per token, and of the
      // prompt's in prefill, point to point.
      const double hops = layout.group - 1;
      comm = hops * collective_seconds(gpu, 2, work->batch * shape.hidden * kActivationBytes, 1);
      if (work->prefill_flops > 0 && w.context_tokens && w.tokens) {
        const double prompt = static_cast<double>(*w.context_tokens - *w.tokens) * work->batch;
        prefill_comm =
            hops * collective_seconds(gpu, 2, prompt * shape.hidden * kActivationBytes, 1);
      }
    } else if (seq_split) {
      // DeepSpeed-Ulysses (arXiv 2309.14509): four all-to-alls a block per denoiser call (the
      // queries, keys and values in, the attention's output back), each card sending (n-1)/n of
      // its tokens / n, on the critical path. Per step: every pass of the batch. Guidance
      // parallel: each half of the group runs one pass, Ulysses over its n / 2 cards.
      auto d = diffusion_work_of(w, params);
      if (!d) return d.error();
      const bool halves = w.cfg_parallel.value_or(false);
      const int n = halves ? layout.group / 2 : layout.group;
      const double tokens = work->batch * (halves ? 1 : d->passes) * d->latent_tokens;
      const double per_card =
          4 * shape.layers * (tokens / n) * shape.hidden * kActivationBytes * (n - 1.0) / n;
      comm =
          collective_seconds(gpu, n, per_card, static_cast<long>(4 * shape.layers * work->calls));
    } else if (tp > 1 && !placed) {
      double tokens = work->batch;
      if (w.kind == "diffusion") {
        auto d = diffusion_work_of(w, params);
        if (!d) return d.error();
        tokens = work->batch * d->passes * d->latent_tokens;
      }
      comm =
          2 * shape.layers * allreduce_seconds(gpu, tp, tokens * shape.hidden * kActivationBytes);
      if (work->prefill_flops > 0 && w.context_tokens && w.tokens) {
        const double prompt = static_cast<double>(*w.context_tokens - *w.tokens) * work->batch;
        prefill_comm =
            2 * shape.layers * allreduce_seconds(gpu, tp, prompt * shape.hidden * kActivationBytes);
      }
    }

    RunTime t;
    t.bound = t_compute > t_bw ? "compute" : "bandwidth";
    // Diffusion: the host issues a step's kernels (PyTorch eager) while the card runs earlier
    // ones, so the per-call overhead is a floor the batch amortises (docs/cost-model.md, "The
    // batch curve"; StepWork::calls). Elsewhere the overhead adds.
    const double floor_s = w.kind == "diffusion" ? cal.t0_s * work->calls : 0;
    if (floor_s > std::max(t_bw, t_compute)) t.bound = "overhead";
    // A mixture of experts' decode step: each layer's fused-MoE call has a fixed cost beside its
    // bytes (kernel benchmarks; the shards of a group run theirs side by side).
    if (w.kind == "llm-inference" && params < *total_params)
      t.moe_s = shape.layers * kMoeLayerFloorS;
    t.step_s = (w.kind == "diffusion" ? std::max({t_bw, t_compute, floor_s})
                                      : t_kv + t_products + cal.t0_s + t.moe_s) +
               comm;
    t.comm_s = comm;
    t.expert_bytes = work->expert_bytes;
    if (w.kind == "llm-inference") t.read_bytes = work->bytes;
    t.layout = layout;
    t.steps = work->steps;
    t.batch = training ? work->batch : work->batch * layout.replicas;
    // Without items the replicas share the concurrent sequences: never more in flight than exist.
    if (w.kind == "llm-inference" && !w.items)
      t.batch = std::min<int>(t.batch, static_cast<int>(positive_or(w.concurrency, 1)));
    t.rounds = work->rounds;
    // LLM prefill at its engine's rate and efficiency (docs/cost-model.md, "Prefill by engine");
    // a diffusion round's decode (VAE or vocoder) at the steps' rate.
    // Sequence parallel leaves the VAE decode on one card (Wan's and xDiT's pipelines decode the
    // whole latent on one rank).
    const double prefill_flops =
        w.kind != "llm-inference" ? (seq_split ? flops / cards : flops)
                                  : cost::tensor_tflops(w, gpu, cost::fp16_accumulates(w, true)) *
                                        1e12 * cost::prefill_eta(w, given_cal) * cards;
    t.prefill_s = work->prefill_flops / prefill_flops + prefill_comm;
    const cost::OffloadCopies copies = cost::offload_copies(w, *total_params);
    t.step_s += copies.per_call_s * work->calls;  // a step's own copies (sequential offload)
    t.offload_s = copies.per_call_s * work->calls * static_cast<double>(t.steps) +
                  copies.per_round_s * static_cast<double>(t.rounds);
    t.compute_s = t.step_s * static_cast<double>(t.steps) +
                  (t.prefill_s + copies.per_round_s) * static_cast<double>(t.rounds);
    // A run whose prompts take most of its time is bound by their compute, whatever bounds its
    // decode step: the efficiency a run from history calibrates (plan/calibration.h).
    if (w.kind == "llm-inference" &&
        t.prefill_s * static_cast<double>(t.rounds) > t.step_s * static_cast<double>(t.steps))
      t.bound = "compute";
    return t;
  };
  // One llama.cpp process (no items for replicas to split) spreads the model over every card it
  // sees, by layers (its default --split-mode layer), even a model that fits one card: each card
  // boundary is a hop per token (docs/cost-model.md, "Multi-GPU").
  if (w.kind == "llm-inference" && w.engine == "llama.cpp" && !w.items && gpus > 1)
    return time_for({gpus, 1, (gpus + kGpusPerNode - 1) / kGpusPerNode});
  // A layout the workload names (vLLM's --tensor-parallel-size, Wan's --ulysses_size) is the one
  // priced.
  if (w.tensor_parallel) return time_for(*tensor_parallel_layout(w, gpus));
  if (w.sequence_parallel) return time_for(*sequence_parallel_layout(w, gpus));
  const ParallelLayout least = parallel_layout(w, gpu, gpus);
  auto best = time_for(least);
  if (!best) return best;
  for (int g = least.group * 2; least.group > 1 && g <= gpus; g *= 2) {
    auto t = time_for({g, gpus / g, (g + kGpusPerNode - 1) / kGpusPerNode});
    if (!t) return t;
    if (t->compute_s < best->compute_s) best = std::move(t);
  }
  return best;
}

}  // namespace burst
