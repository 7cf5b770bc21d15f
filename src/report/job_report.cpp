#include "report/job_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string_view>
#include <utility>

#include "json/json_value.h"
#include "plan/billing.h"
#include "plan/handoff.h"
#include "plan/spot_risk.h"
#include "plan/worker_shards.h"
#include "report/recommendations.h"
#include "report/report_format.h"
#include "util/limit_stop.h"

namespace burst {

namespace {

double seconds_of(const PhaseRecord& p) {
  return p.ended_ms ? (p.ended_ms - p.started_ms) / 1000.0 : 0.0;
}

RecordedEstimate parse_estimate(const std::string& text) {
  RecordedEstimate e;
  auto parsed = JsonValue::parse(text.empty() ? "null" : text);
  if (!parsed || !parsed->is_object()) return e;
  const JsonValue& j = *parsed;
  e.known = true;
  e.usd = j.number_or("usd", 0.0);
  e.transfer_usd = std::clamp(j.number_or("transfer_usd", 0.0), 0.0, std::max(0.0, e.usd));
  const double up = j.number_or("upload_usd_per_gb", 0.0);
  e.upload_usd_per_gb = std::isfinite(up) && up > 0 ? up : 0;
  e.total_s = j.number_or("total_s", 0.0);
  e.run_s = j.number_or("run_s", 0.0);
  e.billed_s = j.number_or("billed_s", 0.0);
  e.utilization = j.number_or("utilization", 0.0);
  e.run_known = j.bool_or("run_known", false);
  e.basis = j.string_or("basis", "");
  e.workers = static_cast<int>(j.number_or("workers", 1.0));
  return e;
}

std::optional<double> error_pct(double actual, double estimate) {
  if (!(estimate > 0)) return std::nullopt;
  return (actual - estimate) / estimate * 100.0;
}

// A failed job that a budget limit stopped is a "budget-stop", from the typed fact the runner
// recorded (JobRecord::stop). A job recorded before burst kept it (no stop) is read from its
// error's words, as reports always read it, so old reports do not change.
std::string outcome_of(const JobRecord& job) {
  if (job.state == JobState::kInterrupted) return "cancelled";
  if (job.state != JobState::kFailed) return to_string(job.state);
  const bool budget = job.stop
                          ? *job.stop == JobStop::kMaxRuntime || *job.stop == JobStop::kMoneyCap
                          : job.error.find("budget.max_runtime") != std::string::npos ||
                                job.error.find("stopped by budget") != std::string::npos;
  return budget ? "budget-stop" : to_string(job.state);
}

void price_pods(JobReport& r, std::vector<PodRecord> pods) {
  BillingRule rule{r.facts.billing_increment_s, r.facts.billing_minimum_s, "", ""};
  bool any_created = false;
  for (PodRecord& p : pods) {
    PodCost c{std::move(p)};
    const bool failed = c.pod.state == PodRecordState::kCreateFailed;
    c.confirmed_deleted = c.pod.state == PodRecordState::kDeleted || failed;
    const int64_t end = c.pod.deleted_ms ? c.pod.deleted_ms : r.as_of_ms;
    c.lifetime_s = failed ? 0 : std::max<int64_t>(0, end - c.pod.created_ms) / 1000.0;
    // No recorded rule (older jobs): the measured lifetime, as reports always showed it. A pod
    // a fleet fallback put on another provider: that provider's rule (ReportFacts).
    BillingRule own = rule;
    if (auto it = r.facts.billing_by_provider.find(c.pod.provider);
        it != r.facts.billing_by_provider.end())
      own = {it->second.first, it->second.second, "", ""};
    c.billed_s = own.increment_s > 0 ? billed_seconds(own, c.lifetime_s) : c.lifetime_s;
    c.usd = c.billed_s / 3600.0 * c.pod.usd_per_hour;
    any_created = any_created || !failed;
    r.rounding_s += c.billed_s - c.lifetime_s;
    if (c.pod.role == "cpu") {
      r.cpu_usd += c.usd;
    } else {
      r.gpu_usd += c.usd;
      r.gpu_billed_s += c.billed_s;
    }
    r.total_usd += c.usd;
    r.pods.push_back(std::move(c));
  }
  r.no_pod = !any_created;
}

// The prepare step's rows: where it ran, how, how long; its CPU pod's bill (named "...-prep").
void read_prepare(JobReport& r) {
  bool on_cpu = false;
  double step_s = 0;
  for (const PhaseRecord& p : r.phases) {
    if (p.phase == Phase::kPrepareCpu || p.phase == Phase::kDeletePrepareCpu) {
      on_cpu = true;
      r.prepare_s += seconds_of(p);
    }
    if (p.phase == Phase::kPrepare) {
      step_s = seconds_of(p);
      r.prepare_s += step_s;
      r.prepare_outcome = to_string(p.outcome);
      r.prepare = p.outcome == Outcome::kSkipped ? "skipped" : on_cpu ? "cpu-pod" : "gpu-pod";
    }
  }
  if (r.prepare.empty() && on_cpu) r.prepare = "cpu-pod";  // its pod failed before the step
  for (const PodCost& c : r.pods) {
    auto name = parse_pod_name(c.pod.name);
    if (name && name->role == "prep") r.prepare_usd += c.usd;
  }
  if (r.prepare == "gpu-pod") r.prepare_usd = step_s / 3600.0 * r.facts.gpu_usd_per_hour;
}

void read_phases(JobReport& r) {
  for (const PhaseRecord& p : r.phases) {
    const double s = seconds_of(p);
    if (p.phase == Phase::kRun) r.compute_s += s;
    if (p.phase == Phase::kProvision || p.phase == Phase::kWaitSsh || p.phase == Phase::kSetup)
      r.cold_start_s += s;
    if (p.phase == Phase::kSync) r.sync_s += s;
    // Which upload phase ran says where the hand-off went and how; the choice and its reason
    // are the job's recorded facts (report/job_facts.h), never read back from phase text.
    if (p.phase == Phase::kUploadOnGpu || p.phase == Phase::kUploadLocal) {
      r.handoff = to_string(p.phase == Phase::kUploadLocal ? Handoff::kLocal : Handoff::kGpuPod);
      r.handoff_outcome = to_string(p.outcome);
    }
  }
  if (r.handoff.empty()) r.handoff = r.facts.handoff;
  r.handoff_why = r.facts.handoff_why;
  read_prepare(r);
}

// A job recorded before burst kept typed facts (no JobRecord::stop) has phase rows without their
// worker and deviation (PhaseRecord::worker, ::deviation): those are read from the rows' detail
// words, as reports always read them, so old reports do not change. A worker's provision row said
// this before the line of a fleet fallback (kDeviationMarker in job/job_types.h: the report reads
// rows, not the runner's headers).
constexpr const char* kWorkerDeviationMarker = "deviated from the plan: ";

// The worker index of an old phase row's detail "w<i>: ...", or -1.
int worker_of_detail(const std::string& detail) {
  if (detail.size() < 3 || detail[0] != 'w') return -1;
  size_t i = 1;
  int index = 0;
  while (i < detail.size() && i < 8 && detail[i] >= '0' && detail[i] <= '9')
    index = index * 10 + (detail[i++] - '0');
  return i > 1 && i < detail.size() && detail[i] == ':' ? index : -1;
}

bool recorded_before_typed_facts(const JobRecord& job) { return !job.stop.has_value(); }

// The worker whose row this is, or -1: typed, or (an old job's row) from its detail.
int worker_of(const PhaseRecord& p, bool old_job) {
  if (p.worker) return *p.worker;
  return old_job ? worker_of_detail(p.detail) : -1;
}

// What a fleet fallback changed, from a worker's provision row: typed, or (an old job's row) the
// detail after the marker. nullopt when the row says nothing of it.
std::optional<std::string> deviation_of(const PhaseRecord& p, bool old_job) {
  if (p.phase != Phase::kProvision) return std::nullopt;
  if (p.worker || !old_job)
    return p.deviation.empty() ? std::nullopt : std::optional<std::string>(p.deviation);
  const size_t at = p.detail.find(kWorkerDeviationMarker);
  if (at == std::string::npos) return std::nullopt;
  return p.detail.substr(at + std::string_view(kWorkerDeviationMarker).size());
}

void read_workers(JobReport& r) {
  const int k = r.facts.workers;
  if (k <= 1) return;
  const bool old_job = recorded_before_typed_facts(r.job);
  r.workers.resize(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) {
    WorkerRow& w = r.workers[static_cast<size_t>(i)];
    w.index = i;
    const auto n = static_cast<long>(r.facts.split_items);
    w.items = n * (i + 1) / k - n * i / k;  // the contiguous shards (plan/worker_shards.h)
  }
  for (const PodCost& c : r.pods) {
    auto parts = parse_pod_name(c.pod.name);
    std::optional<int> i = parts ? worker_of_role(parts->role) : std::nullopt;
    if (!i || *i >= k || c.pod.state == PodRecordState::kCreateFailed) continue;
    WorkerRow& w = r.workers[static_cast<size_t>(*i)];
    w.pods.push_back(pod_label(c.pod));
    char price[32];
    std::snprintf(price, sizeof price, "$%.2f/h", c.pod.usd_per_hour);
    w.where.push_back(c.pod.provider + " " + c.pod.gpu_type + " at " + price);
    w.billed_s += c.billed_s;
    w.usd += c.usd;
  }
  for (const PhaseRecord& p : r.phases) {
    const int i = worker_of(p, old_job);
    if (i < 0 || i >= k) continue;
    WorkerRow& w = r.workers[static_cast<size_t>(i)];
    const double s = seconds_of(p);
    if (p.phase == Phase::kProvision || p.phase == Phase::kWaitSsh || p.phase == Phase::kSetup)
      w.cold_start_s += s;
    if (p.phase == Phase::kSync) w.sync_s += s;
    if (p.phase == Phase::kPull) w.pull_s += s;
    // The fleet fallback's line: the last one stands.
    if (std::optional<std::string> d = deviation_of(p, old_job)) w.deviation = std::move(*d);
    if (p.phase == Phase::kRun) {
      w.run_s += s;
      w.outcome = to_string(p.outcome);
    }
  }
  for (WorkerRow& w : r.workers)
    if (w.billed_s > 0) w.utilization = w.run_s / w.billed_s;
}

// Spot pods and preemptions, from the pods' price source and the phase rows' markers
// (plan/spot_risk.h: the runner writes them, the report reads rows).
void read_spot(JobReport& r) {
  // Per worker, its last takeover's view: what every earlier pod finished, what it was given.
  std::map<int, std::pair<long, long>> last;
  for (const PhaseRecord& p : r.phases) {
    const int w = worker_of(p, recorded_before_typed_facts(r.job));
    const std::string who = w >= 0 ? "w" + std::to_string(w) + ": " : "";
    if (const size_t at = p.detail.find(kPreemptionMarker); at != std::string::npos)
      r.preemptions.push_back(who +
                              p.detail.substr(at + std::string_view(kPreemptionMarker).size()));
    if (const size_t at = p.detail.find(kResumeMarker); at != std::string::npos) {
      long kept = 0, rerun = 0;
      const std::string rest = p.detail.substr(at + std::string_view(kResumeMarker).size());
      if (std::sscanf(rest.c_str(), "%ld items kept, %ld run again", &kept, &rerun) == 2)
        last[w] = {kept, rerun};
    }
  }
  for (const auto& [w, n] : last) {
    r.items_kept += n.first;
    r.items_rerun += n.second;
  }
  const std::string_view mark = kSpotPriceMark;
  for (const PodCost& c : r.pods) {
    const std::string& src = c.pod.price_source;
    if (c.pod.role != "gpu" || src.size() < mark.size() ||
        src.compare(src.size() - mark.size(), mark.size(), mark) != 0)
      continue;
    const double gap = r.facts.on_demand_usd_per_hour - c.pod.usd_per_hour;
    r.spot_saved_usd = r.spot_saved_usd.value_or(0) + std::max(0.0, gap) * c.billed_s / 3600.0;
  }
}

void compare(JobReport& r) {
  if (r.gpu_billed_s > 0) r.utilization = r.compute_s / r.gpu_billed_s;
  for (const TransferRecord& t : r.transfers)
    if (t.direction == "pull" || t.direction == "sync")  // not a warm volume's timed read
      (t.direction == "pull" ? r.bytes_pulled : r.bytes_synced) += t.bytes;
  r.estimate = parse_estimate(r.estimate_json);
  if (r.estimate.upload_usd_per_gb > 0)
    r.pulled_transfer_usd =
        static_cast<double>(r.bytes_pulled) / 1e9 * r.estimate.upload_usd_per_gb;
  // A job that stopped early did not do the estimated work: no error to report.
  if (r.estimate.known && r.outcome == "succeeded") {
    r.usd_error_pct = error_pct(r.total_usd, r.estimate.pods_usd());
    r.gpu_time_error_pct = error_pct(r.gpu_billed_s, r.estimate.billed_s);
    if (r.estimate.run_known) r.run_error_pct = error_pct(r.compute_s, r.estimate.run_s);
  }
  r.budget_transfer_usd = r.estimate.transfer_usd + r.pulled_transfer_usd.value_or(0);
  if (r.facts.budget_usd && *r.facts.budget_usd > 0)
    r.budget_used_pct = (r.total_usd + r.budget_transfer_usd) / *r.facts.budget_usd * 100.0;
  if (r.facts.deadline_s && *r.facts.deadline_s > 0 && r.job.finished_ms)
    r.deadline_slack_pct = (1 - r.wall_s / *r.facts.deadline_s) * 100.0;
  r.items = r.facts.split_items > 0        ? r.facts.split_items
            : r.facts.unit_name == "items" ? static_cast<long>(r.facts.units)
                                           : 0;
  if (r.items > 0 && r.outcome == "succeeded") r.usd_per_item = r.total_usd / r.items;
}

// Which time limit stopped the job, from its error, and the phase that ran out: the first row
// that failed (the job's error is the first failure's).
std::optional<StoppedBy> stopped_by(const JobReport& r) {
  if (r.job.state == JobState::kSucceeded) return std::nullopt;
  auto stop = find_limit_stop(r.job.error);
  if (!stop) return std::nullopt;
  StoppedBy s{stop->limit, stop->seconds, ""};
  for (const PhaseRecord& p : r.phases)
    if (p.outcome && *p.outcome != Outcome::kOk && *p.outcome != Outcome::kSkipped) {
      s.phase = to_string(p.phase);
      break;
    }
  return s;
}

}  // namespace

std::string pod_label(const PodRecord& pod) { return pod.pod_id.empty() ? pod.name : pod.pod_id; }

std::string phase_role(Phase phase) {
  switch (phase) {
    case Phase::kProvision:
    case Phase::kWaitSsh:
    case Phase::kSync:
    case Phase::kSetup:
    case Phase::kRun:
    case Phase::kPull:
    case Phase::kUploadOnGpu:
    case Phase::kDeleteGpu:
      return "gpu";
    case Phase::kCpuProvision:
    case Phase::kUpload:
    case Phase::kDeleteCpu:
    case Phase::kPrepareCpu:
    case Phase::kDeletePrepareCpu:
      return "cpu";
    default:
      return "";
  }
}

JobReport assemble_job_report(const JobRecord& job, std::vector<PhaseRecord> phases,
                              std::vector<PodRecord> pods, std::vector<TransferRecord> transfers,
                              TimePoint as_of) {
  JobReport r;
  r.job = job;
  r.facts = report_facts_from_json(job.facts_json);
  r.as_of_ms = to_unix_ms(as_of);
  r.outcome = outcome_of(job);
  r.phases = std::move(phases);
  r.transfers = std::move(transfers);
  r.estimate_json = job.estimate_json;
  price_pods(r, std::move(pods));
  read_phases(r);
  read_workers(r);
  read_spot(r);
  const int64_t end = r.job.finished_ms ? r.job.finished_ms : r.as_of_ms;
  r.wall_s = (end - r.job.created_ms) / 1000.0;
  compare(r);
  r.stopped_by = stopped_by(r);
  r.recommendations = recommend(r);
  return r;
}

Result<JobReport> build_job_report(Store& store, const std::string& job_id, TimePoint as_of) {
  auto job = store.get_job(job_id);
  if (!job.ok()) return job.error();
  auto phases = store.phases(job_id);
  if (!phases.ok()) return phases.error();
  auto pods = store.pods_of_job(job_id);
  if (!pods.ok()) return pods.error();
  auto transfers = store.transfers(job_id);
  if (!transfers.ok()) return transfers.error();
  auto replicas = store.replicas(job_id);
  if (!replicas.ok()) return replicas.error();
  JobReport r = assemble_job_report(*job, std::move(phases).value(), std::move(pods).value(),
                                    std::move(transfers).value(), as_of);
  r.replicas = std::move(replicas).value();
  return r;
}

}  // namespace burst

