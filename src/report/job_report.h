// The cost report of one job, built from the store alone (no provider calls), so it can be
// produced offline and never changes after the fact: prices are those captured when each pod
// was created, and the billing rule, budget and deadline are the job's recorded facts
// (report/job_facts.h). Renderings: JSON, Markdown and terminal text (job_report_text.cpp),
// self-contained HTML (job_report_html.cpp). Rules: docs/reports.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/store.h"
#include "report/job_facts.h"

namespace burst {

struct PodCost {
  PodRecord pod;
  double lifetime_s = 0;  // create requested -> delete confirmed (or `as_of` if not confirmed)
  double billed_s = 0;    // lifetime rounded up per the recorded billing rule
  double usd = 0;
  bool confirmed_deleted = false;
};

// The plan's estimate as recorded at plan time (jobs.estimate_json).
struct RecordedEstimate {
  bool known = false;  // false when the job has no estimate
  double usd = 0;
  // Included in usd: the provider's per-GB charge on what the hosts download (Vast's
  // inet_down_cost; plan/planner.h). burst does not see that bill, so the cost row compares the
  // pods alone (usd - transfer_usd) and the report shows this part as estimated only.
  double transfer_usd = 0;
  double pods_usd() const { return usd - transfer_usd; }
  // The host's per-GB charge on its uploads (plan/planner.h): the report prices the bytes pulled
  // at it (JobReport::pulled_transfer_usd), beside the comparison like transfer_usd.
  double upload_usd_per_gb = 0;
  double total_s = 0;  // wall time of the GPU part
  double run_s = 0;
  double billed_s = 0;
  double utilization = 0;
  bool run_known = false;
  std::string basis;
  int workers = 1;  // the chosen point on the go-wide curve
};

// One worker of a wide job (job/worker_fleet.h): its pods (a retry adds one), its shard, the times
// of its phase rows (those whose detail starts "w<i>: "), its cost and utilization.
struct WorkerRow {
  int index = 0;
  std::vector<std::string> pods;  // provider ids, in creation order (created pods only)
  // Per pod, in the same order: "<provider> <GPU type> at $<price>/h" (a fleet fallback may put
  // a worker on another provider than the plan's).
  std::vector<std::string> where;
  // Why its pod is not where the plan said (the fallback's line, job/worker_fleet.h); "" if it is.
  std::string deviation;
  long items = 0;           // its shard's size; 0 when the job had no item count
  double cold_start_s = 0;  // provision + wait-for-ssh + setup
  double sync_s = 0;
  double run_s = 0;
  double pull_s = 0;
  double billed_s = 0;
  double usd = 0;
  std::optional<double> utilization;  // run / billed
  std::string outcome = "not run";    // of its last run row
};

struct Recommendation {
  std::string id;    // the trigger's name, documented in docs/reports.md
  std::string text;  // what to do next time, with the numbers that triggered it
};

// The time limit that ended a job (util/limit_stop.h) and the phase it ran out in.
struct StoppedBy {
  std::string limit;   // "budget.deadline" | "budget.max_runtime" | "no_progress_seconds"
  double seconds = 0;  // the limit's value
  std::string phase;   // the first phase that did not end ok ("sync", "run", ...)
};

struct JobReport {
  JobRecord job;
  ReportFacts facts;
  std::vector<PhaseRecord> phases;
  std::vector<PodCost> pods;
  std::vector<TransferRecord> transfers;
  std::string outcome;  // "succeeded" | "failed" | "cancelled" | "budget-stop" | "running"
  bool no_pod = false;  // never created a pod (or every create failed): costs $0
  double total_usd = 0;
  double gpu_usd = 0;
  double cpu_usd = 0;  // the CPU hand-off pod(s)
  double gpu_billed_s = 0;
  double wall_s = 0;
  double compute_s = 0;     // the run phase(s)
  double cold_start_s = 0;  // provision + wait-for-ssh + setup
  double sync_s = 0;
  double rounding_s = 0;  // billed beyond the measured lifetime (the provider's increment)
  std::optional<double> utilization;  // compute / GPU billed; unset without a GPU pod
  int64_t bytes_synced = 0;
  int64_t bytes_pulled = 0;
  // bytes_pulled at the host's per-GB upload charge (RecordedEstimate::upload_usd_per_gb), when it
  // bills uploads: what pulling the artefacts cost beside the pods. Unset otherwise. A wide job's
  // workers are all priced at the plan's offer.
  std::optional<double> pulled_transfer_usd;
  RecordedEstimate estimate;
  std::optional<double> usd_error_pct;  // (actual - estimate) / estimate
  std::optional<double> gpu_time_error_pct;
  std::optional<double> run_error_pct;
  // (total + budget_transfer_usd) / budget.max_usd: the budget's caps count the host's per-GB
  // charges too (job/budget_guard.h, job_money_caps).
  std::optional<double> budget_used_pct;
  // The per-GB charges in budget_used_pct: the plan's estimated downloads (estimate.transfer_usd)
  // and the artefacts pulled (pulled_transfer_usd). 0 where the host bills no traffic.
  double budget_transfer_usd = 0;
  std::optional<double> deadline_slack_pct;  // 1 - wall / budget.deadline_seconds
  std::optional<StoppedBy> stopped_by;       // unset when no time limit stopped the job
  // Total cost over the items the spec names (the items file's lines, else workload.items),
  // for a job that succeeded; unset when the spec has no items.
  std::optional<double> usd_per_item;
  long items = 0;             // the count it divides by
  std::string estimate_json;  // as recorded at plan time
  // Where the upload ran when the provider has no CPU pods (plan/handoff.h): "gpu-pod" or
  // "local" (empty otherwise), the plan's reason with both estimated costs, and how it went.
  std::string handoff, handoff_why, handoff_outcome;
  // The prepare step as it ran (plan/prepare.h): "cpu-pod", "gpu-pod" or "skipped" (its creates:
  // were on the volume), "" when the job had none or never reached it; its outcome, time (its
  // phases) and cost (its CPU pod's bill, or the GPU's price over the step). The plan's decision
  // is in facts.prepare*.
  std::string prepare, prepare_outcome;
  double prepare_s = 0;
  double prepare_usd = 0;
  std::vector<Recommendation> recommendations;
  std::vector<WorkerRow> workers;  // empty for a job of one GPU pod
  // Spot pods (plan/spot_risk.h; docs/reports.md, "Spot"): each preemption as its phase row
  // recorded it ("w<i>: pod <id> (<the provider's words>); its unfinished items go to a new
  // <spot|on-demand> pod"), each worker's items as its last pod found them ("kept": finished on
  // preempted pods, by their done records; "rerun": given to that pod, the unfinished ones and
  // any in progress when the pod was taken back), summed, and what the spot pods saved against
  // the planned offer's on-demand price (their billed time x the difference); unset when the job
  // rented no spot pod.
  std::vector<std::string> preemptions;
  long items_kept = 0;
  long items_rerun = 0;
  std::optional<double> spot_saved_usd;
  // Each replica of a run step that ran as several on one pod (ReplicaRecord, issue 33), in the
  // order recorded; empty for a job whose pods ran one copy (or one recorded before replicas were).
  std::vector<ReplicaRecord> replicas;
  int64_t as_of_ms = 0;
};

// One line per replica: "replica 0 on GPU 0: 150 items, busy 480 s of the step's 500 s (96%),
// GPU utilisation 92% (96 samples), exit 0", "w<i> " before it in a job of several workers.
std::vector<std::string> replica_lines(const JobReport& r);

// What ran on your own hosts (pods priced "owned ..." by the ssh provider): "pods <ids>: $x of
// owned cost (in the total; no cloud bills it)", then "; lost mid-job: <ids> (...)" when some
// were; "" when none did.
std::string owned_hosts_text(const JobReport& r);
// The own-host pods of a finished job never confirmed released (a host that disappeared mid-job,
// job/worker_fleet.h), comma-separated; "" when none.
std::string lost_own_host_pods(const JobReport& r);

// The spot section's lines ("spot: ..."), empty for a job that asked for no spot pod.
std::vector<std::string> spot_lines(const JobReport& r);

Result<JobReport> build_job_report(Store& store, const std::string& job_id, TimePoint as_of);

// The same from rows already read (roll-ups read them in bulk).
JobReport assemble_job_report(const JobRecord& job, std::vector<PhaseRecord> phases,
                              std::vector<PodRecord> pods, std::vector<TransferRecord> transfers,
                              TimePoint as_of);

// Which pod a phase ran on: "gpu", "cpu" or "" (this machine).
std::string phase_role(Phase phase);

// How the report, its HTML page and the dashboard name a pod: the provider's id, or burst's
// name for it when the provider never gave one (a create that failed).
std::string pod_label(const PodRecord& pod);

std::string report_json(const JobReport& r);
std::string report_markdown(const JobReport& r);
std::string report_summary(const JobReport& r);  // a few lines for the terminal
std::string report_html(const JobReport& r);     // self-contained: inline CSS and SVG, no JS

// "$0.0012 per item (2000 items)", or "" without usd_per_item; tiny costs keep 6 decimals.
std::string usd_per_item_text(const JobReport& r);
// " (pods $2.61, per-GB transfer $0.74)" after the budget's "% used" where the host bills its
// traffic per GB; "" where it does not.
std::string budget_parts(const JobReport& r);
// The plan's point on the go-wide curve against what happened, one sentence (wide jobs).
std::string curve_point_text(const JobReport& r);

}  // namespace burst
