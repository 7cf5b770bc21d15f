// burst: the CLI. Subcommands are a table of CLI11 apps; each maps to one cmd_* function.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"burst: run a pipeline on the cheapest adequate cloud GPU, then delete it"};
  app.set_version_flag("--version", std::string("burst ") + BURST_VERSION);
  app.require_subcommand(1);

  burst::RunArgs run;
  auto* run_cmd =
      app.add_subcommand("run", "Plan and run a pipeline; pods are deleted on every exit path");
  run_cmd->add_option("file", run.spec, "pipeline spec (YAML)")->required();
  run_cmd->add_option("--provider", run.provider,
                      "use this provider instead of resources.providers");
  run_cmd->add_flag("-y,--yes", run.yes, "do not ask before spending money");
  run_cmd->add_flag("--json", run.json, "print the outcome as JSON");
  run_cmd->add_flag("-q,--quiet", run.quiet, "print only errors and the outcome");

  std::string validate_file;
  bool validate_json = false;
  auto* validate_cmd = app.add_subcommand("validate", "Check a pipeline spec; creates nothing");
  validate_cmd->add_option("file", validate_file, "pipeline spec (YAML)")->required();
  validate_cmd->add_flag("--json", validate_json, "print the result as JSON");

  burst::ReapArgs reap;
  auto* reap_cmd = app.add_subcommand("reap", "Delete every pod of ours that is still alive");
  reap_cmd->add_flag("--json", reap.json, "print the outcome as JSON");
  reap_cmd->add_flag("--dry-run", reap.dry_run, "list what would be deleted");

  int jobs_limit = 20;
  bool jobs_json = false;
  auto* jobs_cmd = app.add_subcommand("jobs", "List recent jobs");
  jobs_cmd->add_option("-n,--limit", jobs_limit, "how many");
  jobs_cmd->add_flag("--json", jobs_json, "print as JSON");

  burst::PlanArgs plan;
  auto* plan_cmd =
      app.add_subcommand("plan", "Price every candidate GPU for a spec; creates nothing");
  plan_cmd->add_option("file", plan.spec, "pipeline spec (YAML)")->required();
  plan_cmd->add_option("--provider", plan.provider,
                       "use this provider instead of resources.providers");
  plan_cmd->add_flag("--json", plan.json, "print as JSON");
  plan_cmd->add_flag("--all", plan.all, "include rejected candidates and why");

  bool gpus_json = false;
  auto* gpus_cmd = app.add_subcommand("gpus", "List the GPU catalog");
  gpus_cmd->add_flag("--json", gpus_json, "print as JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : burst::kExitUsageCode;
  }
  if (*run_cmd) return burst::cmd_run(run);
  if (*validate_cmd) return burst::cmd_validate(validate_file, validate_json);
  if (*reap_cmd) return burst::cmd_reap(reap);
  if (*jobs_cmd) return burst::cmd_jobs(jobs_limit, jobs_json);
  if (*plan_cmd) return burst::cmd_plan(plan);
  if (*gpus_cmd) return burst::cmd_gpus(gpus_json);
  return burst::kExitUsageCode;
}
