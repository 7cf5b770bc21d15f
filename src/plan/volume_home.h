// Where the spec's volume is, and what a new one would be (issue 32: "volumes you can see and
// keep"). The store records each provider volume burst made, per provider and region
// (job/volume_binding.h); those are the volume's homes. The planner prefers an offer at a home
// while its estimate is at most kVolumeHomeTolerance above the cheapest offer's, so a small price
// move does not leave the volume (and its cached weights) behind and rent a second one. When the
// chosen offer is elsewhere, the plan says so before anything is created: a new volume, where,
// its size after the provider's minimum (ProviderTraits::min_volume_gb) and what it costs a month.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burst/provider.h"
#include "burst/spec.h"

namespace burst {

// An offer at a home may cost this much more (as a fraction of the cheapest plan's estimate) and
// still be chosen. docs/cost-model.md, "Volumes".
inline constexpr double kVolumeHomeTolerance = 0.15;

// A volume of the spec's name the store records as made (state "ready", with the provider's id).
struct VolumeHome {
  std::string provider;
  std::string region;
  int size_gb = 0;
  double usd_per_gb_month = 0;  // 0 when unknown
};

// The home `offer`'s pod would mount, or null.
const VolumeHome* volume_home_at(const std::vector<VolumeHome>& homes, const Offer& offer);

// The spec's volume for the chosen offer.
struct VolumePlacement {
  bool exists = false;  // at a home: no volume is created
  std::string provider;
  std::string region;
  // The size the provider keeps: the home's, or max(asked, ProviderTraits::min_volume_gb); 0 for
  // a provider whose volumes have no size (billed by what they hold).
  int size_gb = 0;
  int asked_gb = 0;             // the spec's volume.size_gb
  double usd_per_gb_month = 0;  // 0 when unknown
  // Chosen at its home over a cheaper offer (within kVolumeHomeTolerance): that offer and the
  // two estimates; unset when the chosen offer is also the cheapest.
  std::optional<Offer> cheaper;
  double cheaper_usd = 0, chosen_usd = 0;
  // Other homes of the volume, "provider region", that this plan does not use (kept, not deleted).
  std::vector<std::string> left_elsewhere;
  double usd_per_month() const { return size_gb * usd_per_gb_month; }
};

// The placement of `spec`'s volume when the plan chose `chosen`.
VolumePlacement place_volume(const PipelineSpec& spec, const Offer& chosen,
                             const std::vector<VolumeHome>& homes);

// The plan's line: "  volume home: ..." for an existing volume, "  new volume: ..." otherwise.
std::string volume_placement_line(const std::string& volume_name, const VolumePlacement& p);

}  // namespace burst
