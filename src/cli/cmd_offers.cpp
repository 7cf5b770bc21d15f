// `burst offers`: what can be rented now, merged across providers and cheapest first. Providers
// with an API key are asked live (concurrently, gather_offers); the others are priced from the
// dated offline table, and the output says which was which. Creates nothing.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/offers.h"

namespace burst {
namespace {

// The clouds `burst offers` asks by default (the local provider is not a market).
const std::vector<std::string> kClouds = {"runpod", "lambda", "vast"};

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

nlohmann::json offer_json(const Offer& o) {
  return {{"provider", o.provider},
          {"gpu_type", o.gpu_type},
          {"gpu_count", o.gpu_count},
          {"vram_gb", o.vram_gb ? nlohmann::json(*o.vram_gb) : nlohmann::json(nullptr)},
          {"usd_per_hour", o.usd_per_hour},
          {"spot_usd_per_hour",
           o.spot_usd_per_hour ? nlohmann::json(*o.spot_usd_per_hour) : nlohmann::json(nullptr)},
          {"region", o.region},
          {"available", o.available},
          {"price_source", o.price_source}};
}

}  // namespace

int cmd_offers(const OffersArgs& args) {
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  PipelineSpec spec;
  spec.resources.providers = kClouds;
  SystemClock clock;
  auto sources = gather_offers(spec, args.provider, *config, clock, /*offline_table=*/true);
  if (!sources.ok()) return fail(kExitUsage, sources.error().message);

  std::vector<Offer> offers;
  const std::string want = upper(args.gpu);
  for (const Offer& o : sources->input.gpu_offers)
    if (want.empty() || upper(o.gpu_type) == want) offers.push_back(o);
  std::stable_sort(offers.begin(), offers.end(), [](const Offer& a, const Offer& b) {
    if (a.available != b.available) return a.available;  // rentable now first
    return a.usd_per_hour < b.usd_per_hour;
  });
  const std::string as_of = sources->price_table_as_of;

  if (args.json) {
    nlohmann::json out = {{"live", sources->live_providers},
                          {"offline_table", sources->table_providers},
                          {"price_table_as_of", as_of},
                          {"notes", sources->input.unusable},
                          {"offers", nlohmann::json::array()}};
    for (const Offer& o : offers) out["offers"].push_back(offer_json(o));
    std::cout << out.dump(2) << std::endl;
    return kExitOk;
  }
  std::cout << "live: " << joined(sources->live_providers) << "\n";
  if (!sources->table_providers.empty())
    std::cout << "offline table (" << as_of << "): " << joined(sources->table_providers) << "\n";
  for (const auto& why : sources->input.unusable) std::cout << "  note: " << why << "\n";
  std::printf("%-8s %-16s %3s %6s %9s %9s %-5s %s\n", "PROVIDER", "GPU", "N", "VRAM", "$/H",
              "SPOT $/H", "AVAIL", "REGION");
  for (const Offer& o : offers) {
    char vram[16] = "-", spot[16] = "-";
    if (o.vram_gb) std::snprintf(vram, sizeof vram, "%.0f", *o.vram_gb);
    if (o.spot_usd_per_hour) std::snprintf(spot, sizeof spot, "%.3f", *o.spot_usd_per_hour);
    std::printf("%-8s %-16s %3d %6s %9.3f %9s %-5s %s%s\n", o.provider.c_str(), o.gpu_type.c_str(),
                o.gpu_count, vram, o.usd_per_hour, spot, o.available ? "yes" : "no",
                o.region.c_str(), o.price_source == "live offer" ? "" : "  [table]");
  }
  if (offers.empty())
    std::cout << "no offers" << (args.gpu.empty() ? "" : " for " + args.gpu) << "\n";
  return kExitOk;
}

}  // namespace burst
