// Billed time under a provider's BillingRule (burst/provider.h: each registry row carries its
// provider's rule, cited in providers/registry.cpp and docs/cost-model.md, "Billing"). The planner
// bills every pod through this, so a 61 s job on a per-minute cloud costs two minutes.
#pragma once

#include "burst/provider.h"

namespace burst {

// Seconds billed for a pod that exists `seconds`: rounded up to the rule's increment, at least
// its minimum. 0 stays 0.
double billed_seconds(const BillingRule& rule, double seconds);

}  // namespace burst
