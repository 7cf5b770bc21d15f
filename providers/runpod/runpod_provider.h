// RunPod through its REST v2 API (https://api.runpod.io/v2; v1 was retired on 2026-11-15).
// Offers come from the GPU and CPU catalogs (secure-cloud on-demand prices; spot prices from
// GraphQL's minimum bids, and spot pods rented through GraphQL's podRentInterruptable, as v2 has
// no interruptible create: runpod_graphql.h), volumes are network volumes found or created by name
// in a data centre, pods are created with the image, the network volume at the mount path, the SSH
// public key as env PUBLIC_KEY, 22/tcp exposed and, for images that run no sshd of their own, a
// start command that installs and starts one (runpod_ssh.h); burst's key is merged into the
// account's keys. A pod is ready when RUNNING with ssh.direct (root at the public IP and the port
// mapped to 22). Sources: RunPod's OpenAPI spec (runpod/docs
// api-reference-v2/openapi.json), digested in shared/provider-apis/REFERENCE.md §2.4, §2.6.
#pragma once

#include <memory>
#include <string>

#include "burst/clock.h"
#include "burst/http.h"
#include "burst/provider.h"

namespace burst {

struct RunpodOptions {
  std::string base_url = "https://api.runpod.io";  // paths /v2/... are appended
  std::string api_key;
  std::string cloud = "SECURE";  // network volumes need secure cloud
  int cpu_vcpus = 2;             // CPU pods (the upload hand-off)
};

std::unique_ptr<Provider> make_runpod_provider(const RunpodOptions& options,
                                               std::unique_ptr<HttpClient> http, Clock& clock);

// RunPod's GPU type id <-> burst's catalog name ("NVIDIA GeForce RTX 4090" <-> "RTX_4090").
// Ids not in the table map to an upper-cased, underscored name without "NVIDIA "/"GeForce ".
std::string runpod_gpu_to_catalog(const std::string& runpod_id);

// The JSON bodies the driver sends (pinned by tests against the v2 schema).
std::string runpod_create_pod_body(const PodRequest& request, const std::string& gpu_or_cpu_id,
                                   int cpu_vcpus, const std::string& data_center,
                                   const std::string& cloud);
std::string runpod_create_volume_body(const std::string& name, int size_gb,
                                      const std::string& data_center);

}  // namespace burst
