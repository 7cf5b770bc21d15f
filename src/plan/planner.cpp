#include "plan/planner.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace burst {
namespace {

// Cold start: the local cloud starts an sshd; a cloud pod with weights on its volume boots in
// about 90 s (issue 3 calibrates this per provider).
double cold_start_seconds(const std::string& provider) { return provider == "local" ? 2 : 90; }

// Conservative sustained upload rate for code sync until the transfer benchmarks calibrate it.
constexpr double kSyncBytesPerSecond = 20e6;

std::string fmt_money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", usd);
  return buf;
}

// Why an offer is out, or "" when it satisfies the spec. The local cloud runs on this machine's
// CPU: GPU names, VRAM and price limits describe cloud GPUs and do not apply to it.
std::string rejection(const Resources& r, const Offer& o) {
  if (!o.available) return "not available now";
  if (o.provider == "local") return "";
  if (!r.gpus.empty() && std::find(r.gpus.begin(), r.gpus.end(), o.gpu_type) == r.gpus.end())
    return o.gpu_type + " is not in resources.gpus";
  if (o.gpu_count < r.gpu_count) return "fewer GPUs than resources.gpu_count";
  if (r.min_vram_gb && (!o.vram_gb || *o.vram_gb < *r.min_vram_gb)) return "too little VRAM";
  double price = r.spot && o.spot_usd_per_hour ? *o.spot_usd_per_hour : o.usd_per_hour;
  if (r.max_usd_per_hour && price > *r.max_usd_per_hour)
    return fmt_money(price) + "/h is over resources.max_usd_per_hour";
  return "";
}

Estimate estimate_for(const PipelineSpec& spec, const Offer& gpu, const std::optional<Offer>& cpu,
                      long code_bytes) {
  Estimate e;
  e.cold_start_s = cold_start_seconds(gpu.provider);
  e.sync_s = static_cast<double>(code_bytes) / kSyncBytesPerSecond;
  if (spec.workload.reference) {
    e.run_s = spec.workload.reference->runtime_seconds;
    e.run_known = true;
    e.basis = "workload.reference: " + spec.workload.reference->gpu + " measured " +
              std::to_string(static_cast<long>(e.run_s)) + " s (not yet scaled to " + gpu.gpu_type +
              ")";
  } else {
    e.basis = "no workload.reference: run time unknown, cost excludes the run";
  }
  e.total_s = e.cold_start_s + e.sync_s + e.run_s + e.pull_s;
  double price =
      spec.resources.spot && gpu.spot_usd_per_hour ? *gpu.spot_usd_per_hour : gpu.usd_per_hour;
  e.usd = e.total_s / 3600.0 * price;
  if (cpu) {
    e.upload_s = cold_start_seconds(cpu->provider) + 10;
    e.usd += e.upload_s / 3600.0 * cpu->usd_per_hour;
  }
  return e;
}

}  // namespace

Result<Plan> make_plan(const PipelineSpec& spec, const PlanInput& in) {
  std::vector<std::string> notes;
  std::optional<Plan> best;
  for (const std::string& provider : in.providers) {
    for (const Offer& o : in.gpu_offers) {
      if (o.provider != provider) continue;
      std::string why = rejection(spec.resources, o);
      if (!why.empty()) {
        notes.push_back(o.provider + " " + o.gpu_type + ": " + why);
        continue;
      }
      std::optional<Offer> cpu;
      if (spec.upload) {
        for (const Offer& c : in.cpu_offers)
          if (c.provider == o.provider && c.available &&
              (!cpu || c.usd_per_hour < cpu->usd_per_hour))
            cpu = c;
        if (!cpu) {
          notes.push_back(o.provider + ": no CPU pod for the upload step");
          continue;
        }
      }
      Estimate e = estimate_for(spec, o, cpu, in.code_bytes);
      // Cheapest whole job wins; providers earlier in the list win ties.
      if (!best || e.usd < best->estimate.usd) best = Plan{o, cpu, e, {}};
    }
  }
  if (!best) {
    std::string msg = "no offer satisfies the spec's resources";
    for (const auto& n : in.unusable) msg += "\n  " + n;
    for (const auto& n : notes) msg += "\n  " + n;
    if (in.providers.empty() && in.unusable.empty()) msg += "\n  no provider is allowed";
    return make_error(ErrorCode::kNoCapacity, msg);
  }
  if (spec.budget.max_usd && best->estimate.usd > *spec.budget.max_usd)
    return make_error(ErrorCode::kInvalid,
                      "the cheapest plan is estimated at " + fmt_money(best->estimate.usd) +
                          ", over budget.max_usd " + fmt_money(*spec.budget.max_usd));
  best->notes = notes;
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
