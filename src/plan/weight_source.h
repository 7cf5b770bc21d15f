// Where a pod reads the workload's weights from, and at what prior rate (docs/cost-model.md,
// "Weight load"): `workload.weights_from` when the spec states it, else the volume when the store
// shows it staged on that provider and region (app/plan_with_history.cpp), else a hub download.
// The provider's own storage facts come from its registry row (ProviderTraits::volume_storage,
// volume_read_bps, local_disk_read_bps); the kinds' priors and the loader's cost from
// burst/weight_load.h. Pure; the planner learns each provider's rates on top (plan/load_history.h).
#pragma once

#include <string>

#include "burst/provider.h"
#include "plan/load_history.h"

namespace burst {

struct WeightSource {
  std::string from;      // hub | s3 | volume | local-disk (as the spec names it)
  std::string kind;      // storage kind: hub | s3 | network | local-disk
  double prior_bps = 0;  // read rate before this machine's measurements
  // Which of this machine's samples teach the rate: prepare-step downloads (hub), timed volume
  // reads (volume); none for s3 and local-disk.
  bool learns = false;
  bool warm = false;       // the samples to learn from are volume reads
  bool host_disk = false;  // prior_bps is the offer's own disk rate, not a prior
  // The offer's download link, bytes/s, where the weights are downloaded (hub, s3) and the offer
  // states it (Offer::download_bps); 0: no link bound. No rate, prior or learned, exceeds it.
  double link_bps = 0;
};

// `weights_from` "" (unset), hub, s3, volume or local-disk; an unknown value is treated as unset
// (the spec parser refuses it first). `disk_bps` > 0: the offer's own disk rate (Offer::
// disk_read_bps), read for the local disk and for a volume that lives on it (Vast), through
// storage_read_bps(kind, disk_bps). A hub download's prior is the rate of `weight_bytes` of
// `engine`'s checkpoint through Xet (hub_download_bps: a fixed cost plus the bytes at one rate;
// that rate alone when `weight_bytes` is 0). `link_bps` > 0: the offer's download link
// (Offer::download_bps), the ceiling of a hub or object-store download. `gpus`: the ranks loading
// at once, each reading its share of the offer's own disk or the page cache at its own loader's
// rate (storage_read_bps).
WeightSource weight_source_for(const std::string& weights_from, const ProviderTraits& provider,
                               bool warm_volume, double disk_bps = 0, double weight_bytes = 0,
                               const std::string& engine = "", double link_bps = 0, int gpus = 1);

// `rate` no faster than the source's download link (unchanged without one): a provider's learned
// download rate comes from its other machines, whose links may be faster than this offer's.
LoadRate within_link(LoadRate rate, const WeightSource& src);

// The plan's weight-load line for one offer: the rate's note (plan/load_history.h), or where the
// weights come from when that is an object store or the local disk, and the load's seconds with
// the loader's own work (burst/weight_load.h), e.g. "weight load 16.0 GB from the local disk at
// 4000 MB/s (prior), 10 s with the loader"; where the offer's link bounds a download, "weight load
// 16.0 GB from the hub at 12.5 MB/s (the offer's download link, 100 Mb/s), 1287 s with the loader".
std::string load_note(const WeightSource& src, const LoadRate& rate, double weight_bytes,
                      double seconds);

}  // namespace burst
