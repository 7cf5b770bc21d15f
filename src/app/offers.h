// Gathers what `burst run` and `burst plan` plan with: live offers from each allowed provider's
// driver, and (for planning only) the offline price table for providers without a usable driver.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
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
  std::vector<std::string> live_providers;   // offers came from the provider's API
  std::vector<std::string> table_providers;  // priced from the offline table instead
  // Said with every table priced from the offline table: "offline prices from
  // config/prices.yaml (dated 2026-11-01): no API key for runpod"; "" when none was used.
  std::string table_note;
};

// Whether an API key is configured for `provider` (true for providers that need none).
bool has_api_key(const Config& config, const std::string& provider);
// kAuth: "runpod: the API key was refused (HTTP 401): ...; set RUNPOD_API_KEY (or ...)".
Error api_key_refused(const std::string& provider, const Error& why);
// kAuth: "runpod: no API key is configured; set RUNPOD_API_KEY (or ...)".
Error no_api_key(const std::string& provider);

// One provider's offers, fetched by fetch_all_offers: one thread per provider, all joined
// before it returns. `made` holds why a provider could not be built (provider is then null).
struct FetchedOffers {
  std::unique_ptr<Provider> provider;
  Error made;
  Result<std::vector<Offer>> gpu = std::vector<Offer>{};
  Result<std::vector<Offer>> cpu = std::vector<Offer>{};
};
void fetch_all_offers(std::vector<FetchedOffers>* all);

// kInvalid for an unknown provider name or a broken catalog/price file. kAuth when a configured
// key is refused (never priced from the table then), and when running (offline_table false) and
// no allowed provider has a key.
Result<OfferSources> gather_offers(const PipelineSpec& spec, const std::string& provider_override,
                                   const Config& config, Clock& clock, bool offline_table);

// Offers from a JSON file instead of the providers: an array of {provider, gpu_type, gpu_count,
// usd_per_hour, spot_usd_per_hour?, region?, available?}. Every provider named in the file is
// allowed, in order of first appearance (or only `provider_override` when given). kInvalid, naming
// the file and the entry, for anything else.
Result<OfferSources> offers_from_file(const std::string& path, const std::string& provider_override,
                                      const Config& config);

}  // namespace burst
