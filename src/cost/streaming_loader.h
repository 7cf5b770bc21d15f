// Streaming weight loaders (docs/cost-model.md, "Weight load", "Streaming loaders"): loaders that
// read a checkpoint with many threads in large chunks straight into pinned buffers and copy them
// to the GPUs while they read (the Run:ai Model Streamer, vLLM's --load-format runai_streamer;
// ServerlessLLM Store's sllm format; fastsafetensors; InstantTensor; CoreWeave's tensorizer),
// as against the default loaders (burst/weight_load.h), which page-fault a memory-mapped file one
// tensor at a time. Pure arithmetic over fits; no I/O.
//
//   load_s = bytes / streaming_read_bps(kind, disk_bps, gpus)
//          + the streaming loader's fixed cost + its seconds per GB x bytes / GPUs
//
// Every constant is fitted by bench/validate_cost_model.py --fit on the fit set's rows of those
// loaders only (the `loader` column: streaming).
#pragma once

#include <string_view>

#include "burst/weight_load.h"

namespace burst::cost {

// The loaders `burst estimate --loader` names: default (the engine's own: safetensors or
// pytorch, burst/weight_load.h), streaming, and http (a hub download by huggingface_hub's HTTP
// downloader, one stream a file: before 0.32.0 or with Xet off; hub_http_download_bps).
inline constexpr const char* kLoaderDefault = "default";
inline constexpr const char* kLoaderStreaming = "streaming";
inline constexpr const char* kLoaderHttp = "http";
bool known_loader(std::string_view loader);

// The rate a streaming loader reads storage `kind` at, bytes/s: a local disk or a volume at its
// own rate where known (`disk_bps` > 0: fio, a provisioned volume's rate, an instance's storage
// bandwidth; no page-faulting ceiling: these loaders reach it), else the
// kind's prior; an object store (s3) at the fitted rate of parallel ranged reads; the page cache
// at the fitted rate of copying it into pinned buffers (slower than a memory-mapped read of it);
// the hub at the parallel download's rate (hub_download_bps: Xet and hf_transfer alike). The
// page cache's rate is one rank's, `gpus` ranks each copying their own share
// (vLLM #52462: 5.54 s at TP 1, 1.70 s at TP 4, rows 372 and 374). 0 for an unknown kind.
double streaming_read_bps(std::string_view kind, double disk_bps, int gpus = 1);

// The streaming loaders' own cost beyond reading the bytes (fitted).
LoaderCost streaming_loader_cost();

// The load of `weight_bytes` at `read_bps` by a streaming loader on `gpus` GPUs. Zero bytes or
// rate: nothing.
WeightLoad streaming_weight_load(double weight_bytes, double read_bps, int gpus);

}  // namespace burst::cost
