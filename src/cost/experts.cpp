// A mixture of experts' routed experts: what a decode step reads of them (experts.h).
#include "cost/experts.h"

#include <algorithm>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst::cost {
namespace {

// One expert's parameters (every layer) and the shared ones, from the total, the active count and
// E and k; nothing when the workload names no valid split.
struct Split {
  double e = 0, k = 0, expert = 0, shared = 0, total = 0;
};
bool split_of(const Workload& w, double active, Split* out) {
  auto total = param_count(w);
  if (!total.ok() || !(*total > 0)) return false;
  const double e = static_cast<double>(w.experts.value_or(0));
  const double k = static_cast<double>(w.experts_per_token.value_or(0));
  if (!(e > k) || !(k > 0) || active >= *total) return false;
  const double expert = (*total - active) / (e - k);
  const double shared = *total - e * expert;
  if (shared < 0) return false;  // active_params_b too small for k of E experts: no split
  *out = {e, k, expert, shared, *total};
  return true;
}

}  // namespace

double ReadShares::total() const { return std::min(1.0, shared + experts); }

ReadShares read_fraction(const Workload& w, double active, long batch) {
  auto total = param_count(w);
  if (!total.ok() || !(*total > 0)) return {};
  const double at_one = std::min(1.0, active / *total);
  Split s;
  if (!split_of(w, active, &s)) return {at_one, 0};
  const double touched = experts_touched(s.e, s.k, batch);
  return {s.shared / s.total, std::min(1.0, touched * s.expert / s.total)};
}

}  // namespace burst::cost
