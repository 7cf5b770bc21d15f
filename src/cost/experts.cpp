// A mixture of experts' routed experts: what a decode step reads of them (experts.h).
#include "cost/experts.h"

#include <algorithm>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst::cost {

ReadShares read_fraction(const Workload& w, double active, long batch) {
  auto total = param_count(w);
  if (!total.ok() || !(*total > 0)) return {};
  const double at_one = std::min(1.0, active / *total);
  const double e = static_cast<double>(w.experts.value_or(0));
  const double k = static_cast<double>(w.experts_per_token.value_or(0));
  if (!(e > k) || !(k > 0) || at_one >= 1.0) return {at_one, 0};
  const double expert = (*total - active) / (e - k);  // one expert's parameters, every layer
  const double shared = *total - e * expert;
  if (shared < 0) return {at_one, 0};  // active_params_b too small for k of E experts: no split
  const double touched = experts_touched(e, k, batch);
  return {shared / *total, std::min(1.0, touched * expert / *total)};
}

}  // namespace burst::cost
