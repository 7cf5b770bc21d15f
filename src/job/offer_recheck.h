// Right before the GPU pod is created, the chosen live offer is looked up again: markets move
// (a Vast machine gets rented, a RunPod data centre runs dry) between `burst plan` and the create.
// If it vanished, the job falls over to the next-best planned candidate of the same provider that
// is still offered, and says why; the phase detail and the report carry that line.
#pragma once

#include <string>

#include "burst/provider.h"
#include "plan/planner.h"

namespace burst {

// Updates plan->gpu (and the estimate, by the two candidates' difference, when they have the same
// width) when the chosen offer is gone and another planned one is still offered, and
// sets *note to one line saying what happened ("" when nothing changed). Offers not from a live
// API (local, offline table) are not re-checked. If the offers cannot be read, the plan stands
// (the create itself will say what is wrong) and *note says the re-check failed. kNoCapacity
// when the chosen offer and every other planned one of this provider are gone.
Status recheck_chosen_offer(Provider& provider, Plan* plan, std::string* note);

}  // namespace burst
