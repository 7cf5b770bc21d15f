// Vast.ai through its REST API (https://console.vast.ai, paths /api/v0/... and /api/v1/instances/).
// Offers are per machine from a search (POST /api/v0/bundles/): num_gpus on one host at dph_total
// for the whole offer. An instance rents one offer (PUT /api/v0/asks/{offer id}/) with the image,
// a label "burst-<job>-<role>" (our tag: listing ours filters on it), env, onstart and runtype
// ssh_direct, and the volume through volume_info. Vast volumes live on ONE machine, so a create
// with a volume searches offers on that machine only, and Offer.region names the machine
// ("Washington, US (machine 41234)") so ensure_volume can put a new volume where the plan's offer
// is. SSH keys are account keys (POST /api/v0/ssh/), registered before the create. There are no
// CPU-only instances burst relies on. Sources: Vast's OpenAPI spec, digested in
// shared/provider-apis/REFERENCE.md §4; docs/providers.md "Vast".
#pragma once

#include <memory>
#include <string>

#include "burst/clock.h"
#include "burst/http.h"
#include "burst/provider.h"

namespace burst {

// The offer quality every search asks for (searchOffers filters, REFERENCE §4.2), beside
// verified/external/rentable/rented. A Vast machine is a stranger's host: dstack, too, asks for a
// direct port (direct SSH and ports need one, REFERENCE §4.4.2), a reliability floor, a download
// bandwidth floor and the CUDA version the image needs. Defaults are burst's; config.yaml's
// providers.vast.offer_filters overrides them (docs/providers.md, "Vast: offer quality").
struct VastOfferQuality {
  double min_reliability = 0.95;    // `reliability`, 0-1
  double min_direct_ports = 1;      // `direct_port_count`
  double min_inet_down_mbps = 100;  // `inet_down` (Mb/s; the spec says MB/s, REFERENCE §4.2)
  // `cuda_max_good` floor for every search; at create the image's own need (its tag's
  // "cuda12.1"/"cu121") is asked too, as the NVIDIA runtime refuses an older driver.
  double min_cuda = 0;
};

struct VastOptions {
  std::string base_url = "https://console.vast.ai";  // paths /api/v0/..., /api/v1/... appended
  std::string api_key;
  int disk_gb = 32;         // the instance's container disk (fixed at create)
  int search_limit = 5000;  // offers per search
  VastOfferQuality quality;
};

// The CUDA version an image's tag names ("pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime" -> 12.1,
// "...:cu121" -> 12.1, "nvidia/cuda:12.4.1-base" -> 12.4); 0 when it names none.
double vast_image_cuda(const std::string& image);

std::unique_ptr<Provider> make_vast_provider(const VastOptions& options,
                                             std::unique_ptr<HttpClient> http, Clock& clock);

// Vast's GPU name -> burst's catalog name ("RTX 4090" -> "RTX_4090"; "A100 SXM4" with 80 GB ->
// "A100_80GB"). Names not in the table become upper-case underscored.
std::string vast_gpu_to_catalog(const std::string& vast_name, double gpu_ram_mb = 0);

// The JSON bodies the driver sends (pinned by tests against the spec).
std::string vast_search_offers_body(const std::vector<std::string>& gpu_names, int num_gpus,
                                    long machine_id, int disk_gb, int limit,
                                    const VastOfferQuality& quality = {}, bool bid = false);
// bid_usd > 0: an interruptible instance at that bid, $/h per machine (`price`, REFERENCE §4.3;
// the offer was found with a `type: "bid"` search).
std::string vast_create_instance_body(const PodRequest& request, long volume_id, int disk_gb,
                                      double bid_usd = 0);
std::string vast_search_volumes_body(long machine_id, int size_gb);
std::string vast_create_volume_body(long volume_offer_id, int size_gb, const std::string& name);
std::string vast_add_ssh_key_body(const std::string& public_key);

}  // namespace burst
