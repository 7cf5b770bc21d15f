#include "plan/volume_home.h"

#include <algorithm>
#include <cstdio>

namespace burst {
namespace {

std::string home_money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", usd);
  return buf;
}

std::string where(const std::string& provider, const std::string& region) {
  return provider + (region.empty() ? "" : " in " + region);
}

}  // namespace

const VolumeHome* volume_home_at(const std::vector<VolumeHome>& homes, const Offer& offer) {
  for (const VolumeHome& h : homes)
    if (h.provider == offer.provider && h.region == offer.region) return &h;
  return nullptr;
}

VolumePlacement place_volume(const PipelineSpec& spec, const Offer& chosen,
                             const std::vector<VolumeHome>& homes) {
  const ProviderTraits& t = traits_of(chosen);
  VolumePlacement p;
  p.provider = chosen.provider;
  p.region = chosen.region;
  p.asked_gb = spec.volume.size_gb;
  p.usd_per_gb_month = chosen.volume_usd_per_gb_month > 0 ? chosen.volume_usd_per_gb_month
                                                          : t.volume_usd_per_gb_month;
  if (const VolumeHome* h = volume_home_at(homes, chosen)) {
    p.exists = true;
    p.size_gb = h->size_gb;
    if (h->usd_per_gb_month > 0) p.usd_per_gb_month = h->usd_per_gb_month;
  } else {
    p.size_gb = t.min_volume_gb == 0 ? 0 : std::max(spec.volume.size_gb, t.min_volume_gb);
  }
  for (const VolumeHome& h : homes)
    if (!(h.provider == chosen.provider && h.region == chosen.region))
      p.left_elsewhere.push_back(where(h.provider, h.region));
  return p;
}

std::string volume_placement_line(const std::string& volume_name, const VolumePlacement& p) {
  const std::string cost =
      p.usd_per_gb_month > 0
          ? (p.size_gb > 0 ? home_money(p.usd_per_month()) + "/month"
                           : home_money(p.usd_per_gb_month) + "/GB-month of what it holds")
          : "storage price unknown";
  std::string line;
  if (p.exists) {
    line = "  volume home: " + volume_name + " is on " + where(p.provider, p.region) +
           " already (" + (p.size_gb > 0 ? std::to_string(p.size_gb) + " GB, " : "") + cost +
           "); no new volume";
    if (p.cheaper) {
      char pct[16];
      std::snprintf(pct, sizeof pct, "%.0f%%", 100 * (p.chosen_usd / p.cheaper_usd - 1));
      line += "; chosen over " + where(p.cheaper->provider, p.cheaper->region) + " (estimate " +
              home_money(p.cheaper_usd) + " vs " + home_money(p.chosen_usd) + ", " + pct +
              " more, within the " + std::to_string(static_cast<int>(kVolumeHomeTolerance * 100)) +
              "% kept for a volume's home)";
    }
  } else {
    line = "  new volume: " + volume_name + " will be created on " + where(p.provider, p.region) +
           ", ";
    if (p.size_gb == 0)
      line += "no fixed size, " + cost;
    else
      line += std::to_string(p.size_gb) + " GB" +
              (p.size_gb != p.asked_gb
                   ? " (" + std::to_string(p.asked_gb) + " GB asked; " + p.provider +
                         "'s minimum is " + std::to_string(p.size_gb) + " GB)"
                   : "") +
              ", " + cost + " while it exists";
    line += "; it starts empty";
  }
  if (!p.left_elsewhere.empty()) {
    line += "; " + volume_name + " on ";
    for (size_t i = 0; i < p.left_elsewhere.size(); ++i)
      line += (i ? ", " : "") + p.left_elsewhere[i];
    line += " is kept and not used by this run (`burst volumes` lists it)";
  }
  return line;
}

}  // namespace burst
