#include "plan/planner.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace burst {
namespace {

std::string fmt_money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", usd);
  return buf;
}

Estimate estimate_of(const Candidate& c, const std::optional<Offer>& cpu) {
  Estimate e;
  e.cold_start_s = c.cold_start_s;
  e.sync_s = c.sync_s;
  e.run_s = c.run_s;
  e.total_s = c.total_s;
  e.usd = c.usd;
  e.run_known = c.run_s > 0;
  e.basis = c.basis;
  if (cpu) {
    e.upload_s = cold_start_seconds(cpu->provider, 0, true) + 10;
    e.usd += e.upload_s / 3600.0 * cpu->usd_per_hour;
  }
  return e;
}

}  // namespace

Result<Plan> make_plan(const PipelineSpec& spec, const PlanInput& in) {
  std::vector<Offer> offers;  // in provider preference order, which breaks ties
  for (const std::string& p : in.providers)
    for (const Offer& o : in.gpu_offers)
      if (o.provider == p) offers.push_back(o);
  CandidateInput ci;
  ci.catalog = in.catalog;
  ci.calibration = default_calibration();
  ci.code_bytes = in.code_bytes;
  ci.warm_volume = in.warm_volume;
  std::vector<Candidate> candidates = price_candidates(spec, offers, ci);

  std::vector<std::string> notes;
  std::optional<Plan> best;
  for (Candidate& c : candidates) {
    if (!c.rejected.empty()) {
      notes.push_back(c.offer.provider + " " + c.offer.gpu_type + ": " + c.rejected);
      continue;
    }
    std::optional<Offer> cpu;
    if (spec.upload) {
      for (const Offer& o : in.cpu_offers)
        if (o.provider == c.offer.provider && o.available &&
            (!cpu || o.usd_per_hour < cpu->usd_per_hour))
          cpu = o;
      const bool offline = c.offer.price_source.rfind("offline table", 0) == 0;
      if (!cpu && offline) {
        // Planning without a driver: the table has no CPU prices; say so rather than guess.
        notes.push_back(c.offer.provider +
                        ": the CPU hand-off is not priced (no offline CPU price)");
      } else if (!cpu) {
        c.rejected = "no CPU pod for the upload step";
        notes.push_back(c.offer.provider + ": " + c.rejected);
        continue;
      }
    }
    Estimate e = estimate_of(c, cpu);
    // Candidates come cheapest first; with the CPU hand-off added, keep the cheapest whole job.
    if (!best || e.usd < best->estimate.usd) best = Plan{c.offer, cpu, e, {}, {}};
  }
  if (!best) {
    std::string msg = "no offer satisfies the spec's resources";
    for (const auto& n : in.unusable) msg += "\n  " + n;
    std::vector<std::string> unique;
    for (const auto& n : notes)
      if (std::find(unique.begin(), unique.end(), n) == unique.end()) unique.push_back(n);
    constexpr size_t kMaxReasons = 12;
    for (size_t i = 0; i < unique.size() && i < kMaxReasons; ++i) msg += "\n  " + unique[i];
    if (unique.size() > kMaxReasons)
      msg += "\n  (and " + std::to_string(unique.size() - kMaxReasons) +
             " more; `burst plan --all` lists every candidate with its reason)";
    if (in.providers.empty() && in.unusable.empty()) msg += "\n  no provider is allowed";
    return make_error(ErrorCode::kNoCapacity, msg);
  }
  if (spec.budget.max_usd && best->estimate.usd > *spec.budget.max_usd)
    return make_error(ErrorCode::kInvalid,
                      "the cheapest plan is estimated at " + fmt_money(best->estimate.usd) +
                          ", over budget.max_usd " + fmt_money(*spec.budget.max_usd));
  best->notes = notes;
  best->candidates = std::move(candidates);
  return *best;
}

std::string estimate_to_json(const Estimate& e) {
  nlohmann::json j = {{"cold_start_s", e.cold_start_s},
                      {"sync_s", e.sync_s},
                      {"run_s", e.run_s},
                      {"pull_s", e.pull_s},
                      {"upload_s", e.upload_s},
                      {"total_s", e.total_s},
                      {"usd", e.usd},
                      {"run_known", e.run_known},
                      {"basis", e.basis}};
  return j.dump();
}

}  // namespace burst
