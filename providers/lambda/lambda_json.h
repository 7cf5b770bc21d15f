// Lambda Cloud API v1 JSON in and out: the {"data": ...} envelope, the {"error": {code, message,
// suggestion}} body, instances, instance types and file systems. Internal to the driver.
// Source: Lambda Cloud API 1.8.3 OpenAPI spec (digest: shared/provider-apis/REFERENCE.md §3).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "burst/provider.h"

namespace burst::lambda {

using nlohmann::json;

inline constexpr const char* kInsufficientCapacity =
    "instance-operations/launch/insufficient-capacity";

// "code: message (suggestion)" from an error body, or the raw body (shortened) when not one.
std::string error_message(const std::string& body);
std::string error_code(const std::string& body);

// The `data` member of a 2xx body, strictly: anything else is kUnavailable ("not the documented
// JSON; not treating it as empty"), naming `what`.
Result<json> data_of(const std::string& body, const std::string& what);

// booting, unhealthy -> pending; active -> running; terminating -> stopping;
// terminated, preempted -> gone; anything else -> unknown.
PodState instance_state(const std::string& status);

// An Instance. `ssh_user` is who logs in (Lambda: ubuntu); the SSH port (22) is published once
// the instance is active with an ip. volume_path: its first file system's mount point.
Result<Pod> parse_instance(const json& j, const std::string& ssh_user);
Result<std::vector<Pod>> parse_instance_list(const std::string& body, const std::string& ssh_user);
// File systems "are billed per GiB used per month", example rate $0.20 per GiB per month
// (docs.lambda.ai/public-cloud/billing, "Filesystems"; the console shows the live rate at create).
inline constexpr double kLambdaFilesystemUsdPerGbMonth = 0.20;
Result<std::vector<Volume>> parse_filesystem_list(const std::string& body);
Result<Volume> parse_filesystem(const json& j);

struct InstanceType {
  std::string name;      // "gpu_1x_a10"
  std::string gpu_type;  // catalog name: "A10"
  int gpus = 0;
  std::optional<double> vram_gb;
  double usd_per_hour = 0;
  std::vector<std::string> regions;  // with capacity now
};
Result<std::vector<InstanceType>> parse_instance_types(const std::string& body);

// "gpu_1x_a10" -> "A10", "gpu_8x_h100_sxm5" -> "H100_SXM"; unknown -> upper-cased suffix.
std::string catalog_name(const std::string& instance_type_name);

}  // namespace burst::lambda
