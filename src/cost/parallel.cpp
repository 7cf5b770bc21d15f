// Multi-GPU half of the cost model: how an offer's cards split the work (the smallest group that
// holds the model, replicated), and what the group's collectives cost on the card's interconnect.
// Constants and their sources: docs/cost-model.md, "Multi-GPU".
#include <algorithm>

#include "burst/cost_model.h"

namespace burst {

namespace {
constexpr double kParallelDefaultLinkGbs = 64;
}  // namespace

ParallelLayout parallel_layout(const MemoryBreakdown& need, const GpuSpec& gpu, int gpus) {
  ParallelLayout l;
  gpus = std::max(1, gpus);
  // gpus_needed is 0 when nothing holds it; run_time reports that as capacity before this.
  const int needed = gpus_needed(need, gpu);
  l.group = needed <= 0 ? gpus : std::min(needed, gpus);
  l.replicas = std::max(1, gpus / l.group);
  l.nodes = (l.group + kGpusPerNode - 1) / kGpusPerNode;
  return l;
}

double link_gbs(const GpuSpec& gpu, int n) {
  // The catalog's interconnect_gbs is bidirectional; a ring moves data one way per hop. A card
  // without one is taken as PCIe 4.0 x16 (64 GB/s).
  double one_way =
      (gpu.interconnect_gbs > 0 ? gpu.interconnect_gbs : kParallelDefaultLinkGbs) / 2.0;
  if (n > kGpusPerNode) one_way = std::min(one_way, kInterNodeGbsPerGpu);
  return one_way * kLinkEfficiency;
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
