// `burst reap`: delete every pod that is ours and still alive, whether the store or only the
// provider's own list knows it. Pods of a job whose `burst run` process is still alive on this
// machine are left alone: that process will delete them itself. A job whose process died (kill -9,
// a crash) is still recorded `running`: reap records it as failed, saying what it deleted.
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "app/finish.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "job/pod_lifecycle.h"
#include "registry.h"

namespace burst {
namespace {

bool owner_alive(Store& store, const std::string& job_id) {
  auto job = store.get_job(job_id);
  if (!job.ok() || job->state != "running" || job->owner_pid <= 0) return false;
  if (job->owner_pid == getpid()) return false;
  return kill(static_cast<pid_t>(job->owner_pid), 0) == 0;
}

// "burst-<job id>-<role>" -> job id and role.
void parse_name(const std::string& name, PodRecord* rec) {
  std::string rest = name.substr(std::string(kPodNamePrefix).size());
  size_t dash = rest.rfind('-');
  rec->job_id = dash == std::string::npos ? rest : rest.substr(0, dash);
  rec->role = dash == std::string::npos ? "unknown" : rest.substr(dash + 1);
}

// Records a pod found only in the provider's list (and its job, if the store lost that too), so
// the deletion and its cost are on record like any other.
void adopt(Store& store, Clock& clock, PodRecord* rec) {
  if (!store.get_job(rec->job_id).ok()) {
    JobRecord job;
    job.id = rec->job_id;
    job.pipeline = "(unknown)";
    job.state = "failed";
    job.phase = "reap";
    job.provider = rec->provider;
    job.error = "adopted by burst reap: the store had no record of this job";
    job.created_ms = job.finished_ms = to_unix_ms(clock.now());
    (void)store.create_job(job);
  }
  auto row = store.add_pod(*rec);
  if (row.ok()) rec->row_id = *row;
}

// The job's runner is gone while the job is still recorded `running`: close its open phases,
// record it as failed with what reap did to its pods (`deleted`: one line per pod), and rewrite
// its report from the store. Returns the job's error.
std::string close_orphaned_job(Store& store, Clock& clock, const Config& config, JobRecord job,
                               const std::string& deleted, bool all_deleted) {
  const int64_t now = to_unix_ms(clock.now());
  std::string open = job.phase;
  if (auto phases = store.phases(job.id); phases.ok())
    for (const auto& p : *phases)
      if (p.ended_ms == 0) {
        open = p.phase;
        (void)store.end_phase(job.id, p.phase, now, "interrupted",
                              "the burst process stopped during this phase");
      }
  job.state = "failed";
  job.error = "the process running it (pid " + std::to_string(job.owner_pid) +
              ") stopped during phase " + open + "; burst reap failed the job; " +
              (deleted.empty() ? "no pod was alive" : deleted) +
              (all_deleted ? "" : " (run `burst reap` again)");
  job.finished_ms = now;
  (void)store.update_job(job);
  (void)write_job_reports(store, config.reports_dir, job.id, clock.now());  // app/finish.h
  return job.error;
}

}  // namespace

int cmd_reap(const ReapArgs& args) {
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  auto store = open_store(*config);
  if (!store.ok()) return fail(kExitConfig, store.error().message);
  SystemClock clock;
  auto live = (*store)->live_pods();
  if (!live.ok()) return fail(kExitFailure, live.error().message);

  std::vector<PodRecord> targets = *live;
  std::set<std::string> known;
  for (const auto& p : targets)
    known.insert(p.provider + "/" + (p.pod_id.empty() ? p.name : p.pod_id));
  std::map<std::string, std::unique_ptr<Provider>> providers;
  std::map<std::string, std::string> unreachable;  // provider -> why reap cannot act there
  int errors = 0;
  for (const auto& entry : provider_table()) {
    // A cloud with no API key cannot have pods of ours to list: skip it rather than fail, but a
    // pod the store knows there is reported as left alive, never silently dropped.
    if (auto c = config->clouds.find(entry.name);
        c != config->clouds.end() && c->second.api_key.empty()) {
      unreachable[entry.name] = "no API key configured for " + std::string(entry.name);
      continue;
    }
    auto provider = make_provider(entry.name, *config, clock);
    if (!provider.ok()) {  // driver not built or not configured
      unreachable[entry.name] = provider.error().message;
      continue;
    }
    auto pods = (*provider)->list_pods();
    if (!pods.ok()) {
      std::cerr << "burst: " << entry.name << ": list pods: " << pods.error().message << "\n";
      ++errors;
    } else {
      for (const Pod& pod : *pods) {
        if (known.count(std::string(entry.name) + "/" + pod.id) ||
            known.count(std::string(entry.name) + "/" + pod.name))
          continue;
        PodRecord rec;  // ours by name, unknown to the store: adopt it so its fate is recorded
        rec.provider = entry.name;
        rec.pod_id = pod.id;
        rec.name = pod.name;
        rec.gpu_type = pod.gpu_type;
        rec.usd_per_hour = pod.usd_per_hour;
        rec.price_source = "adopted by reap";
        rec.state = "alive";
        rec.created_ms = to_unix_ms(clock.now());
        parse_name(pod.name, &rec);
        targets.push_back(rec);
      }
    }
    providers[entry.name] = std::move(*provider);
  }

  nlohmann::json out = nlohmann::json::array();
  std::map<std::string, std::pair<std::string, bool>> by_job;  // job -> pods deleted, all ok
  for (PodRecord& rec : targets) {
    std::string outcome;
    if (owner_alive(**store, rec.job_id)) {
      outcome = "skipped: job " + rec.job_id + " is still running in another burst process";
    } else if (!providers.count(rec.provider)) {
      auto why = unreachable.find(rec.provider);
      outcome = "NOT deleted (it may still be billing): " +
                (why != unreachable.end() ? why->second : "no " + rec.provider + " driver");
      ++errors;
    } else if (args.dry_run) {
      outcome = "would delete";
    } else {
      if (rec.row_id == 0) adopt(**store, clock, &rec);
      Status st = delete_and_verify(**store, *providers[rec.provider], clock, &rec);
      outcome = st.ok() ? "deleted (confirmed)" : "FAILED: " + st.error().message;
      if (!st.ok()) ++errors;
    }
    std::string id = rec.pod_id.empty() ? rec.name : rec.pod_id;
    if (!args.dry_run && outcome.rfind("skipped", 0) != 0) {
      auto& [lines, all_ok] = by_job.try_emplace(rec.job_id, "", true).first->second;
      lines += (lines.empty() ? "" : "; ") + rec.role + " pod " + id + " " + outcome;
      all_ok = all_ok && outcome == "deleted (confirmed)";
    }
    if (!args.json)
      std::cout << rec.provider << " " << id << " (job " << rec.job_id << "): " << outcome << "\n";
    out.push_back(
        {{"provider", rec.provider}, {"pod", id}, {"job_id", rec.job_id}, {"outcome", outcome}});
  }
  if (!args.dry_run) {
    auto jobs = (*store)->recent_jobs(1000);
    for (const JobRecord& job : jobs.ok() ? *jobs : std::vector<JobRecord>{}) {
      if (job.state != "running" || owner_alive(**store, job.id)) continue;
      auto it = by_job.find(job.id);
      std::string why = close_orphaned_job(**store, clock, *config, job,
                                           it == by_job.end() ? "" : it->second.first,
                                           it == by_job.end() || it->second.second);
      if (!args.json) std::cout << "job " << job.id << ": recorded as failed: " << why << "\n";
    }
  }
  if (args.json)
    std::cout << out.dump(2) << std::endl;
  else if (targets.empty())
    std::cout << "no live pods\n";
  return errors ? kExitFailure : kExitOk;
}

}  // namespace burst
