// `burst run FILE`: validate, plan, confirm, run the job, report. Nothing is created anywhere
// until the spec, the config, the secrets and the plan have all been checked.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "burst/ssh_keys.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/offers.h"
#include "cli/spec_errors.h"
#include "job/job_runner.h"

namespace burst {
namespace {

std::string money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", usd);
  return buf;
}

// Reads each secret from the environment; a required one that is missing stops the run here.
bool collect_secrets(const PipelineSpec& spec, std::map<std::string, std::string>* out) {
  auto env = environment_map();
  bool ok = true;
  for (size_t i = 0; i < spec.secrets.size(); ++i) {
    const SecretRef& s = spec.secrets[i];
    auto it = env.find(s.name);
    if (it != env.end() && !it->second.empty()) {
      (*out)[s.name] = it->second;
      if (it->second.size() < 4)
        std::cerr << "burst: warning: secret " << s.name
                  << " is shorter than 4 characters and will not be redacted from output\n";
    } else if (!s.optional) {
      std::cerr << spec.path << ":" << s.pos.line << ":" << s.pos.column << ": secrets[" << i
                << "]: " << s.name << " is not set in your environment\n";
      ok = false;
    }
  }
  return ok;
}

// Whether an earlier job of this pipeline succeeded, leaving its weights on the volume.
bool volume_used_before(const Config& config, const PipelineSpec& spec) {
  if (access(config.db_path.c_str(), F_OK) != 0) return false;  // plan creates nothing
  auto store = open_sqlite_store(config.db_path);
  if (!store.ok()) return false;
  auto jobs = (*store)->recent_jobs(200);
  if (!jobs.ok()) return false;
  for (const auto& j : *jobs)
    if (j.pipeline == spec.name && j.state == "succeeded") return true;
  return false;
}

void print_plan(const PipelineSpec& spec, const Plan& plan) {
  const Estimate& e = plan.estimate;
  std::cout << "plan for " << spec.name << ":\n"
            << "  GPU pod: " << plan.gpu.provider << " " << plan.gpu.gpu_type << " x"
            << std::max(1, spec.resources.gpu_count) << " at " << money(plan.gpu.usd_per_hour)
            << "/h (" << plan.gpu.price_source << ")\n";
  if (plan.cpu)
    std::cout << "  upload:  " << plan.cpu->provider << " CPU pod at "
              << money(plan.cpu->usd_per_hour) << "/h\n";
  if (plan.handoff && spec.upload) std::cout << "  hand-off: " << plan.handoff->why << "\n";
  std::cout << "  volume:  " << spec.volume.name << " (" << spec.volume.size_gb << " GB)\n"
            << "  estimate: " << static_cast<long>(e.total_s) << " s of GPU time, " << money(e.usd)
            << "  [" << e.basis << "]\n";
  if (spec.budget.max_usd) std::cout << "  budget:  " << money(*spec.budget.max_usd) << "\n";
}

}  // namespace

int cmd_run(const RunArgs& args) {
  auto spec = load_spec_or_print(args.spec);
  if (!spec.ok()) return kExitUsage;
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  std::map<std::string, std::string> secrets;
  if (!collect_secrets(*spec, &secrets)) return kExitUsage;

  SystemClock clock;
  auto sources = gather_offers(*spec, args.provider, *config, clock, /*offline_table=*/false);
  if (!sources.ok()) return fail(kExitUsage, sources.error().message);
  PlanInput& input = sources->input;
  input.warm_volume = volume_used_before(*config, *spec);
  input.max_workers = 1;  // the runner drives one GPU pod; `burst plan` shows wider splits
  ScanResult code;
  if (!spec->code.dir.empty()) {
    auto scanned = scan_code_dir(spec->code);
    if (!scanned.ok()) return fail(kExitUsage, args.spec + ": " + scanned.error().message);
    code = std::move(*scanned);
    input.code_bytes = static_cast<long>(code.bytes);
  }
  auto plan = make_plan(*spec, input);
  if (!plan.ok())
    return fail(plan.error().code == ErrorCode::kInvalid ? kExitUsage : kExitFailure,
                plan.error().message);
  if (!args.json) print_plan(*spec, *plan);
  const bool costs_money = plan->gpu.usd_per_hour > 0 || (plan->cpu && plan->cpu->usd_per_hour > 0);
  auto console = make_terminal_console(args.quiet || args.json);
  if (costs_money && !args.yes && !console->confirm("Start this job?"))
    return fail(kExitFailure,
                "not confirmed; nothing was created (pass --yes to skip the question)");

  auto key = ensure_keypair(config->ssh_key);
  if (!key.ok()) return fail(kExitConfig, key.error().message);
  auto store = open_store(*config);
  if (!store.ok()) return fail(kExitConfig, store.error().message);
  auto connector = make_libssh_connector();
  install_signal_handlers();

  JobInput in{new_job_id(clock.now()), *spec, *plan, std::move(code), secrets, *key};
  const std::string job_id = in.job_id;
  JobDeps deps{
      **store, clock, *connector, *sources->providers[plan->gpu.provider], *console, *config, [] {
        return g_interrupts.load();
      }};
  JobResult result = JobRunner(deps, std::move(in)).run();

  if (args.json) {
    nlohmann::json out = {{"job_id", job_id},
                          {"state", result.state},
                          {"error", result.error},
                          {"report", result.report_json_path}};
    std::cout << out.dump(2) << std::endl;
  } else if (!result.error.empty()) {
    std::cerr << "burst: job " << job_id << " " << result.state << ": " << result.error << "\n";
  }
  if (result.state == "succeeded") return kExitOk;
  if (result.state == "interrupted") return kExitInterrupted;
  return kExitFailure;
}

}  // namespace burst
