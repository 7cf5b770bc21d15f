#include "plan/billing.h"

#include <algorithm>
#include <cmath>

namespace burst {

double billed_seconds(const BillingRule& rule, double seconds) {
  if (!(seconds > 0)) return 0;
  const double inc = rule.increment_s > 0 ? rule.increment_s : 1;
  // Tolerate float noise: 120.0000000001 s is two minutes, not three.
  const double units = std::ceil(seconds / inc - 1e-9);
  return std::max(units * inc, rule.minimum_s);
}

}  // namespace burst
