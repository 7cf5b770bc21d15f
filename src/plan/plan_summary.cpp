#include "plan/plan_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/terminal_text.h"

namespace burst {
namespace {

std::string summary_money(double usd, const char* f = "$%.2f") {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, usd);
  return buf;
}

}  // namespace

std::vector<std::string> plan_summary_lines(const PipelineSpec& spec, const Plan& plan) {
  const Estimate& e = plan.estimate;
  std::vector<std::string> out;
  out.push_back("plan for " + spec.name + ":");
  std::string gpu =
      "  GPU pod: " + plan.gpu.provider + " " + plan.gpu.gpu_type + " x" +
      std::to_string(
          std::max({1, plan.gpu.gpu_count, spec.resources.count_for(plan.gpu.gpu_type)})) +
      " at " +
      summary_money(plan_rents_spot(plan) ? plan.spot->spot_usd_per_hour : plan.gpu.usd_per_hour) +
      "/h (" + plan.gpu.price_source + (plan_rents_spot(plan) ? ", spot" : "") + ")";
  // What the run does with the pod's cards (plan/pod_layout.h), as the table's basis says it.
  if (plan.layout.gpus > 1) gpu += ", " + pod_layout_text(plan.layout);
  if (e.workers > 1) gpu += ", " + std::to_string(e.workers) + " workers";
  // resources.disk_gb (SkyPilot's disk_size): the pod's own disk, gone with the pod, no monthly
  // cost; the kept volume is the next line.
  // A provider that cannot set it (ProviderTraits::pod_disk_settable) says so, not the request.
  if (spec.resources.disk_gb)
    gpu += traits_of(plan.gpu).pod_disk_settable
               ? ", its own disk " + std::to_string(*spec.resources.disk_gb) +
                     " GB (wiped with the pod)"
               : ", its own disk as " + plan.gpu.provider + " rents it (resources.disk_gb " +
                     std::to_string(*spec.resources.disk_gb) + " GB is not set there)";
  out.push_back(gpu);
  // resources.spot: both prices, the expected cost with its prior, the choice (plan/spot_risk.h).
  if (plan.spot && !plan.spot->offered) {
    out.push_back("  spot:    " + plan.spot->why);
  } else if (plan.spot) {
    const SpotRisk& r = *plan.spot;
    char b[512];
    std::snprintf(b, sizeof b,
                  "  spot:    %s %s at $%.3f/h spot, $%.3f/h on-demand; estimate $%.4f spot, "
                  "$%.4f on-demand",
                  r.provider.c_str(), r.gpu.c_str(), r.spot_usd_per_hour, r.on_demand_usd_per_hour,
                  r.spot_usd, r.on_demand_usd);
    out.push_back(b);
    char again[64] = "";
    if (r.restart_transfer_usd > 0)
      std::snprintf(again, sizeof again, ", downloads again $%.4f", r.restart_transfer_usd);
    std::snprintf(b, sizeof b,
                  "  risk:    %.3f expected preemptions (prior %.2f per pod-hour) x (cold start "
                  "+ lost work %.0f s%s): expected $%.4f, %.0f s",
                  r.restarts, r.rate_per_hour, r.restart_s, again, r.expected_usd, r.expected_s);
    out.push_back(std::string(b) + "; prior: " + r.prior_source);
    out.push_back("  choice:  " + r.why);
  }
  if (!plan.fallbacks.empty()) {  // Plan::fallbacks, short: the first few
    constexpr size_t kShown = 3;
    std::string f = "  fallback: a worker the chosen offer has no pod for goes to ";
    for (size_t i = 0; i < plan.fallbacks.size() && i < kShown; ++i) {
      const Offer& o = plan.fallbacks[i].offer;
      f += (i ? ", " : "") + o.provider + " " + o.gpu_type +
           (o.region.empty() ? "" : " in " + o.region) + " at " +
           summary_money(plan.fallbacks[i].price) + "/h";
    }
    if (plan.fallbacks.size() > kShown)
      f += " (or " + std::to_string(plan.fallbacks.size() - kShown) + " more)";
    out.push_back(f + ", the first with capacity");
  }
  out.push_back(
      "  volume:  " + spec.volume.name + " (" + std::to_string(spec.volume.size_gb) + " GB), " +
      (plan.warm_volume ? "warm (a job of this pipeline succeeded on this volume)" : "cold") +
      // Volumes on one machine (ProviderTraits::volumes_machine_local; job/volume_binding.h)
      (e.workers > 1 && traits_of(plan.gpu).volumes_machine_local
           ? "; it lives on one machine: the workers share it while that machine has "
             "free GPUs, each other worker gets a volume of its own, " +
                 spec.volume.name + "-w<i> (cold when new)"
           : std::string()) +
      (plan.weight_load.empty() ? "" : "; " + plan.weight_load));
  // code.add: local files from outside the code dir go to the pod (and stay on the volume); a
  // spec from someone else could name any file of yours, so each is shown before you say yes.
  if (!spec.code.add.empty()) {
    std::string line = "  also synced: ";
    for (size_t i = 0; i < spec.code.add.size(); ++i)
      line += (i ? ", " : "") + spec.code.add[i].from + " (as " + spec.code.add[i].to + ")";
    out.push_back(line + ", from outside the code dir (code.add)");
  }
  // The cold start's image pull (plan/image_pull.h): its size and where it came from.
  if (!plan.image_pull.empty()) out.push_back("  " + plan.image_pull);
  if (spec.prepare && plan.prepare) {
    const PrepareChoice& p = *plan.prepare;
    std::string where = p.label();
    if (!p.expect_skip && p.where == PrepareWhere::kCpuPod && p.cpu)
      where += " (" + p.cpu->provider + " CPU pod at " + summary_money(p.cpu->usd_per_hour) + "/h)";
    out.push_back("  prepare: " + where + ", est " + std::to_string(std::lround(p.seconds())) +
                  " s, " +  // as p.why rounds it
                  summary_money(p.usd(), "$%.4f") + "; " + p.why);
  }
  if (plan.cpu)
    out.push_back("  upload:  " + plan.cpu->provider + " CPU pod at " +
                  summary_money(plan.cpu->usd_per_hour) + "/h");
  if (plan.handoff && spec.upload) out.push_back("  hand-off: " + plan.handoff->why);
  // Where the volume is, or the new one this plan makes (plan/volume_home.h).
  if (plan.volume)
    out.push_back(volume_placement_line(spec.volume.name.empty() ? spec.name : spec.volume.name,
                                        *plan.volume));
  out.push_back("  estimate: " + std::to_string(static_cast<long>(e.total_s)) + " s of GPU time, " +
                summary_money(e.usd) + "  [" + e.basis + "]");
  // A host's per-GB charge on its traffic (Vast; planner.cpp's transfer_note): part of that $.
  for (const std::string& n : plan.notes)
    if (n.rfind("transfer: ", 0) == 0) out.push_back("  " + n);
  if (spec.budget.max_usd) out.push_back("  budget:  " + summary_money(*spec.budget.max_usd));
  if (spec.budget.max_runtime_seconds) {
    const double s = *spec.budget.max_runtime_seconds;
    char buf[64];
    if (s >= 3600 && static_cast<long>(s) % 3600 == 0)
      std::snprintf(buf, sizeof buf, "%ld h", static_cast<long>(s) / 3600);
    else
      std::snprintf(buf, sizeof buf, "%ld s", static_cast<long>(s));
    const std::string& why = spec.budget.max_runtime_default_why;
    out.push_back(
        "  max runtime: " + std::string(buf) + " (budget.max_runtime" +
        (why.empty() ? ")" : ", a default: " + why + "; --max-runtime DURATION changes it)"));
  }
  // An image name, a reason or a note can quote the spec or a provider: one safe line each.
  for (std::string& line : out) line = terminal_line(line);
  return out;
}

}  // namespace burst
