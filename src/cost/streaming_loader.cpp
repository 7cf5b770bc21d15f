// Streaming weight loaders' read rates and cost (cost/streaming_loader.h). Every constant and its
// source: docs/cost-model.md, "Streaming loaders"; fitted by bench/validate_cost_model.py --fit on
// the fit set's streaming-loader rows only.
#include "cost/streaming_loader.h"

#include <algorithm>

namespace burst::cost {
namespace {

// Fitted: the median of rows 302 (Run:ai Model Streamer from S3 in the region onto a g5.12xlarge,
// Run:ai's benchmarks), 308 (Anyscale's loader from S3 onto a p4de) and 333 (the streamer in
// vLLM, a 1.5B model from S3), each less the loader's share: parallel ranged GETs, against the
// default path's single download stream or file-system mount (storage_read_bps("s3")).
constexpr double kS3StreamingBps = 4.02e9;

// Fitted, one rank's rate: the median of rows 313 (fastsafetensors in IBM's TGIS, llama-2-13b
// from the page cache, TGIS #99) and 372, 374, 378 (fastsafetensors in vLLM #52462 at TP 1 and
// 4), each rank's share over the time less the loader's share: a streaming loader copies
// page-cached bytes into its pinned buffers with the CPU, far below the page cache's rate for a
// memory-mapped read (storage_read_bps).
constexpr double kPageCacheStreamingBps = 5.19e9;

// Fitted (least absolute log error) on the streaming rows read from a disk or volume: 300-301
// (the Run:ai Model Streamer from EBS gp3 and io2 volumes at their stated rates), 303-305
// (ServerlessLLM Store's loader from a 29.4 GB/s NVMe), 309-312, 331, 371, 373 and 375-377
// (fastsafetensors in vLLM #10647, TGIS #99, its own overview and vLLM #52462, from local NVMe),
// 332 (the streamer in vLLM from a local disk), 380, 384, 386 and 389 (transformers'
// HF_SHARD_PREFETCH on 8 ranks and pegainfer's WeightPrefetch, from shared file systems and
// Lustre at the network prior). Per GB each GPU loads: the copy to the GPU that reading does not
// hide.
constexpr LoaderCost kStreaming{"streaming", 0.0, 0.015, 20};

}  // namespace

bool known_loader(std::string_view loader) {
  return loader == kLoaderDefault || loader == kLoaderStreaming || loader == kLoaderHttp;
}

double streaming_read_bps(std::string_view kind, double disk_bps, int gpus) {
  if ((kind == kStorageLocalDisk || kind == kStorageNetwork) && disk_bps > 0) return disk_bps;
  if (kind == kStorageS3) return kS3StreamingBps;
  if (kind == kStorageHub) return hub_download_bps(0, "");
  if (kind == kStoragePageCache) return kPageCacheStreamingBps * std::max(1, gpus);
  return storage_read_bps(kind);
}

LoaderCost streaming_loader_cost() { return kStreaming; }

WeightLoad streaming_weight_load(double weight_bytes, double read_bps, int gpus) {
  WeightLoad out;
  if (!(weight_bytes > 0) || !(read_bps > 0)) return out;
  out.read_s = weight_bytes / read_bps;
  out.init_s = kStreaming.fixed_s + kStreaming.s_per_gb * weight_bytes / 1e9 / std::max(1, gpus);
  return out;
}

}  // namespace burst::cost
