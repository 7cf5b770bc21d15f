// Weight load from the storage the weights are read from and the loader that reads them
// (docs/cost-model.md, "Weight load"). Pure arithmetic over priors and fits; no I/O, no provider
// names: a provider's own storage facts are its registry row's (ProviderTraits::volume_storage,
// volume_read_bps, local_disk_read_bps), which plan/weight_source.h resolves to one of the kinds
// below.
//
//   load_s = bytes / read rate of the storage (the host's own disk rate where known)
//          + the loader's fixed cost + its seconds per GB x bytes / GPUs loading in parallel
#pragma once

#include <string>
#include <string_view>

namespace burst {

// Where the weights come from, as `workload.weights_from` and `burst estimate --weights-from`
// name it: a model hub download (hub), an object store in the region (s3), the provider's
// persistent volume (volume: a network volume, or a local one where the provider's volumes are),
// the pod's own local disk (local-disk: a container disk or local NVMe, weights in the image or
// staged there), or the page cache (page-cache: a checkpoint this host wrote or read moments
// before, served from RAM; `burst estimate` only: a new pod's cache is empty).
inline constexpr const char* kWeightSources[] = {"hub", "s3", "volume", "local-disk", "page-cache"};
bool known_weight_source(std::string_view source);

// The storage kinds a read rate belongs to: the sources above, with `volume` resolved to what the
// provider's volume is.
inline constexpr const char* kStorageHub = "hub";
inline constexpr const char* kStorageS3 = "s3";
inline constexpr const char* kStorageNetwork = "network";
inline constexpr const char* kStorageLocalDisk = "local-disk";
inline constexpr const char* kStoragePageCache = "page-cache";

// The read rate of a storage kind, bytes/s, when no provider or measurement says otherwise:
// hub, s3 and page-cache fitted on the fit set's rows of that source; network and local-disk
// cited priors. 0 for an unknown kind. The page cache's is one rank's rate (see below).
double storage_read_bps(std::string_view kind);
// The same where the disk's own sequential read rate is known (`disk_bps` > 0, bytes/s: a fio
// run, a dd, a provider's offer such as Vast's disk_bw) and `gpus` ranks load at once: a local
// disk or a network file system reads at that rate, up to the ceiling a page-faulting safetensors
// loader reaches on each rank (gpus x kLocalDiskLoaderCeilingBps; a Lustre tier measured at 640
// MB/s loaded at that rate, rows 335-336). A provisioned rate is not a measured one: EBS volumes
// of 1,000 and 4,000 MiB/s both loaded 15 GB in 47 s (rows 202-203, read at the network prior).
// The page cache is read by each rank at its own rate (gpus x storage_read_bps("page-cache"));
// other kinds ignore `disk_bps` and `gpus`. A faster disk or more ranks never make the load
// longer. `disk_bps` <= 0: the kind's prior (times the ranks for the page cache).
double storage_read_bps(std::string_view kind, double disk_bps, int gpus = 1);
// Fitted: the fastest one rank's default loader reads a disk or file system, however fast it is.
inline constexpr double kLocalDiskLoaderCeilingBps = 8e9;
// Where that rate comes from, one line (for notes and docs).
const char* storage_read_basis(std::string_view kind);

// A hub download as huggingface_hub makes it today: since 0.32.0 it installs hf_xet, and a
// Xet-backed repository downloads through the Xet protocol, chunks fetched in parallel (Hub docs,
// "Using Xet Storage"). Priced as a fixed cost plus the bytes at one rate, both fitted on the fit
// set's parallel hub downloads (Xet and hf_transfer, bench/README.md, "Hub downloads through
// Xet"), and never slower than the HTTP downloader below for the same checkpoint. Returns the
// rate the whole download of `weight_bytes` runs at, bytes/s; the parallel rate alone for an
// unknown size (`weight_bytes` <= 0). What every plan's cold start downloads at until a provider
// has measured its own (plan/load_history.h).
double hub_download_bps(double weight_bytes, std::string_view engine);

// huggingface_hub's HTTP downloader, before 0.32.0 or with HF_HUB_DISABLE_XET=1
// (`burst estimate --loader http`): snapshot_download fetches up to kHubParallelFiles files at
// once, "1 thread = 1 file download" (its max_workers, default 8), each at one stream's rate,
// storage_read_bps("hub"). The checkpoint's files are taken to be kHubShardBytes each (safetensors
// shards: transformers' save_pretrained default max_shard_size) or, for `engine` llama.cpp (GGUF),
// up to kHubGgufFileBytes (the hub's per-file limit GGUF uploads are split at). The download ends
// when the busiest stream does: one whole file, or its share of them all. Returns the rate the
// whole download runs at, bytes/s; one stream's rate for a checkpoint of one file or of unknown
// size (`weight_bytes` <= 0).
inline constexpr int kHubParallelFiles = 8;
inline constexpr double kHubShardBytes = 5e9;
inline constexpr double kHubGgufFileBytes = 50e9;
double hub_http_download_bps(double weight_bytes, std::string_view engine);

// A loader's cost beyond reading the bytes: deserialising, copying to the GPUs, initialising the
// modules. `engine` as workload.engine names it: "pytorch" is torch.load of a pickled checkpoint
// into a module built first (Meta's original Llama example); every other engine and none read
// safetensors (vLLM, SGLang, TensorRT-LLM, llama.cpp's mmap, a plain safetensors load).
struct LoaderCost {
  const char* loader;  // "pytorch" | "safetensors"
  double fixed_s;      // per load
  double s_per_gb;     // per GB (1e9 bytes) each GPU loads
  int rows;            // fit-set rows behind it
};
LoaderCost loader_cost(const std::string& engine);

struct WeightLoad {
  double read_s = 0;  // bytes / read rate
  double init_s = 0;  // the loader's own work
  double seconds() const { return read_s + init_s; }
};
// The load of `weight_bytes` at `read_bps` by `engine`'s loader on `gpus` GPUs (each loads its
// share in parallel; the storage is read once in all). Zero bytes or rate: nothing.
WeightLoad weight_load(double weight_bytes, double read_bps, const std::string& engine, int gpus);

}  // namespace burst
