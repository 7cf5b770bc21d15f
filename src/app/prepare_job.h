// What `burst run` and burstd both do before a job starts: read its secrets, gather offers, scan
// the code dir and plan. It creates no pod, volume or job row, and no SQLite file; the caller
// decides whether to go ahead. What it does beyond reading: it asks each provider for its offers
// (their APIs), and, when the plan pulls an image whose size the spec does not give, asks the
// image's registry (app/image_size_lookup.h) and caches the answer, or the failure, in an
// existing store's image_sizes table (Store::put_image_size; app/plan_with_history.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/provider.h"
#include "burst/spec.h"
#include "plan/planner.h"
#include "sync/code_sync.h"

namespace burst {

struct PreparedJob {
  Plan plan;
  ScanResult code;
  std::map<std::string, std::string> secrets;                  // name -> value
  std::map<std::string, std::unique_ptr<Provider>> providers;  // the ones that can run a job
  std::vector<std::string> warnings;                           // e.g. a secret too short to redact
  std::vector<std::string> items;  // workload.items_file's lines (app/items_file.h); else empty
  Provider& gpu_provider() { return *providers.at(plan.gpu.provider); }
};

// Secrets are read from `env` by name. Errors: kInvalid (a required secret missing, named with
// its file:line:col; a bad code dir or plan input), or the planner's own code (kNoCapacity).
// `offline_table`: plan as `burst plan` does (a cloud with no API key, or whose offers cannot be
// listed, is priced from the offline table; its note joins `warnings`): a dry run, which creates
// nothing, so `providers` may then lack the chosen one. `store`: the caller's open store for the
// history (burstd's); null: plan_with_history opens it by path if it exists.
Result<PreparedJob> prepare_job(const PipelineSpec& spec, const std::string& provider_override,
                                const Config& config, Clock& clock,
                                const std::map<std::string, std::string>& env,
                                bool offline_table = false, Store* store = nullptr);

}  // namespace burst
