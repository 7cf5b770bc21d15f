// What the cost report needs to know about a job beyond the store's rows, captured from the
// spec and the plan when the job is created and kept as jobs.facts_json. Reports read it back
// instead of asking today's catalog or prices, so a report never changes after the fact.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "burst/spec.h"
#include "plan/planner.h"

namespace burst {

struct ReportFacts {
  std::string gpu_type;  // as planned (pods carry what was created)
  int gpu_count = 0;     // per pod, as rented (the planned offer's count)
  // How each pod's cards ran the step (plan/pod_layout.h): copies of the run step per pod and
  // the words the plan used ("2 replicas, 1 GPU each"); "" for one GPU or jobs before issue 33.
  int replicas = 1;
  std::string layout;
  double gpu_usd_per_hour = 0;
  std::string price_source;  // "live offer" | "offline table ..." | "config"
  // The provider's billing rule at creation (plan/billing.h); increment 0 = not recorded, so
  // billed time is the measured lifetime unrounded (jobs from before facts existed).
  double billing_increment_s = 0;
  double billing_minimum_s = 0;
  std::string billing_unit;
  // The other providers a wide job's workers may run on (Plan::fallbacks): each one's rule,
  // {increment_s, minimum_s}, so a pod there is billed by its own provider's rule. Empty: none.
  std::map<std::string, std::pair<double, double>> billing_by_provider;
  std::optional<double> budget_usd;     // budget.max_usd
  std::optional<double> deadline_s;     // budget.deadline_seconds
  std::optional<double> max_runtime_s;  // budget.max_runtime_seconds
  std::string workload_kind;            // workload.kind
  double units = 0;                     // items (or tokens) of work; 0 = unknown
  std::string unit_name;                // "items" | "tokens" | ""
  std::string bound;                    // predicted: bandwidth | compute | capacity | overhead | ""
  // Estimate calibration applied to this plan (report/calibration.h): runs it came from and
  // the factor (measured / predicted) the run time was multiplied by.
  int calibration_runs = 0;
  double calibration_factor = 1;
  // Where the plan put the upload when the provider has no CPU pods (plan/handoff.h): "gpu-pod"
  // or "local", with the plan's one-line reason and both costs; empty otherwise.
  std::string handoff;
  std::string handoff_why;
  // The plan's width (job/worker_fleet.h) and the items split across the workers (the items
  // file's lines, else workload.items; 0 = unknown). Recorded only when workers > 1.
  int workers = 1;
  long split_items = 0;
  // The plan's prepare decision (plan/prepare.h): "cpu-pod", "gpu-pod" or "skipped" (expected
  // on a warm volume with creates:), its reason and estimate; empty without a prepare step.
  std::string prepare;
  std::string prepare_why;
  double prepare_est_s = 0;
  double prepare_est_usd = 0;
  double prepare_download_bytes = 0;  // what the step downloads (plan/load_history.h measures it)
  // The image's compressed size the plan priced a pull of (Plan::image_bytes); 0: unknown. The
  // job's boot sample drops that pull (plan/boot_history.h).
  double image_bytes = 0;
  // The GPU offer's download link the plan priced that pull at (Offer::download_bps, Vast's
  // inet_down); 0: the offer states none (the prior rate).
  double image_link_bps = 0;
  // A spec that asked for spot pods (plan/spot_risk.h): whether the plan rented spot, the planned
  // offer's on-demand $/h (what a spot pod's saving is told against) and the plan's one line on
  // the choice; 0 and "" otherwise.
  bool spot = false;
  double on_demand_usd_per_hour = 0;
  std::string spot_why;
};

ReportFacts report_facts_from_plan(const PipelineSpec& spec, const Plan& plan);
std::string report_facts_to_json(const ReportFacts& f);
// Empty or unreadable text gives default facts (nothing recorded).
ReportFacts report_facts_from_json(const std::string& text);

}  // namespace burst
