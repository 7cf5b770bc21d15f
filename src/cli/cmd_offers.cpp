// `burst offers`: what can be rented now, merged across providers and cheapest first. Providers
// with an API key are asked live (concurrently, gather_offers); the others are priced from the
// dated offline table, and the output says which was which. Creates nothing.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "app/offers.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/run_flags.h"
#include "cli/table.h"
#include "registry.h"

namespace burst {
namespace {

bool same_ignoring_case(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) ==
                  std::toupper(static_cast<unsigned char>(y));
         });
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

// JSON text written directly: a DOM of 6,000 offers cost more than fetching them
// (bench/README.md, "burst offers").
void put_string(std::string* out, const std::string& s) {
  *out += '"';
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += c;
    } else if (u < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", u);
      *out += esc;
    } else {
      *out += c;
    }
  }
  *out += '"';
}

void put_number(std::string* out, double v) {
  if (!std::isfinite(v)) {
    *out += "null";
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest text that reads back as v
  out->append(buf, r.ptr);
}

void put_strings(std::string* out, const std::vector<std::string>& v) {
  *out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) *out += ", ";
    put_string(out, v[i]);
  }
  *out += ']';
}

void put_offer(std::string* out, const Offer& o) {
  *out += "{\"provider\": ";
  put_string(out, o.provider);
  *out += ", \"gpu_type\": ";
  put_string(out, o.gpu_type);
  *out += ", \"gpu_count\": ";
  *out += std::to_string(o.gpu_count);
  *out += ", \"vram_gb\": ";
  if (o.vram_gb)
    put_number(out, *o.vram_gb);
  else
    *out += "null";
  *out += ", \"usd_per_hour\": ";
  put_number(out, o.usd_per_hour);
  *out += ", \"spot_usd_per_hour\": ";
  if (o.spot_usd_per_hour)
    put_number(out, *o.spot_usd_per_hour);
  else
    *out += "null";
  // What the host bills per GB of traffic (Vast's inet_down_cost / inet_up_cost), 0 when none.
  *out += ", \"download_usd_per_gb\": ";
  put_number(out, o.download_usd_per_gb);
  *out += ", \"upload_usd_per_gb\": ";
  put_number(out, o.upload_usd_per_gb);
  *out += ", \"region\": ";
  put_string(out, o.region);
  *out += o.available ? ", \"available\": true" : ", \"available\": false";
  *out += ", \"price_source\": ";
  put_string(out, o.price_source);
  *out += '}';
}

}  // namespace

int cmd_offers(const OffersArgs& args) {
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  PipelineSpec spec;
  spec.resources.providers = cloud_provider_names();  // the local provider is not a market
  SystemClock clock;
  auto provider = apply_provider_flag(&spec, args.providers);
  if (!provider.ok()) return fail(provider.error());
  auto sources = gather_offers(spec, *provider, *config, clock, /*offline_table=*/true);
  if (!sources.ok())
    return fail(sources.error().code == ErrorCode::kAuth ? kExitConfig : kExitUsage,
                sources.error().message);

  // Pointers, so the merge sorts without copying offers.
  std::vector<const Offer*> offers;
  offers.reserve(sources->input.gpu_offers.size());
  for (const Offer& o : sources->input.gpu_offers)
    if (args.gpu.empty() || same_ignoring_case(o.gpu_type, args.gpu)) offers.push_back(&o);
  std::stable_sort(offers.begin(), offers.end(), [](const Offer* a, const Offer* b) {
    if (a->available != b->available) return a->available;  // rentable now first
    return a->usd_per_hour < b->usd_per_hour;
  });
  const std::string as_of = sources->price_table_as_of;

  if (args.json) {
    std::string out;
    out.reserve(256 + offers.size() * 200);
    out += "{\n  \"live\": ";
    put_strings(&out, sources->live_providers);
    out += ",\n  \"offline_table\": ";
    put_strings(&out, sources->table_providers);
    out += ",\n  \"price_table_as_of\": ";
    put_string(&out, as_of);
    out += ",\n  \"offline_note\": ";
    put_string(&out, sources->table_note);
    out += ",\n  \"notes\": ";
    put_strings(&out, sources->input.unusable);
    out += ",\n  \"offers\": [";
    for (size_t i = 0; i < offers.size(); ++i) {
      out += i ? ",\n    " : "\n    ";
      put_offer(&out, *offers[i]);
    }
    out += offers.empty() ? "]\n}\n" : "\n  ]\n}\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kExitOk;
  }
  std::cout << "live: " << joined(sources->live_providers) << "\n";
  if (!sources->table_providers.empty())
    std::cout << sources->table_note << " [table]: " << joined(sources->table_providers) << "\n";
  for (const auto& why : sources->input.unusable) std::cout << "  note: " << why << "\n";
  // A host that bills its traffic per GB (Vast) is dearer than its $/H: a column for it, when
  // some offer listed has such a charge.
  const auto bills_traffic = [](const Offer& o) {
    return o.download_usd_per_gb > 0 || o.upload_usd_per_gb > 0;
  };
  const bool traffic =
      std::any_of(offers.begin(), offers.end(), [&](const Offer* o) { return bills_traffic(*o); });
  std::vector<Table::Column> columns = {{"PROVIDER"},           {"GPU"},
                                        {"N", Table::kRight},   {"VRAM", Table::kRight},
                                        {"$/H", Table::kRight}, {"SPOT $/H", Table::kRight}};
  if (traffic) columns.push_back({"$/GB IN/OUT", Table::kRight});
  columns.push_back({"AVAIL"});
  columns.push_back({"REGION"});
  Table table(columns);
  for (const Offer* p : offers) {
    const Offer& o = *p;
    char vram[16] = "-", spot[16] = "-", price[16], per_gb[40] = "-";
    if (o.vram_gb) std::snprintf(vram, sizeof vram, "%.0f", *o.vram_gb);
    if (o.spot_usd_per_hour) std::snprintf(spot, sizeof spot, "%.3f", *o.spot_usd_per_hour);
    std::snprintf(price, sizeof price, "%.3f", o.usd_per_hour);
    if (bills_traffic(o))
      std::snprintf(per_gb, sizeof per_gb, "%.3f/%.3f", o.download_usd_per_gb, o.upload_usd_per_gb);
    // A table price is no claim about what is rentable now.
    const bool live = o.price_source == "live offer";
    std::vector<std::string> row = {o.provider, o.gpu_type, std::to_string(o.gpu_count),
                                    vram,       price,      spot};
    if (traffic) row.push_back(per_gb);
    row.push_back(!live ? "?" : o.available ? "yes" : "no");
    row.push_back(o.region + (live ? "" : "  [table]"));
    table.add(row);
  }
  if (offers.empty())
    return fail(kExitNotFound, "no offers" + (args.gpu.empty() ? "" : " for " + args.gpu));
  std::cout << table.render();
  return kExitOk;
}

}  // namespace burst
