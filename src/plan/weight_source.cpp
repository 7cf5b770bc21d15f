// Resolving workload.weights_from against a provider's registry row (plan/weight_source.h).
#include "plan/weight_source.h"

#include <algorithm>
#include <cstdio>

#include "burst/weight_load.h"

namespace burst {

WeightSource weight_source_for(const std::string& weights_from, const ProviderTraits& provider,
                               bool warm_volume, double disk_bps, double weight_bytes,
                               const std::string& engine, double link_bps, int gpus) {
  WeightSource s;
  s.from = known_weight_source(weights_from) ? weights_from : (warm_volume ? "volume" : "hub");
  if (s.from == "volume") {
    s.kind = provider.volume_storage.empty() ? kStorageNetwork : provider.volume_storage;
    s.prior_bps =
        provider.volume_read_bps > 0 ? provider.volume_read_bps : storage_read_bps(s.kind);
    s.learns = s.warm = true;
  } else if (s.from == "local-disk") {
    s.kind = kStorageLocalDisk;
    s.prior_bps =
        provider.local_disk_read_bps > 0 ? provider.local_disk_read_bps : storage_read_bps(s.kind);
  } else {
    s.kind = s.from;  // hub, s3
    s.prior_bps = s.kind == kStorageHub ? hub_download_bps(weight_bytes, engine)
                                        : storage_read_bps(s.kind, 0, gpus);  // per rank
    s.learns = s.from == "hub";
  }
  if (link_bps > 0 && (s.kind == kStorageHub || s.kind == kStorageS3)) {
    s.link_bps = link_bps;
    s.prior_bps = std::min(s.prior_bps, link_bps);
  }
  // The offer's own disk replaces the prior where the weights are read from that disk.
  if (disk_bps > 0 && s.kind == kStorageLocalDisk) {
    s.prior_bps = storage_read_bps(s.kind, disk_bps, gpus);
    s.host_disk = true;
  }
  return s;
}

LoadRate within_link(LoadRate rate, const WeightSource& src) {
  if (src.link_bps > 0) rate.bytes_per_s = std::min(rate.bytes_per_s, src.link_bps);
  return rate;
}

std::string load_note(const WeightSource& src, const LoadRate& rate, double weight_bytes,
                      double seconds) {
  std::string s = rate.note(weight_bytes);
  // A volume on the offer's own disk (Vast) read at that disk's rate until measured.
  const std::string prior = ", prior;";
  if (src.host_disk && rate.runs == 0 && s.find(prior) != std::string::npos)
    s.replace(s.find(prior), prior.size(), ", the offer's disk;");
  char buf[160];
  if (src.from == "s3" || src.from == "local-disk") {
    std::snprintf(buf, sizeof buf, "weight load %.1f GB from %s at %.0f MB/s (%s)",
                  weight_bytes / 1e9, src.from == "s3" ? "an object store (s3)" : "the local disk",
                  rate.bytes_per_s / 1e6, src.host_disk ? "the offer's disk" : "prior");
    s = buf;
  }
  if (src.link_bps > 0 && rate.bytes_per_s >= src.link_bps) {
    std::snprintf(buf, sizeof buf,
                  "weight load %.1f GB from %s at %.*f MB/s (the offer's download link, %.0f Mb/s)",
                  weight_bytes / 1e9, src.from == "s3" ? "an object store (s3)" : "the hub",
                  rate.bytes_per_s < 100e6 ? 1 : 0, rate.bytes_per_s / 1e6, src.link_bps * 8 / 1e6);
    s = buf;
  }
  std::snprintf(buf, sizeof buf, ", %.0f s with the loader", seconds);
  return s + buf;
}

}  // namespace burst
