// Lambda Cloud through its API v1 (https://cloud.lambda.ai/api/v1). Lambda launches VMs, not
// containers: instances boot Lambda Stack (Ubuntu with CUDA and docker), and the job runner runs
// the steps in the spec's image with docker on the VM (the registry row's steps_in_container;
// job/step_container.h). Offers come from GET /instance-types (price in cents per hour, regions
// with capacity); volumes are file systems found or created by name in a region, mounted by Lambda
// at the fixed path /lambda/nfs/<name> (which becomes $BURST_VOLUME); SSH keys are account keys
// referenced by name, so burst registers its public key once under a stable name; instances are
// reached as ubuntu@<ip>:22 and deleted with instance-operations/terminate. There are no CPU-only
// instances: the upload hand-off is priced by plan/handoff.h instead. Sources: Lambda Cloud API
// 1.8.3 OpenAPI spec, digested in shared/provider-apis/REFERENCE.md §3.
#pragma once

#include <memory>
#include <string>

#include "burst/clock.h"
#include "burst/http.h"
#include "burst/provider.h"

namespace burst {

struct LambdaOptions {
  std::string base_url = "https://cloud.lambda.ai";  // paths /api/v1/... are appended
  std::string api_key;
  std::string ssh_user = "ubuntu";  // Lambda's login user; the emulator uses its own
};

std::unique_ptr<Provider> make_lambda_provider(const LambdaOptions& options,
                                               std::unique_ptr<HttpClient> http, Clock& clock);

// The name burst's public key is registered under: "burst-" + 12 hex digits of its SHA-256, so
// the same key is found again and a new key gets a new name.
std::string lambda_ssh_key_name(const std::string& public_key);

// The JSON bodies the driver sends (pinned by tests against the 1.8.3 schema).
std::string lambda_launch_body(const std::string& region, const std::string& instance_type,
                               const std::string& ssh_key_name, const std::string& file_system,
                               const std::string& name);
std::string lambda_terminate_body(const std::string& instance_id);
std::string lambda_add_ssh_key_body(const std::string& name, const std::string& public_key);
std::string lambda_create_filesystem_body(const std::string& name, const std::string& region);

}  // namespace burst
