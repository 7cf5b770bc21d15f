// burst: the CLI. Subcommands are a table of CLI11 apps; each maps to one cmd_* function.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "cli/command_suggest.h"
#include "cli/commands.h"
#include "util/fault_point.h"

namespace {

// --format and --env, on every command that reads a spec file.
void add_spec_flags(CLI::App* cmd, burst::SpecFlags& flags) {
  cmd->add_option("--format", flags.format,
                  "burst | skypilot (default: recognised by the file's keys)");
  cmd->add_option("--env", flags.env,
                  "K=V: set or replace an env value (K alone: take it from this shell); "
                  "repeatable");
}

std::vector<std::string> command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* c : app.get_subcommands([](CLI::App*) { return true; }))
    names.push_back(c->get_name());
  return names;
}

// "burst: unknown command 'x'; did you mean 'y'?" and the list of commands; exit 2.
int unknown_command(CLI::App& app, const std::string& typed) {
  std::vector<std::string> names = command_names(app);
  std::string line = "burst: unknown command '" + typed + "'";
  if (std::optional<std::string> guess = burst::suggest_command(typed, names))
    line += "; did you mean '" + *guess + "'?";
  std::cerr << line << "\ncommands:\n";
  for (const CLI::App* c : app.get_subcommands([](CLI::App*) { return true; }))
    std::fprintf(stderr, "  %-10s %s\n", c->get_name().c_str(), c->get_description().c_str());
  std::cerr << "(burst help COMMAND shows a command's flags)\n";
  return burst::kExitUsageCode;
}

