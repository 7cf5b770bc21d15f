// What the emulator's RunPod surfaces share (runpod_api.cpp serves REST v2, runpod_graphql.cpp
// the GraphQL endpoint burst uses for spot pods): the GPU types with the emulator's own
// illustrative prices (not RunPod's), the data centres, and how a pod gets its SSH server.
#pragma once

#include <httplib.h>

#include <string>

#include "cloud_state.h"

namespace burst::fakecloud {

struct GpuKind {
  const char* id;
  const char* name;
  const char* pool;
  int memory;
  double secure, community;
  int max_secure, max_community;
};

inline constexpr GpuKind kGpus[] = {
    {"NVIDIA GeForce RTX 4090", "RTX 4090", "ADA_24", 24, 0.69, 0.34, 8, 8},
    {"NVIDIA GeForce RTX 5090", "RTX 5090", "BLACKWELL_32", 32, 0.94, 0.69, 8, 8},
    {"NVIDIA L4", "L4", "ADA_24", 24, 0.43, 0.28, 8, 4},
    {"NVIDIA A40", "A40", "AMPERE_48", 48, 0.40, 0.35, 8, 8},
    {"NVIDIA RTX A5000", "RTX A5000", "AMPERE_24", 24, 0.27, 0.16, 8, 8},
    {"NVIDIA A100 80GB PCIe", "A100 PCIe", "AMPERE_80", 80, 1.64, 1.19, 8, 8},
    {"NVIDIA H100 80GB HBM3", "H100 SXM", "HOPPER_141", 80, 2.69, 2.39, 8, 8},
};

// CpuType.dataCenters lists "only the datacenters that offer this CPU flavor" (v2 spec): the
// cheapest flavour has no stock in US-KS-2, so a CPU pod there must be another flavour.
struct CpuKind {
  const char* id;
  const char* name;
  const char* group;
  double ram_per_vcpu;
  double secure_per_vcpu;
  const char* not_in;  // a data centre without this flavour ("" = none)
};
inline constexpr CpuKind kCpus[] = {{"cpu3c", "Compute-Optimized", "Gen 3", 2.0, 0.03, "US-KS-2"},
                                    {"cpu5c", "Compute-Optimized", "Gen 5", 2.0, 0.04, ""}};

// GraphQL's `lowestPrice.minimumBidPrice` for a type: the emulator's spot floor, half the secure
// on-demand price per GPU (RunPod's own spot prices run near half: config/prices.yaml's RunPod
// rows), rounded to the cent.
double runpod_min_bid(const GpuKind& g);

// DataCenter.networkVolumeTypes: "Network volume tiers this DC supports. Empty = none." (v2
// spec): CA-MTL-3 has GPUs and CPUs but no network volumes, so a volume created there is a 400.
// It is listed first, as a catalog may list it.
struct DataCenter {
  const char* id;
  const char* name;
  bool volumes;
};
inline constexpr DataCenter kDataCenters[] = {{"CA-MTL-3", "CA Montreal 3", false},
                                              {"US-KS-2", "US Kansas 2", true},
                                              {"EU-RO-1", "EU Romania 1", true}};

// Who runs sshd in the pod, and with which keys: the image itself (catalogue) from PUBLIC_KEY, or
// a start command (v2 `args`, GraphQL `dockerArgs`) that installs sshd and writes authorized_keys
// lines (runpod_start.h: only if it survives the argument split). What SSH sessions see of the
// container's environment (the image's ENV and the request's env): sshd gives each session a
// fresh one, so only what the start command wrote for them (runpod_start.h, keeps_env); RunPod's
// own images keep the emulator's old view.
void runpod_ssh_server(const std::string& args, FakePod* p);

// GET <v2>/catalog/gpus, /catalog/cpus and /catalog/datacenters (runpod_catalog_api.cpp).
void install_runpod_catalog(httplib::Server& s, CloudState& state, const std::string& v2);

// Answers `status` with an RFC 9457 problem body, as every REST v2 route does (runpod_api.cpp).
void runpod_fail(httplib::Response& res, int status, const std::string& detail);

// POST <prefix>/graphql (runpod_graphql.cpp).
void install_runpod_graphql(httplib::Server& s, CloudState& state, const std::string& prefix);

}  // namespace burst::fakecloud
