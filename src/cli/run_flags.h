// The flags that change a spec for one invocation, applied after the spec is read and before it
// is planned: --provider a,b (resources.providers), --gpus TYPE[:N] (resources.gpus and
// gpu_count), --secret NAME[=VALUE] (one more required secret). Errors are kInvalid naming the
// flag; nothing is created.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "burst/gpu_catalog.h"
#include "burst/result.h"
#include "burst/spec.h"

namespace burst {

// One provider: returned as the override (the planner's one-provider path, as before). Several:
// they replace resources.providers (each must be a registry name) and "" is returned.
Result<std::string> apply_provider_flag(PipelineSpec* spec,
                                        const std::vector<std::string>& providers);

// TYPE matches catalog names ignoring case, '-', '_' and ' '; a TYPE that is the start of several
// (H100 -> H100_SXM, H100_PCIE, ...) allows them all. N (default 1) is the count per pod.
Status apply_gpus_flag(PipelineSpec* spec, const std::string& gpus,
                       const std::vector<GpuSpec>& catalog);

// NAME: a required secret read from `env` at run time (as the spec's own). NAME=VALUE: the value
// is put into `env` too (it never reaches the store or the log: secrets are redacted).
Status apply_secret_flags(PipelineSpec* spec, const std::vector<std::string>& secrets,
                          std::map<std::string, std::string>* env);

}  // namespace burst
