// The one table of providers burst knows. A provider is a folder under providers/ and one row
// here: its driver's factory and its traits (burst/provider.h: billing, CPU pods, boot prior, API
// defaults, how a pod is reached). Nothing outside providers/ compares provider names; callers
// that may include this header hand the traits to the modules that may not (plan, cost, spec,
// config, job) as data. docs/architecture.md, "Adding a provider", lists the steps.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/provider.h"
#include "burst/remote.h"

namespace burst {

struct ProviderEntry {
  const char* name;
  const char* summary;
  // Null while the driver is not built yet; make_provider then says so.
  std::unique_ptr<Provider> (*make)(const Config& config, Clock& clock);
  ProviderTraits traits;  // traits.name is the row's name
};

// Every row, in the order listings and messages name them. A deque: rows never move, so the
// traits pointers offers carry (Offer::traits) stay valid when a test adds a row.
const std::deque<ProviderEntry>& provider_table();

// The row's traits; null for a name not in the table.
const ProviderTraits* find_provider_traits(std::string_view name);
// Every row's traits, in table order: what config, spec and the price table are handed.
std::vector<ProviderTraits> all_provider_traits();
// Every row's name, in table order (the spec's resources.providers vocabulary).
std::vector<std::string> provider_names();
// The rows with an account behind an API key (traits.api_key_env set), in table order: the
// clouds `burst offers` and `burst check` ask by default.
std::vector<std::string> cloud_provider_names();
// The rows config/prices.yaml may price (traits.offline_prices), in table order.
std::vector<std::string> offline_price_provider_names();
// The provider a spec without resources.providers runs on: the first row that runs here.
std::string default_provider_name();
// Points each offer at its provider's row (unknown names: left null, the unknown defaults).
void attach_traits(std::vector<Offer>* offers);

// kInvalid for a name not in the table; kUnavailable for a driver not in this build.
Result<std::unique_ptr<Provider>> make_provider(const std::string& name, const Config& config,
                                                Clock& clock);

// How burst reaches a pod of `provider`: the row's connector, SSH (libssh) when it names none or
// the provider is unknown.
std::unique_ptr<RemoteConnector> make_connector(const std::string& provider);

// For test binaries only: adds a row (a test-only provider; tests/providers/). kInvalid when the
// name is taken. Production code never calls it: a provider there is a row in registry.cpp.
Status register_provider_for_tests(ProviderEntry entry);
// Removes a row register_provider_for_tests added, so other tests see the real table again.
// Offers pointing at its traits must be gone by then.
void unregister_provider_for_tests(std::string_view name);

}  // namespace burst
