#include "app/offers.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "json/offers_json.h"
#include "registry.h"
#include "util/small_file.h"

namespace burst {

void fetch_all_offers(std::vector<FetchedOffers>* all) {
  std::vector<std::thread> threads;
  for (auto& f : *all) {
    if (!f.provider) continue;
    threads.emplace_back([&f] {
      f.gpu = f.provider->offers(true);
      f.cpu = f.provider->offers(false);
    });
  }
  for (auto& t : threads) t.join();
}

bool has_api_key(const Config& config, const std::string& provider) {
  auto it = config.clouds.find(provider);
  return it == config.clouds.end() || !it->second.api_key.empty();  // local needs none
}

namespace {

std::string key_variable(const std::string& provider) {
  if (const ProviderTraits* t = find_provider_traits(provider); t && !t->api_key_env.empty())
    return t->api_key_env;
  std::string var = provider;
  for (auto& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return var + "_API_KEY";
}

}  // namespace

Error api_key_refused(const std::string& provider, const Error& why) {
  std::string status;
  if (size_t at = why.message.find("HTTP "); at != std::string::npos)
    status = " (" + why.message.substr(at, 8) + ")";
  return make_error(ErrorCode::kAuth,
                    provider + ": the API key was refused" + status + ": " + why.message +
                        "; set " + key_variable(provider) + " (or providers." + provider +
                        ".api_key in config.yaml) to a valid key; `burst check` tests the set-up");
}

Error no_api_key(const std::string& provider) {
  return make_error(ErrorCode::kAuth,
                    provider + ": no API key is configured; set " + key_variable(provider) +
                        " (or providers." + provider +
                        ".api_key in config.yaml); `burst check` tests the set-up");
}

Result<OfferSources> gather_offers(const PipelineSpec& spec, const std::string& provider_override,
                                   const Config& config, Clock& clock, bool offline_table) {
  OfferSources out;
  auto catalog = load_gpu_catalog(config.config_dir);
  if (!catalog.ok()) return catalog.error();
  out.catalog = std::make_shared<const std::vector<GpuSpec>>(std::move(*catalog));
  std::vector<std::string> names = spec.resources.providers;
  if (!provider_override.empty()) names = {provider_override};
  if (names.empty()) names = {default_provider_name()};
  std::vector<std::string> without_driver;
  // Each provider's offers are fetched on its own thread (each driver has its own HTTP client),
  // so the slowest API, not their sum, sets the wait; results are merged in `names` order.
  std::vector<FetchedOffers> fetched(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    auto p = make_provider(names[i], config, clock);
    if (!p.ok()) {
      if (p.error().code == ErrorCode::kInvalid) return p.error();
      fetched[i].made = p.error();
      continue;
    }
    fetched[i].provider = std::move(*p);
  }
  fetch_all_offers(&fetched);
  size_t live_gpu_offers = 0;  // one allocation for the merge below
  for (const auto& f : fetched)
    if (f.provider && f.gpu.ok()) live_gpu_offers += f.gpu->size();
  out.input.gpu_offers.reserve(live_gpu_offers);
  std::vector<std::string> no_key;  // clouds with no API key configured
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    FetchedOffers& f = fetched[i];
    if (!f.provider) {
      out.input.unusable.push_back(f.made.message);
      without_driver.push_back(name);
      continue;
    }
    const Error* refused = nullptr;
    for (const auto* r : {&f.gpu, &f.cpu})
      if (!r->ok() && r->error().code == ErrorCode::kAuth && !refused) refused = &r->error();
    if (refused) {
      // A key that is configured but refused is an error the user must fix: never priced from
      // the table as if all were well. No key at all: the table (planning) or skipped (run).
      if (has_api_key(config, name)) return api_key_refused(name, *refused);
      no_key.push_back(name);
      out.input.unusable.push_back(name + ": offers: " + refused->message);
      if (offline_table) without_driver.push_back(name);
      continue;
    }
    bool asked = true;
    for (bool gpu : {true, false}) {
      auto& offers = gpu ? f.gpu : f.cpu;
      if (!offers.ok()) {
        out.input.unusable.push_back(name + ": offers: " + offers.error().message);
        asked = asked && !gpu;
        continue;
      }
      auto& into = gpu ? out.input.gpu_offers : out.input.cpu_offers;
      into.insert(into.end(), std::make_move_iterator(offers->begin()),
                  std::make_move_iterator(offers->end()));
    }
    if (!asked && offline_table) {
      // Planning only: a driver that cannot list offers falls back to the table.
      without_driver.push_back(name);
      continue;
    }
    out.input.providers.push_back(name);
    out.live_providers.push_back(name);
    out.providers[name] = std::move(f.provider);
  }
  if (!offline_table && out.providers.empty() && !no_key.empty()) return no_api_key(no_key.front());
  if (offline_table && !without_driver.empty()) {
    auto table = load_price_table(config.config_dir, offline_price_provider_names());
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
    out.table_providers = without_driver;
    out.table_note = "offline prices from config/prices.yaml (dated " + table->as_of + ")";
    if (!no_key.empty()) {
      std::string list;
      for (const auto& n : no_key) list += (list.empty() ? "" : ", ") + n;
      out.table_note += ": no API key for " + list;
    }
  }
  attach_traits(&out.input.gpu_offers);
  attach_traits(&out.input.cpu_offers);
  out.input.catalog = out.catalog.get();
  return out;
}

Result<OfferSources> offers_from_file(const std::string& path, const std::string& provider_override,
                                      const Config& config) {
  // An offers file of 10,000 offers is about a megabyte; 256 MiB is far beyond any real one.
  auto text = read_small_file(path, size_t{256} << 20);
  if (!text.ok()) return text.error();
  auto offers = parse_offers_json(*text, path);
  if (!offers.ok()) return offers.error();
  OfferSources out;
  auto catalog = load_gpu_catalog(config.config_dir);
  if (!catalog.ok()) return catalog.error();
  out.catalog = std::make_shared<const std::vector<GpuSpec>>(std::move(*catalog));
  // 10,000 offers name a few dozen GPU types: look each name up once.
  std::unordered_map<std::string_view, const GpuSpec*> gpus;
  for (Offer& o : *offers) {
    auto [it, fresh] = gpus.try_emplace(o.gpu_type, nullptr);
    if (fresh) it->second = find_gpu(*out.catalog, o.gpu_type);
    if (const GpuSpec* gpu = it->second) o.vram_gb = gpu->vram_gb;
    if (provider_override.empty() &&
        (out.input.providers.empty() || out.input.providers.back() != o.provider) &&
        std::find(out.input.providers.begin(), out.input.providers.end(), o.provider) ==
            out.input.providers.end())
      out.input.providers.push_back(o.provider);
  }
  if (!provider_override.empty()) out.input.providers = {provider_override};
  out.input.gpu_offers = std::move(*offers);
  attach_traits(&out.input.gpu_offers);
  out.input.catalog = out.catalog.get();
  return out;
}

}  // namespace burst
