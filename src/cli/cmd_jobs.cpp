// `burst jobs`: recent jobs from the store, with what they cost.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/job_json.h"
#include "cli/table.h"
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
  Table table({{"JOB"},
               {"PIPELINE"},
               {"STATE"},
               {"PHASE"},
               {"PROVIDER"},
               {"SECONDS", Table::kRight},
               {"COST", Table::kRight}});
  for (const JobRecord& j : *jobs) {
    auto r = build_job_report(**store, j.id, clock.now());
    double usd = r.ok() ? r->total_usd : 0;
    double secs = r.ok() ? r->wall_s : 0;
    if (json) {
      out.push_back(job_json(j, r.ok() ? &*r : nullptr));
    } else {
      char s[32], u[32];
      std::snprintf(s, sizeof s, "%.1f", secs);
      std::snprintf(u, sizeof u, "$%.4f", usd);
      table.add({j.id, j.pipeline, to_string(j.state), to_string(j.phase), j.provider, s, u});
    }
  }
  if (json)
    std::cout << out.dump(2) << std::endl;
  else if (jobs->empty())
    std::cout << "no jobs yet\n";
  else
    std::cout << table.render();
  return kExitOk;
}

}  // namespace burst
