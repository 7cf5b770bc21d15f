// RunPod v2 JSON in and out: request bodies, and tolerant parsing of the responses (nullable
// fields read as absent). Internal to the driver.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "burst/provider.h"

namespace burst::runpod {

using nlohmann::json;

// The problem+json `detail` (with `errors[]` appended), or the raw body when it is not JSON.
std::string problem_message(const std::string& body);
// Whether a 400 says the GPU/CPU type has no capacity (the API has no machine-readable code).
bool is_no_capacity(int status, const std::string& body);

// createPod's status table (v2 spec, createPod description; REFERENCE §2.4.6): 422 the body
// breaks the contract (fix, never retry); 400 a cross-field rule or no capacity for this GPU and
// data centre ("try your next candidate"); 402 insufficient balance ("stop"); 403 the account
// cannot use this pool ("skip this candidate, keep going"); 429 back off; 5xx retry. Whether a
// createPod answer means "try the next candidate" (kNoCapacity): 400 and 403.
bool create_tries_next(int status);
// The provider's words for a createPod answer, with what burst does about it for 402 and 403.
std::string create_pod_message(int status, const std::string& body);

PodState pod_state(const std::string& status);
// A v2 Pod. Fails on anything that is not an object with string id and name.
Result<Pod> parse_pod(const json& j);
// {"pods":[Pod,...]} strictly: a list that does not parse is an error, never "no pods".
Result<std::vector<Pod>> parse_pod_list(const std::string& body);
// Network volume storage: $0.07/GB/month ("Network volume storage space costs less than for disk
// volumes ($0.07/GB/month rather than $0.10/GB/month)", runpod/docs
// pods/storage/create-network-volumes.mdx; RunPod's pricing page lists $0.05 above 1 TB, which
// burst's volumes do not reach). Filled into every parsed Volume.
inline constexpr double kRunpodVolumeUsdPerGbMonth = 0.07;
// Reading from a network volume: docs.runpod.io/pods/storage gives its performance only as
// "Variable (network)" (the container disk "Fastest (local)"), so this is a published
// measurement: `dd` of a 40.9 GB safetensors file under /workspace on a RunPod pod ran at 237 MB/s
// (github.com/kohya-ss/musubi-tuner/issues/655, 2025-10-17; the issue does not say whether that
// /workspace was a network volume or the pod's volume disk). A prior: a job's own timed volume
// reads replace it (plan/load_history.h).
inline constexpr double kRunpodVolumeReadBytesPerSecond = 237e6;
Result<std::vector<Volume>> parse_volume_list(const std::string& body);
Result<Volume> parse_volume(const json& j);

std::string catalog_name(const std::string& runpod_id);
std::string runpod_id_for(const std::string& catalog_name);  // "" when not in the table

}  // namespace burst::runpod
