// Spot (interruptible) pods priced with their risk (issue 33, item 3; docs/cost-model.md, "Spot
// pods: priced risk"). A spec with `resources.spot: true` is planned twice: on-demand, and on the
// offers that carry a spot price (Offer::spot_usd_per_hour). The spot plan's expected cost adds
// what preemptions cost:
//
//   restarts per pod  = rate x the pod's planned hours   (rate: the provider's cited prior,
//                                                         ProviderTraits::spot_preemptions_per_hour)
//   each restart      = cold start + lost work in progress (half an item per copy of the step when
//                       the items are known, since finished items are kept by their done records;
//                       else half the run)
//   expected $        = spot $/h x (billed time + restarts x each restart), all pods
//                       + restarts x one worker's downloads where the host bills them per GB
//                       (Vast's inet_down_cost: the pod that takes over fetches them again)
//   expected time     = the plan's time + restarts per pod x each restart
//
// Spot is chosen only when its expected cost is below the on-demand plan's and its expected time,
// grown by kSpotDeadlineMargin, still meets budget.deadline. `burst plan` shows both prices, the
// expected cost and the prior (plan_summary.h). Where no allowed provider offers spot, the reason
// is the provider's (ProviderTraits::no_spot_why: RunPod's REST v2 has no interruptible pods).
#pragma once

#include <string>

namespace burst {

// A spot plan must meet the deadline with this much to spare (expected time x 1.25 <= deadline):
// a preemption is a random event, and the expectation hides the unlucky run that is preempted
// twice. 25% is about one more restart of a cold start plus a lost item on the plans burst makes.
inline constexpr double kSpotDeadlineMargin = 0.25;

// What marks a spot pod and a preemption in the store, so the report reads them back from rows
// (report/job_report.cpp): a spot pod's price_source ends with kSpotPriceMark ("live offer, spot
// bid"), and the phase row that ended with the preemption carries kPreemptionMarker followed by
// "<pod id> (<the provider's words>); <n> items kept, <m> run again on <spot|on-demand>".
inline constexpr const char* kSpotPriceMark = ", spot bid";
inline constexpr const char* kPreemptionMarker = "preempted by the provider: ";
// The wait-for-ssh row of the pod that took over: "<n> items kept, <m> run again".
inline constexpr const char* kResumeMarker = "resumed after a preemption: ";

// The store's own spot history for one provider (app/plan_with_history.cpp reads it from recent
// jobs): the hours its spot GPU pods lived and the preemptions their rows recorded. The prior
// counts as kSpotPriorPodHours of observation, so the rate the plan uses is
//   (prior x kSpotPriorPodHours + preemptions) / (kSpotPriorPodHours + pod hours)
// (a Gamma-Poisson update): a few minutes of history barely move it, a few hundred pod-hours
// replace it.
struct SpotSample {
  std::string provider;
  double pod_hours = 0;
  int preemptions = 0;
};
inline constexpr double kSpotPriorPodHours = 4;

// What the planner decided about spot for a spec that asked for it (Plan::spot).
struct SpotRisk {
  bool offered = false;               // some allowed offer carries a spot price
  bool chosen = false;                // the plan rents spot pods
  std::string provider;               // of the spot plan's offer ("" when none)
  std::string gpu;                    // "RTX_4090 x1"
  double spot_usd_per_hour = 0;       // one pod, the spot plan's offer
  double on_demand_usd_per_hour = 0;  // one pod, the same offer on-demand
  double spot_usd = 0;                // the spot plan's estimate, no preemption
  double expected_usd = 0;            // with the expected restarts
  double on_demand_usd = 0;           // the on-demand plan's estimate
  double expected_s = 0;              // the spot plan's time with the expected restarts
  double restarts = 0;                // expected preemptions, all pods
  double restart_s = 0;               // each: cold start + lost work in progress
  double restart_transfer_usd = 0;    // each: one worker's downloads again, billed per GB (Vast)
  double rate_per_hour = 0;           // the prior, with the store's history when there is one
  std::string prior_source;
  std::string why;  // one line: why spot was chosen or not
};

}  // namespace burst
