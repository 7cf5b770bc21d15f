#include "report/recommendations.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace burst {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// What took the billed time that was not compute: cold start, sync or billing rounding.
std::string dominant_overhead(const JobReport& r) {
  if (r.rounding_s > r.cold_start_s && r.rounding_s > r.sync_s)
    return "the provider's per-" + (r.facts.billing_unit.empty() ? "unit" : r.facts.billing_unit) +
           " billing dominated (" + fmt("%.0f s", r.rounding_s) +
           " rounded up); longer runs or a per-second provider waste less";
  if (r.sync_s > r.cold_start_s)
    return "the code sync dominated (" + fmt("%.0f s", r.sync_s) +
           "); keep data out of code.dir (exclude it, or put it on the volume once)";
  return "the cold start dominated (" + fmt("%.0f s", r.cold_start_s) +
         " provisioning, SSH and setup); batch more items per run or keep weights on the volume";
}

}  // namespace

std::vector<Recommendation> recommend(const JobReport& r) {
  std::vector<Recommendation> out;
  if (r.no_pod) {
    out.push_back({"no-pod", "cost $0: the job never created a pod" +
                                 (r.job.error.empty() ? "" : " (" + r.job.error + ")")});
  }
  // One line: a pod that may still bill first; else a pod on your own host (priced "owned ..." by
  // the ssh provider), which bills no one: its host was lost mid-job (lost_own_host_pods), and
  // reap releases it once the host answers.
  const auto owned = [](const PodCost& c) { return c.pod.price_source.rfind("owned", 0) == 0; };
  const PodCost* left = nullptr;
  for (const PodCost& c : r.pods)
    if (!c.confirmed_deleted && (left == nullptr || (owned(*left) && !owned(c)))) left = &c;
  if (left != nullptr)
    out.push_back({"deletion-unconfirmed",
                   "the " + left->pod.role + " pod " + pod_label(left->pod) +
                       (owned(*left) ? " on your own host was not released (its host did not "
                                       "answer); it bills no one: run `burst reap` once it is back"
                                     : " was not confirmed deleted and may still bill: run "
                                       "`burst reap`")});
  // A money cap stopped it: the typed fact (JobRecord::stop), or for a job recorded before burst
  // kept it, the cost guard's words in its error (job/budget_guard.h).
  const size_t cap_words = r.job.error.find("stopped by budget");
  const bool money =
      r.job.stop ? *r.job.stop == JobStop::kMoneyCap : cap_words != std::string::npos;
  if (r.outcome == "budget-stop" && money) {
    // Say which cap, from the job's error.
    const std::string why =
        cap_words != std::string::npos ? r.job.error.substr(cap_words) : "stopped by a money cap";
    out.push_back({"budget-stop",
                   "the job was " + why + ": raise the cap, pick a cheaper GPU or split the work"});
  } else if (r.outcome == "budget-stop") {
    out.push_back({"budget-stop",
                   "the run hit budget.max_runtime" +
                       (r.facts.max_runtime_s ? " (" + fmt("%.0f s", *r.facts.max_runtime_s) + ")"
                                              : std::string()) +
                       " after " + fmt("%.0f s", r.compute_s) +
                       " and was stopped: raise the limit or split the work across runs"});
  }
  const bool ok = r.outcome == "succeeded";
  if (ok && r.utilization && r.compute_s > 0 && *r.utilization < kRecommendLowUtilization) {
    out.push_back({"low-utilization", "utilization " + fmt("%.0f%%", *r.utilization * 100) +
                                          " (compute " + fmt("%.0f s", r.compute_s) + " of " +
                                          fmt("%.0f s", r.gpu_billed_s) +
                                          " billed): " + dominant_overhead(r)});
  }
  // The 70% rule for a wide job (job/worker_fleet.h), with every worker's own utilization.
  if (ok && !r.workers.empty() && r.utilization && *r.utilization < kRecommendWideUtilization) {
    std::string each;
    for (const WorkerRow& w : r.workers)
      each += (each.empty() ? "" : ", ") + ("w" + std::to_string(w.index)) + " " +
              (w.utilization ? fmt("%.0f%%", *w.utilization * 100) : "-");
    out.push_back({"over-provisioned",
                   "utilization " + fmt("%.0f%%", *r.utilization * 100) + " overall (" + each +
                       ") is below the ~70% a wide job should reach: over-provisioned; fewer "
                       "workers (resources.max_workers: " +
                       std::to_string(std::max(1, static_cast<int>(r.workers.size()) - 1)) +
                       ") or a smaller GPU would do the same work for less"});
  }
  if (r.utilization && *r.utilization >= kRecommendPinnedUtilization && r.deadline_slack_pct &&
      *r.deadline_slack_pct < 0) {
    const int k = r.workers.empty() ? 1 : static_cast<int>(r.workers.size());
    out.push_back({"under-provisioned",
                   "utilization " + fmt("%.0f%%", *r.utilization * 100) +
                       " with the deadline missed (" + fmt("%.0f s", r.wall_s) + " of " +
                       fmt("%.0f s", *r.facts.deadline_s) +
                       "): the GPUs were busy throughout; more workers (resources.max_workers "
                       "above " +
                       std::to_string(k) + ") would meet it"});
  }
  if (ok && r.deadline_slack_pct && *r.deadline_slack_pct >= kRecommendDeadlineSlackPct) {
    out.push_back(
        {"deadline-slack", "the deadline was met with " + fmt("%.0f%%", *r.deadline_slack_pct) +
                               " slack (" + fmt("%.0f s", r.wall_s) + " of " +
                               fmt("%.0f s", *r.facts.deadline_s) +
                               "): a cheaper, slower GPU fits it (`burst plan --all` lists them)"});
  }
  if (r.budget_used_pct && *r.budget_used_pct >= kRecommendBudgetNearPct) {
    out.push_back({"budget-near", fmt("%.0f%%", *r.budget_used_pct) + " of budget.max_usd (" +
                                      fmt("$%.2f", *r.facts.budget_usd) +
                                      ") used: raise it before the work grows"});
  }
  // The rows of "Estimate vs actual", in its order: the one furthest off is named.
  struct Row {
    const char* what;
    std::optional<double> error_pct;
    std::string planned;
  };
  const Row rows[] = {
      {"the cost", r.usd_error_pct, fmt("$%.4f", r.estimate.pods_usd())},
      {"the GPU billed time", r.gpu_time_error_pct, fmt("%.0f s", r.estimate.billed_s)},
      {"the run time", r.run_error_pct, fmt("%.0f s", r.estimate.run_s)}};
  const Row* worst = nullptr;
  for (const Row& row : rows)
    if (row.error_pct && std::fabs(*row.error_pct) > kRecommendEstimateOffPct &&
        (!worst || std::fabs(*row.error_pct) > std::fabs(*worst->error_pct)))
      worst = &row;
  if (ok && worst) {
    out.push_back({"estimate-off",
                   std::string(worst->what) + " was " + fmt("%+.0f%%", *worst->error_pct) +
                       " off the estimate (" + worst->planned + " planned): " +
                       (r.estimate.run_known
                            ? "the next plan of this pipeline calibrates from the measured run"
                            : "give workload.reference (or workload.kind) so the plan can time "
                              "the run")});
  }
  return out;
}

}  // namespace burst
