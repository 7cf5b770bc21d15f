// How each provider rounds the time it bills: per second, per minute or per hour, with any
// minimum charge. The planner bills every pod through this, so a 61 s job on a per-minute cloud
// costs two minutes. Sources are cited in billing.cpp and docs/cost-model.md ("Billing").
#pragma once

#include <string>

namespace burst {

struct BillingRule {
  double increment_s = 1;  // billed time is rounded up to a multiple of this
  double minimum_s = 0;    // at least this much is billed per pod
  std::string unit;        // "second" | "minute" | "hour", for messages
  std::string source;      // where the rule is published
};

// The rule for a provider name; an unknown provider is assumed to bill per second (documented).
const BillingRule& billing_rule(const std::string& provider);

// Seconds billed for a pod that exists `seconds`: rounded up to the rule's increment, at least
// its minimum. 0 stays 0.
double billed_seconds(const BillingRule& rule, double seconds);

}  // namespace burst
