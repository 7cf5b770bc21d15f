// make_plan: the plan at the spec's prices, and for a spec asking for spot pods, the spot plan
// priced with its risk against the on-demand one (plan/spot_risk.h; docs/cost-model.md).
#include "plan/spot_risk.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "plan/planner.h"

namespace burst {
namespace {

std::string money(double usd) {
  char b[32];
  std::snprintf(b, sizeof b, "$%.4f", usd);
  return b;
}

std::string secs(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f s", s);
  return b;
}

// Why no allowed offer carries a spot price: each provider's own reason, once.
std::string why_no_spot(const PlanInput& in) {
  std::set<std::string> said;
  std::string why;
  for (const Offer& o : in.gpu_offers) {
    const ProviderTraits& t = traits_of(o);
    if (o.spot_usd_per_hour && t.no_spot_why.empty()) continue;
    const std::string reason =
        t.no_spot_why.empty() ? "its offers carry no spot price" : t.no_spot_why;
    if (!said.insert(o.provider).second) continue;
    why += (why.empty() ? "" : "; ") + o.provider + ": " + reason;
  }
  return why.empty() ? "no offer carries a spot price" : why;
}

// The spot plan's risk: expected restarts and what each costs (header comment).
SpotRisk price_risk(const PipelineSpec& spec, const Plan& spot,
                    const std::vector<SpotSample>& history) {
  SpotRisk r;
  r.offered = true;
  r.provider = spot.gpu.provider;
  r.gpu = spot.gpu.gpu_type + " x" + std::to_string(std::max(1, spot.gpu.gpu_count));
  r.spot_usd_per_hour = spot.gpu.spot_usd_per_hour.value_or(spot.gpu.usd_per_hour);
  r.on_demand_usd_per_hour = spot.gpu.usd_per_hour;
  r.spot_usd = spot.estimate.usd;
  const ProviderTraits& t = traits_of(spot.gpu);
  r.rate_per_hour = t.spot_preemptions_per_hour;
  r.prior_source = t.spot_prior_source.empty() ? "no prior for this provider" : t.spot_prior_source;
  double hours = 0;
  int preempted = 0;
  for (const SpotSample& s : history)
    if (s.provider == spot.gpu.provider) {
      hours += s.pod_hours;
      preempted += s.preemptions;
    }
  if (hours > 0 || preempted > 0) {
    r.rate_per_hour =
        (r.rate_per_hour * kSpotPriorPodHours + preempted) / (kSpotPriorPodHours + hours);
    char b[160];
    std::snprintf(b, sizeof b, "updated with this store's %d preemption%s in %.2f spot pod-hours; ",
                  preempted, preempted == 1 ? "" : "s", hours);
    r.prior_source = b + r.prior_source;
  }
  const int workers = std::max(1, spot.estimate.workers);
  const double pod_hours = spot.estimate.billed_s / 3600.0 / workers;
  const double per_pod = r.rate_per_hour * pod_hours;
  r.restarts = per_pod * workers;
  // Lost work in progress: half an item per copy of the step when the items are known (finished
  // ones are kept), else half the run.
  const long items = spec.workload.items.value_or(0);
  const int copies = std::max(1, spot.layout.replicas);
  double lost = spot.estimate.run_s / 2;
  if (items > 0) {
    const double per_item = spot.estimate.run_s * copies * workers / static_cast<double>(items);
    lost = std::min(lost, per_item / 2);
  }
  r.restart_s = spot.estimate.cold_start_s + lost;
  // The pod that takes over downloads what the lost one did (Estimate::transfer_usd, all workers).
  r.restart_transfer_usd = spot.estimate.transfer_usd / workers;
  r.expected_usd = r.spot_usd + r.restarts * r.restart_s / 3600.0 * r.spot_usd_per_hour +
                   r.restarts * r.restart_transfer_usd;
  r.expected_s = spot.estimate.total_s + per_pod * r.restart_s;
  return r;
}

}  // namespace

Result<Plan> make_plan(const PipelineSpec& spec, const PlanInput& in) {
  if (!spec.resources.spot) return plan_at_prices(spec, in);
  PipelineSpec on_demand_spec = spec;
  on_demand_spec.resources.spot = false;
  auto on_demand = plan_at_prices(on_demand_spec, in);
  PlanInput spot_in = in;
  spot_in.gpu_offers.clear();
  // A spot price the driver cannot rent (an offline table's RunPod row) is no spot offer.
  for (const Offer& o : in.gpu_offers)
    if (o.spot_usd_per_hour && traits_of(o).no_spot_why.empty()) spot_in.gpu_offers.push_back(o);
  SpotRisk risk;
  if (spot_in.gpu_offers.empty()) {
    risk.why = "spot not offered (" + why_no_spot(in) + "); on-demand";
    if (!on_demand.ok()) return on_demand;
    on_demand->spot = risk;
    return on_demand;
  }
  auto spot = plan_at_prices(spec, spot_in);
  if (!spot.ok()) {
    if (!on_demand.ok()) return on_demand;
    risk.offered = true;
    risk.why = "no spot plan: " + spot.error().message + "; on-demand";
    on_demand->spot = risk;
    return on_demand;
  }
  risk = price_risk(spec, *spot, in.spot_history);
  risk.on_demand_usd = on_demand.ok() ? on_demand->estimate.usd : 0;
  const std::optional<double> deadline = spec.budget.deadline_seconds;
  const bool in_time =
      !deadline || *deadline <= 0 || risk.expected_s * (1 + kSpotDeadlineMargin) <= *deadline;
  const bool cheaper = !on_demand.ok() || risk.expected_usd < risk.on_demand_usd;
  risk.chosen = in_time && cheaper;
  if (!in_time)
    risk.why = "on-demand: spot's expected " + secs(risk.expected_s) + " plus a " +
               std::to_string(static_cast<int>(kSpotDeadlineMargin * 100)) +
               "% margin misses budget.deadline";
  else if (!cheaper)
    risk.why = "on-demand: spot's expected " + money(risk.expected_usd) + " is not below " +
               money(risk.on_demand_usd) + " on-demand";
  else
    risk.why = "spot: expected " + money(risk.expected_usd) + " against " +
               money(risk.on_demand_usd) + " on-demand, and the deadline holds with a " +
               std::to_string(static_cast<int>(kSpotDeadlineMargin * 100)) + "% margin";
  Plan out = risk.chosen || !on_demand.ok() ? std::move(*spot) : std::move(*on_demand);
  if (!risk.chosen && !on_demand.ok()) return on_demand;
  out.spot = risk;
  return out;
}

}  // namespace burst
