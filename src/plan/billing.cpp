#include "plan/billing.h"

#include <algorithm>
#include <cmath>

namespace burst {

const BillingRule& billing_rule(const std::string& provider) {
  // Published rules (checked 2026-11-22; docs/cost-model.md, "Billing"):
  static const BillingRule kRunpod{
      1, 0, "second",
      "docs.runpod.io/accounts-billing/billing: all compute and storage charges are billed per "
      "second"};
  static const BillingRule kLambda{
      60, 0, "minute",
      "docs.lambda.ai/public-cloud/billing: on-demand instances bill in one-minute increments"};
  static const BillingRule kVast{
      1, 0, "second", "vast.ai/pricing: on-demand and interruptible, per-second billing"};
  static const BillingRule kLocal{1, 0, "second", "the local cloud costs nothing; per second"};
  // Unknown (e.g. offers from a file): per second, as the GPU clouds above mostly bill; a
  // provider with a coarser rule belongs in this table.
  static const BillingRule kUnknown{1, 0, "second", "assumed for a provider with no known rule"};
  if (provider == "runpod") return kRunpod;
  if (provider == "lambda") return kLambda;
  if (provider == "vast") return kVast;
  if (provider == "local") return kLocal;
  return kUnknown;
}

double billed_seconds(const BillingRule& rule, double seconds) {
  if (!(seconds > 0)) return 0;
  const double inc = rule.increment_s > 0 ? rule.increment_s : 1;
  // Tolerate float noise: 120.0000000001 s is two minutes, not three.
  const double units = std::ceil(seconds / inc - 1e-9);
  return std::max(units * inc, rule.minimum_s);
}

}  // namespace burst
