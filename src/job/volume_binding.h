// Finding a spec's volume again (issue 17). The store maps (provider, spec volume, region) to the
// provider's volume id (VolumeRecord), because not every provider's list returns the name burst
// gave (Vast's does not). A run looks the mapping up first and verifies the id still exists through
// list_volumes; only when there is none (or it is gone) does it ask the provider to create one, and
// the mapping row is written "creating" before that call and "ready" with the id right after it
// (record-before-rely, as pod rows are). So one spec volume in one region is one provider volume.
#pragma once

#include <optional>
#include <string>

#include "burst/clock.h"
#include "burst/provider.h"
#include "burst/result.h"
#include "burst/store.h"

namespace burst {

// The provider volume for spec volume `name` in `region`, created when none is recorded or the
// recorded one is gone. Volume::note says when a new (empty) volume replaces a recorded one.
Result<Volume> bind_volume(Store& store, Provider& provider, Clock& clock, const std::string& name,
                           int size_gb, const std::string& region);

// Look-up only (reattach): the recorded volume of `name` in `region` if it still exists, else,
// where the provider lists names, the listed volume of that name; nullopt when none. Never creates.
Result<std::optional<Volume>> find_bound_volume(Store& store, Provider& provider,
                                                const std::string& name, const std::string& region);

}  // namespace burst
