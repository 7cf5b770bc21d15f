#include "job/offer_recheck.h"

#include <cstdio>

namespace burst {
namespace {

bool same_offer(const Offer& a, const Offer& b) {
  return a.provider == b.provider && a.gpu_type == b.gpu_type && a.gpu_count == b.gpu_count &&
         a.region == b.region;
}

const Offer* still_offered(const std::vector<Offer>& live, const Offer& want) {
  for (const Offer& o : live)
    if (o.available && same_offer(o, want)) return &o;
  return nullptr;
}

std::string describe(const Offer& o) {
  char usd[32];
  std::snprintf(usd, sizeof usd, "$%.3f/h", o.usd_per_hour);
  return o.provider + " " + o.gpu_type + " x" + std::to_string(o.gpu_count) +
         (o.region.empty() ? "" : " in " + o.region) + " at " + usd;
}

}  // namespace

Status recheck_chosen_offer(Provider& provider, Plan* plan, std::string* note) {
  note->clear();
  if (plan->gpu.price_source != "live offer" || plan->gpu.provider != provider.name())
    return Status::Ok();
  auto live = provider.offers(true);
  if (!live.ok()) {
    *note = "could not re-check the offer before create (" + live.error().message + ")";
    return Status::Ok();
  }
  if (const Offer* now = still_offered(*live, plan->gpu)) {
    plan->gpu.usd_per_hour = now->usd_per_hour;  // the price the create will be billed at
    return Status::Ok();
  }
  const Offer gone = plan->gpu;
  for (const Candidate& c : plan->candidates) {
    if (!c.rejected.empty() || same_offer(c.offer, gone) || c.offer.provider != provider.name())
      continue;
    if (const Offer* next = still_offered(*live, c.offer)) {
      // The estimate follows the new offer (same width: the runner's shape is set already).
      const Candidate* was = plan->candidates.empty() ? nullptr : &plan->candidates.front();
      if (was && was->workers == c.workers) {
        plan->estimate.usd += c.usd - was->usd;
        plan->estimate.total_s += c.total_s - was->total_s;
        plan->estimate.billed_s += c.billed_s - was->billed_s;
        plan->estimate.run_s = c.worker_run_s;
        plan->estimate.utilization = c.utilization;
      }
      plan->gpu = *next;
      if (c.shape) plan->layout = c.shape->layout;  // its count's split of the cards
      *note = "the chosen offer (" + describe(gone) +
              ") vanished before create; fell over to the next-best plan: " + describe(*next);
      return Status::Ok();
    }
  }
  return make_error(ErrorCode::kNoCapacity, "the chosen offer (" + describe(gone) +
                                                ") vanished before create, and no other planned " +
                                                provider.name() + " offer is still available");
}

}  // namespace burst
