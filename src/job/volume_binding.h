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
Result<Volume> bind_volume(PodStore& store, Provider& provider, Clock& clock,
                           const std::string& name, int size_gb, const std::string& region);

// Look-up only (reattach): the recorded volume of `name` in `region` if it still exists, else,
// where the provider lists names, the listed volume of that name; nullopt when none. Never creates.
Result<std::optional<Volume>> find_bound_volume(PodStore& store, Provider& provider,
                                                const std::string& name, const std::string& region);

// The name of worker `index`'s own volume: "<name>-w<index>" (place_worker).
std::string worker_volume_name(const std::string& name, int index);

// Where one worker of a wide job runs when the provider's volumes live on one machine
// (ProviderTraits::volumes_machine_local; Vast). Beside the job's volume while its machine
// (`volume_region`) has a free offer like `like` (same GPU type and count): every such worker
// shares the one volume (each in its own code dir), as on a network volume. Otherwise the worker
// gets a volume of its own, `own_volume` (worker_volume_name), on a machine with a free offer:
// the machine its recorded own volume is on when that has one (a later run finds it warm), else
// the cheapest. The live offers decide; kNoCapacity when no machine has one.
struct WorkerPlacement {
  bool own_volume = false;  // false: beside the job's volume
  Offer offer;              // own_volume: the offer whose machine (region) gets it and the pod
};
Result<WorkerPlacement> place_worker(PodStore& store, Provider& provider, const Offer& like,
                                     const std::string& volume_region,
                                     const std::string& own_volume);

}  // namespace burst
