#include "cli/offers.h"

#include <algorithm>

#include "registry.h"

namespace burst {

Result<OfferSources> gather_offers(const PipelineSpec& spec, const std::string& provider_override,
                                   const Config& config, Clock& clock, bool offline_table) {
  OfferSources out;
  auto catalog = load_gpu_catalog(config.config_dir);
  if (!catalog.ok()) return catalog.error();
  out.catalog = std::make_shared<const std::vector<GpuSpec>>(std::move(*catalog));
  std::vector<std::string> names = spec.resources.providers;
  if (!provider_override.empty()) names = {provider_override};
  if (names.empty()) names = {"local"};
  std::vector<std::string> without_driver;
  for (const auto& name : names) {
    auto p = make_provider(name, config, clock);
    if (!p.ok()) {
      if (p.error().code == ErrorCode::kInvalid) return p.error();
      out.input.unusable.push_back(p.error().message);
      without_driver.push_back(name);
      continue;
    }
    for (bool gpu : {true, false}) {
      auto offers = (*p)->offers(gpu);
      if (!offers.ok()) {
        out.input.unusable.push_back(name + ": offers: " + offers.error().message);
        continue;
      }
      auto& into = gpu ? out.input.gpu_offers : out.input.cpu_offers;
      into.insert(into.end(), offers->begin(), offers->end());
    }
    out.input.providers.push_back(name);
    out.providers[name] = std::move(*p);
  }
  if (offline_table && !without_driver.empty()) {
    auto table = load_price_table(config.config_dir);
    if (!table.ok()) return table.error();
    out.price_table_as_of = table->as_of;
    for (const PriceEntry& e : table->entries) {
      if (std::find(without_driver.begin(), without_driver.end(), e.provider) ==
          without_driver.end())
        continue;
      const GpuSpec* gpu = find_gpu(*out.catalog, e.gpu);
      Offer o{e.provider,
              e.gpu,
              e.gpu_count,
              gpu ? std::optional<double>(gpu->vram_gb) : std::nullopt,
              e.usd_per_hour,
              e.spot_usd_per_hour,
              e.region,
              true,
              "offline table " + table->as_of};
      out.input.gpu_offers.push_back(o);
    }
    for (const auto& name : without_driver) out.input.providers.push_back(name);
  }
  out.input.catalog = out.catalog.get();
  return out;
}

}  // namespace burst
