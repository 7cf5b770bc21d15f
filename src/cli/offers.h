// Gathers what `burst run` and `burst plan` plan with: live offers from each allowed provider's
// driver, and (for planning only) the offline price table for providers without a usable driver.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/gpu_catalog.h"
#include "burst/provider.h"
#include "burst/spec.h"
#include "plan/planner.h"

namespace burst {

struct OfferSources {
  PlanInput input;
  std::map<std::string, std::unique_ptr<Provider>> providers;  // the ones that can run a job
  // Shared so input.catalog stays valid when this struct is moved.
  std::shared_ptr<const std::vector<GpuSpec>> catalog;
  std::string price_table_as_of;
};

// kInvalid for an unknown provider name or a broken catalog/price file.
Result<OfferSources> gather_offers(const PipelineSpec& spec, const std::string& provider_override,
                                   const Config& config, Clock& clock, bool offline_table);

}  // namespace burst
