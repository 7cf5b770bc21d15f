// `burst reap`: options and printing around the one reaper (app/reaper.h). It deletes every pod
// of this installation still alive, whether the store or only the provider's own list knows it
// (the latter once it has been seen for --grace); pods of a job whose runner is alive (the
// reaper's one rule: a daemon's lease, else pid + start time on its own host) are left to it,
// and a job whose runner died is recorded as failed. Other installations' pods are left alone
// unless
// --all-installations, which asks first (or takes --yes).
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/reaper.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "registry.h"
#include "util/duration.h"
#include "util/ssh_hosts_file.h"

namespace burst {
namespace {

// Whether the user agrees to delete other installations' pods (their jobs may be running).
bool confirmed(Reaper& reaper, const ReapArgs& args) {
  if (!args.all_installations || args.dry_run || args.yes) return true;
  auto foreign = reaper.foreign_pods();
  if (foreign.empty()) return true;
  std::cerr << "These pods belong to other installations (state dirs) or to none; their jobs may "
               "still be running:\n";
  for (const PodAction& a : foreign)
    std::cerr << "  " << a.provider << " " << a.pod << " (job " << a.job_id << ")\n";
  return make_terminal_console(false)->confirm("Delete them too?");
}

}  // namespace

int cmd_reap(const ReapArgs& args) {
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  auto store = open_store(*config);
  if (!store.ok()) return fail(kExitConfig, store.error().message);
  SystemClock clock;
  ReaperDeps deps{**store, clock, {}, {}, {}, config->reports_dir, "burst reap"};
  for (const auto& entry : provider_table()) deps.providers.push_back(entry.name);
  deps.make_provider = [&](const std::string& name) -> Result<std::unique_ptr<Provider>> {
    // A cloud with no API key cannot have pods of ours to list; a pod the store knows there is
    // reported as left alive, never silently dropped.
    if (auto c = config->clouds.find(name); c != config->clouds.end() && c->second.api_key.empty())
      return make_error(ErrorCode::kAuth, "no API key configured for " + name);
    return make_provider(name, *config, clock);
  };
  Reaper reaper(deps);
  if (!confirmed(reaper, args))
    return fail(kExitUsage, "not confirmed; nothing was deleted (pass --yes to skip the question)");

  const auto grace = args.grace == "0" ? std::optional<double>(0) : parse_duration(args.grace);
  if (!grace || *grace < 0)
    return fail(kExitUsage, "--grace: not a duration: \"" + args.grace + "\" (e.g. 10m, 0)");
  ReapOptions options;
  // A pod of ours the store does not know may be one a teammate's job is creating right now: it
  // gets the grace burstd's orphan sweep gives it (app/reaper.h), unless --grace 0.
  options.orphan_grace = std::chrono::milliseconds(static_cast<int64_t>(*grace * 1000));
  options.dry_run = args.dry_run;
  options.all_installations = args.all_installations;
  std::vector<std::string> failed_jobs;
  const auto actions = reaper.reap(options, &failed_jobs);

  int errors = 0;
  nlohmann::json out = nlohmann::json::array();
  for (const PodAction& a : actions) {
    if (a.kind == ReapOutcome::kFailed) ++errors;
    if (a.kind == ReapOutcome::kDeleted)  // its `ssh burst-<job>` entry goes with it
      (void)remove_ssh_hosts(ssh_hosts_path(config->config_dir), "", a.pod);
    if (!args.json)
      std::cout << a.provider << " " << a.pod << (a.job_id.empty() ? "" : " (job " + a.job_id + ")")
                << ": " << a.outcome << "\n";
    out.push_back(
        {{"provider", a.provider}, {"pod", a.pod}, {"job_id", a.job_id}, {"outcome", a.outcome}});
  }
  if (args.json) {
    std::cout << out.dump(2) << std::endl;
  } else {
    for (const auto& line : failed_jobs) std::cout << line << "\n";
    if (actions.empty()) std::cout << "no live pods\n";
  }
  return errors ? kExitFailure : kExitOk;
}

}  // namespace burst
