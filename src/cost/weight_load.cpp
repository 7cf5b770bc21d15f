// Read rates per storage kind and loader costs (burst/weight_load.h). Every constant and its
// source: docs/cost-model.md, "Weight load"; the fitted ones come from
// `bench/validate_cost_model.py --fit` on the fit set's weight-load rows only.
#include "burst/weight_load.h"

#include <algorithm>
#include <cmath>

namespace burst {
namespace {

struct StorageRate {
  const char* kind;
  double bytes_per_s;
  const char* basis;
};

constexpr StorageRate kStorageRates[] = {
    // Fitted: one download stream's rate, the median over the fit set's hub rows read with
    // huggingface_hub's HTTP downloader or one stream (`loader` http: 67, 339, 341, 343, 345, 346,
    // 397-399, 406-407: vLLM, TGI, SGLang, litgpt, instructlab and gpustack downloads before Xet,
    // curl, HF_HUB_DISABLE_XET=1) of the busiest stream's bytes over the time
    // (hub_http_download_bps).
    {kStorageHub, 31.88e6,
     "fitted on 11 fit-set rows (Hugging Face hub downloads, one stream a file)"},
    // Fitted: the median of rows 70 (Llama 2 70B from S3 in-region onto a p4de, Anyscale's post)
    // and 201 (a 7.6B model from an S3 bucket mounted as a file system, SkyPilot), each less its
    // loader's share.
    {kStorageS3, 324.4e6,
     "fitted on 2 fit-set rows (Anyscale's p4de from S3, SkyPilot's S3 mount)"},
    // Cited: Google Cloud persistent disk (network block storage) "~0.3 GB/s"
    // (anyscale/ai-infra-cookbook#57); providers with their own figure override it.
    {kStorageNetwork, 300e6, "prior: ~0.3 GB/s network disk (anyscale/ai-infra-cookbook#57)"},
    // Cited: local NVMe SSDs "~4 GB/s read bandwidth" (anyscale/ai-infra-cookbook#57).
    {kStorageLocalDisk, 4e9, "prior: ~4 GB/s local NVMe (anyscale/ai-infra-cookbook#57)"},
    // Fitted with the safetensors loader, one rank's rate: rows 263-264 (ServerlessLLM's cached
    // loads), 270 (TGIS's hot start), 381 (transformers on 8 ranks) and 388, 391 (pegainfer on a
    // GH200), a checkpoint served from RAM. The fit sits at its grid's top (100 GB/s): a rank's
    // page-cached load is bounded by the loader's own work per GB, not by this read.
    {kStoragePageCache, 100e9,
     "fitted on 6 fit-set rows (cached loads by ServerlessLLM, TGIS, transformers, pegainfer), "
     "per rank"},
};

// Fitted by bench/validate_cost_model.py --fit (least absolute log error) on the fit set's
// weight-load rows read from a cited-prior or stated-rate storage or the page cache, jointly with
// the page cache's rate and kLocalDiskLoaderCeilingBps (each per rank): safetensors on rows 68,
// 69, 200, 202, 203, 260-270, 330, 334-336, 365-370, 379, 381-383, 385, 387-388, 390-391 and
// 504-505 (vLLM's default loader on CUDA and ROCm, transformers', TGIS', safetensors' own,
// llama.cpp's, pegainfer's, NeMo Automodel's, tokenspeed's; local NVMe, EBS and EFS volumes,
// Lustre, NFS and shared file systems, the page cache; one to sixteen ranks); pytorch's seconds
// per GB on rows 71-72 and 337 (two sources, Meta's 2023 example loader), its fixed cost taken
// from safetensors. Refitted 2026-12-01 with rows 504-505 (bench/README.md, "Weight load
// refitted with rows 504-505"); 6 s is the fit's own optimum: a grid to 12 s gives the same
// (bench/README.md, "The loader's fixed cost off its grid's edge: scored, and not kept").
constexpr LoaderCost kSafetensors{"safetensors", 6.00, 0.090, 37};
constexpr LoaderCost kPytorch{"pytorch", 6.00, 9.2, 3};

// Fitted (least absolute log error; the fixed cost on the loaders' grid, 0-6 s) on the fit set's
// parallel hub downloads, rows 338, 340, 342, 344, 392-396 and 400-405, 408 (Xet through
// huggingface_hub, hf-xet, the hf-hub crate, xet-core and zig-xet; hf_transfer): hub_download_bps.
// The rows run from 0.7 MB/s (a desk's link) to 1.2 GB/s (a server's): the host's link, which no
// input here knows, decides most of it (docs/cost-model.md, "Weight load", the fourth round).
constexpr double kHubParallelFixedS = 6.0;
constexpr double kHubParallelBps = 1.189e9;

}  // namespace

bool known_weight_source(std::string_view source) {
  for (const char* s : kWeightSources)
    if (source == s) return true;
  return false;
}

double storage_read_bps(std::string_view kind) {
  for (const StorageRate& r : kStorageRates)
    if (kind == r.kind) return r.bytes_per_s;
  return 0;
}

const char* storage_read_basis(std::string_view kind) {
  for (const StorageRate& r : kStorageRates)
    if (kind == r.kind) return r.basis;
  return "";
}

double storage_read_bps(std::string_view kind, double disk_bps, int gpus) {
  const int ranks = std::max(1, gpus);
  const double prior = storage_read_bps(kind);
  // Each rank reads its own share: from RAM at one rank's rate each.
  if (kind == kStoragePageCache) return prior * ranks;
  if (!(disk_bps > 0)) return prior;
  if (kind == kStorageLocalDisk || kind == kStorageNetwork)
    return std::min(disk_bps, kLocalDiskLoaderCeilingBps * ranks);
  return prior;
}

double hub_download_bps(double weight_bytes, std::string_view engine) {
  if (!(weight_bytes > 0) || !std::isfinite(weight_bytes)) return kHubParallelBps;
  const double parallel = weight_bytes / (kHubParallelFixedS + weight_bytes / kHubParallelBps);
  return std::max(parallel, hub_http_download_bps(weight_bytes, engine));
}

double hub_http_download_bps(double weight_bytes, std::string_view engine) {
  const double stream = storage_read_bps(kStorageHub);
  if (!(weight_bytes > 0) || !std::isfinite(weight_bytes)) return stream;
  const double file =
      std::min(weight_bytes, engine == "llama.cpp" ? kHubGgufFileBytes : kHubShardBytes);
  const double at_once = std::min<double>(std::ceil(weight_bytes / file), kHubParallelFiles);
  return weight_bytes / (std::max(file, weight_bytes / at_once) / stream);
}

LoaderCost loader_cost(const std::string& engine) {
  return engine == "pytorch" ? kPytorch : kSafetensors;
}

WeightLoad weight_load(double weight_bytes, double read_bps, const std::string& engine, int gpus) {
  WeightLoad out;
  if (!(weight_bytes > 0) || !(read_bps > 0)) return out;
  const LoaderCost c = loader_cost(engine);
  out.read_s = weight_bytes / read_bps;
  out.init_s = c.fixed_s + c.s_per_gb * weight_bytes / 1e9 / std::max(1, gpus);
  return out;
}

}  // namespace burst
