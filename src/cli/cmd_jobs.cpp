// `burst jobs`: recent jobs from the store, with what they cost.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "report/job_report.h"

namespace burst {

int cmd_jobs(int limit, bool json) {
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  auto store = open_store(*config);
  if (!store.ok()) return fail(kExitConfig, store.error().message);
  auto jobs = (*store)->recent_jobs(limit);
  if (!jobs.ok()) return fail(kExitFailure, jobs.error().message);
  SystemClock clock;
  nlohmann::json out = nlohmann::json::array();
  if (!json && !jobs->empty())
    std::printf("%-22s %-16s %-12s %-15s %-8s %9s %9s\n", "JOB", "PIPELINE", "STATE", "PHASE",
                "PROVIDER", "SECONDS", "COST");
  for (const JobRecord& j : *jobs) {
    auto r = build_job_report(**store, j.id, clock.now());
    double usd = r.ok() ? r->total_usd : 0;
    double secs = r.ok() ? r->wall_s : 0;
    if (json) {
      out.push_back({{"id", j.id},
                     {"pipeline", j.pipeline},
                     {"state", to_string(j.state)},
                     {"phase", j.phase},
                     {"provider", j.provider},
                     {"started", format_utc(from_unix_ms(j.created_ms))},
                     {"seconds", secs},
                     {"usd", usd},
                     {"error", j.error},
                     {"report", j.report_path}});
    } else {
      std::printf("%-22s %-16s %-12s %-15s %-8s %9.1f %9.4f\n", j.id.c_str(), j.pipeline.c_str(),
                  to_string(j.state), j.phase.c_str(), j.provider.c_str(), secs, usd);
    }
  }
  if (json)
    std::cout << out.dump(2) << std::endl;
  else if (jobs->empty())
    std::cout << "no jobs yet\n";
  return kExitOk;
}

}  // namespace burst