namespace burst {

std::vector<std::string> spot_lines(const JobReport& r) {
  std::vector<std::string> out;
  if (r.facts.spot_why.empty() && !r.spot_saved_usd && r.preemptions.empty()) return out;
  if (!r.facts.spot_why.empty()) out.push_back("plan: " + r.facts.spot_why);
  out.push_back(std::to_string(r.preemptions.size()) +
                (r.preemptions.size() == 1 ? " preemption" : " preemptions"));
  for (const std::string& p : r.preemptions) out.push_back("preempted: " + p);
  if (!r.preemptions.empty())
    out.push_back("items: " + std::to_string(r.items_kept) +
                  " finished on preempted pods were kept (their done records), " +
                  std::to_string(r.items_rerun) + " run by the pods that finished the work");
  if (r.spot_saved_usd) {
    char b[160];
    std::snprintf(b, sizeof b, "spot saved $%.4f against on-demand at $%.2f/h", *r.spot_saved_usd,
                  r.facts.on_demand_usd_per_hour);
    out.push_back(b);
  }
  return out;
}

std::vector<std::string> replica_lines(const JobReport& r) {
  std::vector<std::string> out;
  for (const ReplicaRecord& x : r.replicas) {
    char b[256];
    std::string line = r.workers.empty() ? "" : "w" + std::to_string(x.worker) + " ";
    line += "replica " + std::to_string(x.replica) +
            (x.gpus.find(',') == std::string::npos ? " on GPU " : " on GPUs ") + x.gpus + ": ";
    if (x.items > 0) line += std::to_string(x.items) + " items, ";
    if (x.step_ms > 0)
      std::snprintf(b, sizeof b, "busy %.0f s of the step's %.0f s (%.0f%%)", x.run_ms / 1000.0,
                    x.step_ms / 1000.0, 100.0 * static_cast<double>(x.run_ms) / x.step_ms);
    else
      std::snprintf(b, sizeof b, "busy %.0f s", x.run_ms / 1000.0);
    line += b;
    if (x.gpu_util_pct) {
      std::snprintf(b, sizeof b, ", GPU utilisation %.0f%% (%lld samples)", *x.gpu_util_pct,
                    static_cast<long long>(x.gpu_util_samples));
      line += b;
    } else {
      line += ", no GPU utilisation sample";
    }
    out.push_back(line + ", exit " + std::to_string(x.exit_status));
  }
  return out;
}

std::string owned_hosts_text(const JobReport& r) {
  std::string pods;
  double usd = 0;
  for (const PodCost& c : r.pods)
    if (c.pod.price_source.rfind("owned", 0) == 0) {
      pods += (pods.empty() ? "" : ", ") + c.pod.pod_id;
      usd += c.usd;
    }
  if (pods.empty()) return "";
  std::string text = "pods " + pods + ": " + report_fmt::money(usd) +
                     " of owned cost (in the total; no cloud bills it)";
  if (const std::string lost = lost_own_host_pods(r); !lost.empty())
    text += "; lost mid-job: " + lost +
            " (its host stopped answering; `burst reap` releases it once it answers)";
  return text;
}

std::string lost_own_host_pods(const JobReport& r) {
  std::string lost;
  if (r.job.finished_ms == 0) return lost;  // a running job's pods are not deleted yet
  for (const PodCost& c : r.pods)
    if (c.pod.price_source.rfind("owned", 0) == 0 && !c.confirmed_deleted)
      lost += (lost.empty() ? "" : ", ") + c.pod.pod_id;
  return lost;
}

}  // namespace burst