bool is_command(CLI::App& app, const std::string& name) {
  std::vector<std::string> names = command_names(app);
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"burst: run a pipeline on the cheapest adequate cloud GPU, then delete it"};
  app.set_version_flag("--version", std::string("burst ") + BURST_VERSION);
  app.require_subcommand(1);

  burst::RunArgs run;
  auto* run_cmd =
      app.add_subcommand("run", "Plan and run a pipeline; pods are deleted on every exit path");
  run_cmd->add_option("file", run.spec, "pipeline spec (YAML, or a SkyPilot task)")->required();
  add_spec_flags(run_cmd, run.spec_flags);
  run_cmd->add_option("--provider", run.provider,
                      "use this provider instead of resources.providers");
  run_cmd->add_flag("-y,--yes", run.yes, "do not ask before spending money");
  run_cmd->add_flag("--json", run.json, "print the outcome as JSON");
  run_cmd->add_flag("-q,--quiet", run.quiet, "print only errors and the outcome");

  burst::ValidateArgs validate;
  auto* validate_cmd = app.add_subcommand("validate", "Check a pipeline spec; creates nothing");
  validate_cmd->add_option("file", validate.spec, "pipeline spec (YAML, or a SkyPilot task)")
      ->required();
  validate_cmd->add_flag("--json", validate.json, "print the result as JSON");
  add_spec_flags(validate_cmd, validate.spec_flags);

  burst::ConvertArgs convert;
  auto* convert_cmd = app.add_subcommand(
      "convert", "Print the burst spec equivalent to a SkyPilot task file; creates nothing");
  convert_cmd->add_option("file", convert.spec, "SkyPilot task file (or a burst spec)")->required();
  add_spec_flags(convert_cmd, convert.spec_flags);

  burst::ReapArgs reap;
  auto* reap_cmd = app.add_subcommand("reap", "Delete every pod of ours that is still alive");
  reap_cmd->add_flag("--json", reap.json, "print the outcome as JSON");
  reap_cmd->add_flag("--dry-run", reap.dry_run, "list what would be deleted");
  reap_cmd->add_flag("--all-installations", reap.all_installations,
                     "also delete other installations' pods (asks first)");
  reap_cmd->add_flag("-y,--yes", reap.yes, "do not ask before --all-installations deletes");

  int jobs_limit = 20;
  bool jobs_json = false;
  auto* jobs_cmd = app.add_subcommand("jobs", "List recent jobs");
  jobs_cmd->add_option("-n,--limit", jobs_limit, "how many");
  jobs_cmd->add_flag("--json", jobs_json, "print as JSON");

  burst::PlanArgs plan;
  auto* plan_cmd =
      app.add_subcommand("plan", "Price every candidate GPU for a spec; creates nothing");
  plan_cmd->add_option("file", plan.spec, "pipeline spec (YAML, or a SkyPilot task)")->required();
  add_spec_flags(plan_cmd, plan.spec_flags);
  plan_cmd->add_option("--provider", plan.provider,
                       "use this provider instead of resources.providers");
  plan_cmd->add_flag("--json", plan.json, "print as JSON");
  plan_cmd->add_flag("--all", plan.all, "include rejected candidates and why");
  plan_cmd->add_option("--offers", plan.offers,
                       "price these offers (a JSON array) instead of asking the providers");

  burst::EstimateArgs est;
  auto* est_cmd = app.add_subcommand(
      "estimate", "Ad-hoc cost model: memory, time and cost per GPU type, without a spec");
  est_cmd->add_option("--params", est.params, "model parameters, e.g. 7B, 500M");
  est_cmd->add_option("--model", est.model,
                      "a built-in model shape, e.g. llama-3-8b, mixtral-8x7b");
  est_cmd->add_option("--mode", est.mode, "train | infer | diffusion")->required();
  est_cmd->add_option("--method", est.method, "train: full (default) | lora | qlora");
  est_cmd->add_option("--precision", est.precision, "fp32 | fp16 | bf16 | fp8 | int8 | int4");
  est_cmd->add_option("--tokens", est.tokens,
                      "train: tokens to process; infer: tokens to generate (e.g. 1M)");
  est_cmd->add_option("--context", est.context, "context length in tokens");
  est_cmd->add_option("--concurrency", est.concurrency, "infer: sequences decoded together");
  est_cmd->add_option("--items", est.items, "diffusion: items to generate");
  est_cmd->add_option("--steps", est.steps, "diffusion: denoising steps per item");
  est_cmd->add_option("--batch", est.batch, "items or sequences per batch");
  est_cmd->add_option("--kv-precision", est.kv_precision, "infer: KV cache fp16 (default) | fp8");
  est_cmd->add_option("--engine", est.engine, "infer: llama.cpp | vllm | tensorrt-llm | pytorch");
  est_cmd->add_option("--gpus", est.gpus, "price exactly this many GPUs of each type");
  est_cmd->add_option("--efficiency", est.efficiency,
                      "also print the batch-1 decode table at 100% and at this share of peak");
  est_cmd->add_option("--utilization", est.utilization,
                      "owned $/1M tokens and rent-vs-buy totals at this utilization (0-1)");
  est_cmd->add_option("--usd-per-kwh", est.usd_per_kwh, "owned: electricity price (0.15)");
  est_cmd->add_option("--life-years", est.life_years, "owned: years to depreciate over (3)");
  est_cmd->add_flag("--json", est.json, "print as JSON");

  bool gpus_json = false;
  auto* gpus_cmd = app.add_subcommand("gpus", "List the GPU catalog");
  gpus_cmd->add_flag("--json", gpus_json, "print as JSON");

  burst::OffersArgs offers;
  auto* offers_cmd = app.add_subcommand(
      "offers", "Live GPU offers merged across providers, cheapest first; creates nothing");
  offers_cmd->add_option("--gpu", offers.gpu, "only this GPU type, e.g. RTX_4090");
  offers_cmd->add_option("--provider", offers.provider, "only this provider");
  offers_cmd->add_flag("--json", offers.json, "print as JSON");

  // burstd's client (docs/daemon.md).
  burst::DaemonArgs submit, status, logs, cancel;
  auto* submit_cmd = app.add_subcommand("submit", "Queue a pipeline on burstd");
  submit_cmd->add_option("file", submit.target, "pipeline spec (YAML)")->required();
  submit_cmd->add_flag("-f,--follow", submit.follow, "follow its log until it ends");
  submit_cmd->add_flag("--json", submit.json, "print the job id as JSON");
  auto* status_cmd = app.add_subcommand("status", "burstd's jobs, or one job with its phases");
  status_cmd->add_option("job", status.target, "job id (default: all)");
  status_cmd->add_flag("--json", status.json, "print as JSON");
  auto* logs_cmd = app.add_subcommand("logs", "A burstd job's log");
  logs_cmd->add_option("job", logs.target, "job id")->required();
  logs_cmd->add_flag("-f,--follow", logs.follow, "keep printing until the job ends");
  auto* cancel_cmd = app.add_subcommand("cancel", "Cancel a burstd job (its pods are deleted)");
  cancel_cmd->add_option("job", cancel.target, "job id")->required();
  for (auto* c : {submit_cmd, status_cmd, logs_cmd, cancel_cmd})
    c->add_option("--socket",
                  c == submit_cmd   ? submit.socket
                  : c == status_cmd ? status.socket
                  : c == logs_cmd   ? logs.socket
                                    : cancel.socket,
                  "burstd's socket");

  burst::ReportArgs report;
  auto* report_cmd = app.add_subcommand(
      "report", "Cost report of a job (the latest by default) or of a period, from the store");
  report_cmd->add_option("job", report.job, "job id (default: the latest)");
  report_cmd->add_option("--month", report.month, "roll up a month, e.g. 2026-11");
  report_cmd->add_option("--since", report.since, "roll up from this day or month (2026-11-01)");
  report_cmd->add_option("--until", report.until, "roll up to this day or month, inclusive");
  report_cmd->add_option("--format", report.format, "md (default) | json | html");
  report_cmd->add_option("-o,--output", report.output, "write to this file instead of stdout");
  report_cmd->add_option("--usd-per-kwh", report.usd_per_kwh,
                         "rent vs buy: electricity price (0.15)");
  report_cmd->add_option("--life-years", report.life_years, "rent vs buy: years of use (3)");

  burst::CheckArgs check;
  auto* check_cmd = app.add_subcommand(
      "check", "Whether this set-up works: API keys, SSH key, state dir, clock; creates nothing");
  check_cmd->add_option("file", check.spec, "pipeline spec (YAML): also check its volume's region");
  check_cmd->add_option("--provider", check.providers, "check this provider (repeatable)");
  check_cmd->add_flag("--json", check.json, "print as JSON");
  auto volumes_cmd = burst::add_volumes_command(app);

  std::string help_topic;
  auto* help_cmd = app.add_subcommand("help", "Show the commands, or one command's flags");
  help_cmd->add_option("command", help_topic, "a command");
  auto* version_cmd = app.add_subcommand("version", "Print burst's version");

  // A first word that is no command: name it, suggest one, list them (CLI11 would only say
  // that a subcommand is required).
  if (argc > 1 && argv[1][0] != '-' && !is_command(app, argv[1]))
    return unknown_command(app, argv[1]);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : burst::kExitUsageCode;
  }
  if (*help_cmd) {
    // app.help() would describe `help` itself, the subcommand that was parsed.
    if (help_topic.empty()) {
      std::cout << app.get_formatter()->make_help(&app, "burst", CLI::AppFormatMode::Normal);
      return 0;
    }
    if (!is_command(app, help_topic)) return unknown_command(app, help_topic);
    std::cout << app.get_subcommand(help_topic)->help("burst");
    return 0;
  }
  if (*version_cmd) {
    std::cout << "burst " << BURST_VERSION << "\n";
    return 0;
  }
  // The chaos matrix's fault hook (docs/chaos.md) is installed here and handed to the job.
  const char* fault_env = std::getenv("BURST_FAULT");
  const auto faults = burst::make_env_fault_hook(fault_env ? fault_env : "");
  run.faults = faults.get();
  if (*run_cmd) return burst::cmd_run(run);
  if (*check_cmd) return burst::cmd_check(check);
  if (*validate_cmd) return burst::cmd_validate(validate);
  if (*convert_cmd) return burst::cmd_convert(convert);
  if (*reap_cmd) return burst::cmd_reap(reap);
  if (*jobs_cmd) return burst::cmd_jobs(jobs_limit, jobs_json);
  if (*plan_cmd) return burst::cmd_plan(plan);
  if (*gpus_cmd) return burst::cmd_gpus(gpus_json);
  if (*est_cmd) return burst::cmd_estimate(est);
  if (*offers_cmd) return burst::cmd_offers(offers);
  if (*report_cmd) return burst::cmd_report(report);
  if (int rc = volumes_cmd(); rc >= 0) return rc;
  if (*submit_cmd) return burst::cmd_submit(submit);
  if (*status_cmd) return burst::cmd_status(status);
  if (*logs_cmd) return burst::cmd_logs(logs);
  if (*cancel_cmd) return burst::cmd_cancel(cancel);
  return burst::kExitUsageCode;
}
