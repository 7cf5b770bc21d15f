// RunPod's GraphQL API, for spot pods only (docs/providers.md, "Spot pods"). REST v2 has no
// interruptible create ("Spot pods have no v2 endpoint yet and still go through the GraphQL API",
// SkyPilot's sky/provision/runpod/utils.py; REFERENCE.md §2.1, §2.4.2), so the driver sends two
// GraphQL documents and nothing else: the GPU types' minimum bid (`gpuTypes { lowestPrice {
// minimumBidPrice } }`, REFERENCE §2.5.2) and `podRentInterruptable` with `bidPerGpu` (§2.5.3).
// Everything else about such a pod (get, list, delete, its SSH endpoint) goes through REST v2, as
// SkyPilot does: a pod is an account's pod whichever API made it. GraphQL is deprecated and "will
// be retired in early 2027" (docs.runpod.io sdks/graphql/configurations; REFERENCE §2.1): when it
// is gone, offers carry no spot price and the planner rents on-demand.
//
// Transport (§2.2, §2.5.1): POST {base}/graphql with {"query", "variables"} and the key as
// "Authorization: Bearer" (never `?api_key=`, which would put the key in a URL). Business errors
// come back as HTTP 200 with `errors[]`; a bad key is 401; a document the schema refuses is 400.
// Internal to the driver; the parsers take untrusted bodies (tests/fuzz/runpod_json_fuzz.cpp).
#pragma once

#include <map>
#include <string>

#include "burst/provider.h"
#include "burst/result.h"

namespace burst::runpod {

// burst bids the GPU type's `minimumBidPrice` times this margin, the one Vast's bid uses
// (vast_json.h, kVastBidMargin; a unit test pins them equal) and for the same reason: RunPod's
// spot market takes a bid per GPU (`bidPerGpu`) above a floor (`minimumBidPrice`) and resumes a
// stopped pod by a new bid (`podBidResume`, REFERENCE §2.5.4), so a bid at the floor loses to any
// other; 10% above it keeps most of the discount. Never above the on-demand price.
inline constexpr double kRunpodBidMargin = 1.10;

// Per-GPU bid for a type whose floor is `min_bid` and whose on-demand price is `on_demand`
// (both $/h per GPU; on_demand <= 0: unknown, no cap). 0 when min_bid <= 0 (no spot market).
double bid_per_gpu(double min_bid, double on_demand);

// The query for every GPU type's minimum bid for `gpu_count` GPUs in secure cloud.
std::string min_bid_query_body(int gpu_count, bool secure_cloud);
// GPU type id -> minimumBidPrice ($/h per GPU), types without one (null, 0) left out. An
// `errors[]` answer or a body that is not {"data":{"gpuTypes":[...]}} is an error.
Result<std::map<std::string, double>> parse_min_bids(const std::string& body);

// What podRentInterruptable rents (PodRentInterruptableInput, REFERENCE §2.5.3).
struct SpotPodInput {
  std::string gpu_type_id;
  double bid_per_gpu = 0;
  std::string cloud = "SECURE";
  std::string data_center;    // the network volume's
  std::string docker_args;    // the SSH bootstrap (runpod_ssh.h), "" for images running sshd
  int container_disk_gb = 0;  // 0: left to RunPod
};
std::string rent_interruptable_body(const PodRequest& request, const SpotPodInput& in);
// The new pod's id. `errors[]` (HTTP 200) is an error: kNoCapacity for RunPod's no-stock words
// ("There are no longer any instances available ...", "not enough free GPUs"), else kUnavailable
// with RunPod's message.
Result<std::string> parse_rent_answer(const std::string& body);

// The words a GraphQL answer's `errors[]` carries ("" when none), shortened, printable.
std::string graphql_errors(const std::string& body);

}  // namespace burst::runpod
