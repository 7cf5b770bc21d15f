// Multi-GPU half of the cost model: how an offer's cards split the work (the smallest group that
// holds the model, replicated), and what the group's collectives cost on the card's interconnect.
// Constants and their sources: docs/cost-model.md, "Multi-GPU".
#include <algorithm>
#include <string>

#include "burst/cost_model.h"

namespace burst {

namespace {
constexpr double kParallelDefaultLinkGbs = 64;
// Infinity Fabric (AMD) all-reduces at the rate RCCL measured on 8 x MI300X: an 8 MiB float
// all-reduce took 91.10 us (busbw 161 GB/s; rccl-tests in github.com/crickett-hpe/hpc-ai-envs
// pull 30). With the 10 us per-call latency that is 1.75 x 8 MiB / 81.1 us = 181 GB/s through
// each card, 0.40 of the catalog's 448 GB/s one way, where NCCL on NVLink reaches kLinkEfficiency
// (0.8). RCCL's maintainers put the link itself at 48 of 64 GB/s per direction after protocol
// overhead (github.com/ROCm/rccl/issues/1210): the rest is the library. Measured on MI300X only;
// applied to every Infinity Fabric card. docs/cost-model.md, "Multi-GPU".
constexpr double kInfinityFabricLinkEfficiency = 0.40;
}  // namespace

ParallelLayout parallel_layout(const Workload& w, const GpuSpec& gpu, int gpus) {
  ParallelLayout l;
  gpus = std::max(1, gpus);
  // gpus_needed is 0 when nothing holds it; run_time reports that as capacity before this.
  const int needed = gpus_needed(w, gpu);
  l.group = needed <= 0 ? gpus : std::min(needed, gpus);
  l.replicas = std::max(1, gpus / l.group);
  l.nodes = (l.group + kGpusPerNode - 1) / kGpusPerNode;
  return l;
}

Result<ParallelLayout> tensor_parallel_layout(const Workload& w, int gpus) {
  const long tp = w.tensor_parallel.value_or(1);
  if (w.kind != "llm-inference")
    return make_error(ErrorCode::kInvalid, "tensor_parallel only applies to llm-inference");
  if (w.engine == "llama.cpp")
    return make_error(ErrorCode::kInvalid,
                      "tensor_parallel does not apply to llama.cpp, which splits by layers");
  if (tp < 1 || tp > gpus)
    return make_error(ErrorCode::kInvalid, "tensor_parallel " + std::to_string(tp) +
                                               " needs at least that many GPUs (got " +
                                               std::to_string(gpus) + ")");
  ParallelLayout l;
  l.group = static_cast<int>(tp);
  l.replicas = gpus / l.group;
  l.nodes = (l.group + kGpusPerNode - 1) / kGpusPerNode;
  return l;
}

namespace {

// Ulysses gives each card of the group whole attention heads, so the degree must divide them
// (Wan's generate.py and xDiT assert it); with guidance's two passes, classifier-free-guidance
// parallel takes a factor of 2 first (xDiT). "" when it divides, or the heads are not known.
std::string ulysses_heads_refusal(const Workload& w, long sp) {
  const DiffusionShape* row = find_diffusion_model(w.model);
  const long heads = w.heads.value_or(row ? row->video.heads : 0);
  if (heads <= 0 || sp <= 1) return "";
  auto d = diffusion_work_of(w, w.params_b.value_or(1) * 1e9);
  const bool two_passes = d.ok() && d->passes == 2;
  auto splits = [&](long n) {
    return heads % n == 0 || (two_passes && n % 2 == 0 && heads % (n / 2) == 0);
  };
  if (splits(sp)) return "";
  std::string degrees;
  for (long n = 2; n <= std::min<long>(2 * heads, 64); ++n)
    if (splits(n)) degrees += (degrees.empty() ? "" : ", ") + std::to_string(n);
  return "sequence_parallel " + std::to_string(sp) + " does not divide the " +
         std::to_string(heads) + " attention heads of " +
         (w.model.empty() ? std::string("the denoiser") : w.model) +
         ": Ulysses gives each card whole heads" +
         (two_passes ? " (guidance's two passes may take a factor of 2)" : "") +
         "; degrees that split them: " + degrees;
}

}  // namespace

Result<ParallelLayout> sequence_parallel_layout(const Workload& w, int gpus) {
  const long sp = w.sequence_parallel.value_or(1);
  if (w.kind != "diffusion")
    return make_error(ErrorCode::kInvalid, "sequence_parallel only applies to diffusion");
  if (!w.architecture.empty() && w.architecture != "dit")
    return make_error(ErrorCode::kInvalid,
                      "sequence_parallel splits a transformer denoiser's tokens; " +
                          (w.model.empty() ? std::string("architecture ") : w.model + " is a ") +
                          w.architecture + (w.model.empty() ? " has no such split" : ""));
  if (sp < 1 || sp > gpus)
    return make_error(ErrorCode::kInvalid, "sequence_parallel " + std::to_string(sp) +
                                               " needs at least that many GPUs (got " +
                                               std::to_string(gpus) + ")");
  if (std::string why = ulysses_heads_refusal(w, sp); !why.empty())
    return make_error(ErrorCode::kInvalid, why);
  if (w.cfg_parallel.value_or(false)) {
    // Two halves, each running one of guidance's two passes (xDiT's --use_cfg_parallel).
    if (sp % 2 != 0)
      return make_error(ErrorCode::kInvalid,
                        "cfg_parallel needs an even sequence_parallel, two "
                        "halves of the group (got " +
                            std::to_string(sp) + ")");
    auto d = diffusion_work_of(w, w.params_b.value_or(1) * 1e9);
    if (d.ok() && d->passes != 2)
      return make_error(ErrorCode::kInvalid,
                        "cfg_parallel runs guidance's two passes on two halves of the group; " +
                            (w.model.empty() ? std::string("the denoiser") : w.model) +
                            " runs one pass a step (guidance 1 or less, or distilled into one "
                            "pass)");
  }
  ParallelLayout l;
  l.group = static_cast<int>(sp);
  l.replicas = gpus / l.group;
  l.nodes = (l.group + kGpusPerNode - 1) / kGpusPerNode;
  return l;
}

double sequence_parallel_card_gib(const MemoryBreakdown& need, int group) {
  return need.total_gib() - need.activations_gib * (1.0 - 1.0 / std::max(1, group));
}

bool layout_holds(const Workload& w, const GpuSpec& gpu, int gpus) {
  auto need = memory_need(w);
  if (!need) return false;
  if (w.kind == "diffusion" && w.sequence_parallel) {
    // Every card of a group holds the whole denoiser and its 1/N of the activations.
    auto l = sequence_parallel_layout(w, gpus);
    return l && sequence_parallel_card_gib(*need, l->group) <= usable_gib(gpu);
  }
  // A diffusion pipeline's denoiser and its activations sit on one card; the rest beside them.
  if (diffusion_card_gib(w) > usable_gib(gpu)) return false;
  if (!engine_holds(w, gpu, gpus)) return false;  // the engine's share holds its sequences
  if (!w.tensor_parallel) return need->total_gib() <= gpus * usable_gib(gpu);
  auto l = tensor_parallel_layout(w, gpus);
  if (!l) return false;
  // Each replica serves its share of the concurrent sequences (items: each runs the batch).
  Workload share = w;
  if (!w.items && w.concurrency && *w.concurrency > 1)
    share.concurrency = (*w.concurrency + l->replicas - 1) / l->replicas;
  auto one = memory_need(share);
  return one && one->total_gib() <= l->group * usable_gib(gpu);
}

double link_gbs(const GpuSpec& gpu, int n) {
  // The catalog's interconnect_gbs is bidirectional; a ring moves data one way per hop. A card
  // without one is taken as PCIe 4.0 x16 (64 GB/s).
  double one_way =
      (gpu.interconnect_gbs > 0 ? gpu.interconnect_gbs : kParallelDefaultLinkGbs) / 2.0;
  if (n > kGpusPerNode) one_way = std::min(one_way, kInterNodeGbsPerGpu);
  const bool infinity_fabric = gpu.interconnect == "infinity-fabric" && n <= kGpusPerNode;
  return one_way * (infinity_fabric ? kInfinityFabricLinkEfficiency : kLinkEfficiency);
}

namespace {

double parallel_latency_s(const GpuSpec& gpu, int n) {
  const bool fast = gpu.interconnect == "nvlink" || gpu.interconnect == "infinity-fabric";
  return fast && n <= kGpusPerNode ? kAllReduceLatencyFastS : kAllReduceLatencySlowS;
}

}  // namespace

double collective_seconds(const GpuSpec& gpu, int n, double bytes, long calls) {
  if (n <= 1) return 0;
  const double gbs = link_gbs(gpu, n);
  const double wire = gbs > 0 ? bytes / (gbs * 1e9) : 0;
  return wire + static_cast<double>(calls) * parallel_latency_s(gpu, n);
}

double allreduce_seconds(const GpuSpec& gpu, int n, double bytes) {
  if (n <= 1) return 0;
  const double share = 2.0 * (n - 1) / n;
  return collective_seconds(gpu, n, bytes * share, 1);
}

}  // namespace burst
