// `burst run FILE`: validate, plan, confirm, run the job, report. Nothing is created anywhere
// until the spec, the config, the secrets and the plan have all been checked.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/launch_job.h"
#include "app/local_choice.h"
#include "app/prepare_job.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/inline_spec.h"
#include "cli/job_json.h"
#include "cli/run_flags.h"
#include "cli/spec_errors.h"
#include "plan/plan_summary.h"
#include "report/job_report.h"

namespace burst {
namespace {

// The block `burst plan` prints too (plan/plan_summary.h): the run executes what the plan said.
void print_plan(const PipelineSpec& spec, const Plan& plan) {
  print_plan_lines(plan_summary_lines(spec, plan), std::cout);
}

// The plan as --json prints it with --dryrun.
nlohmann::json plan_json(const PipelineSpec& spec, const Plan& plan) {
  nlohmann::json out = {
      {"pipeline", spec.name},
      {"dry_run", true},
      {"dryrun", true},
      {"provider", plan.gpu.provider},
      {"gpu", plan.gpu.gpu_type},
      {"gpu_count", std::max({1, plan.gpu.gpu_count, spec.resources.count_for(plan.gpu.gpu_type)})},
      {"usd_per_hour", plan.gpu.usd_per_hour},
      {"price_source", plan.gpu.price_source},
      {"estimate_s", plan.estimate.total_s},
      {"estimate_usd", plan.estimate.usd},
      {"basis", plan.estimate.basis},
      {"volume", spec.volume.name}};
  if (plan.cpu) out["upload_provider"] = plan.cpu->provider;
  if (plan.prepare && spec.prepare)
    out["prepare"] = {
        {"where", plan.prepare->expect_skip ? "skipped" : to_string(plan.prepare->where)},
        {"seconds", plan.prepare->seconds()},
        {"usd", plan.prepare->usd()},
        {"why", plan.prepare->why}};
  return out;
}

// --detach: the job goes to burstd as `burst submit FILE` sends it. Flags that change the spec
// here cannot travel with it (burstd reads the file), so they are refused, not dropped.
int detach(const RunArgs& args) {
  if (!args.spec_flags.env.empty() || !args.secrets.empty() || !args.gpus.empty() ||
      !args.providers.empty() || args.dryrun || args.print_spec ||
      !args.spec_flags.max_runtime.empty())
    return fail(kExitUsage,
                "--detach: burstd runs the file as written; --env, --secret, --gpus, --provider, "
                "--max-runtime, --dry-run and --print-spec cannot go with it (put them in the "
                "spec)");
  DaemonArgs submit;
  submit.target = args.spec;
  submit.socket = args.socket;
  submit.json = args.json;
  return cmd_submit(submit);
}

// -q's outcome of a dry run: one line.
std::string dry_run_line(const Plan& plan) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s %s x%d at $%.2f/hour, est. $%.4f", plan.gpu.provider.c_str(),
                plan.gpu.gpu_type.c_str(), std::max(1, plan.gpu.gpu_count), plan.gpu.usd_per_hour,
                plan.estimate.usd);
  return std::string("dry run: ") + buf + "; nothing was created";
}

}  // namespace

int cmd_run(const RunArgs& args) {
  const bool inline_cmd = !args.command.empty();
  if (inline_cmd && !args.spec.empty())
    return fail(kExitUsage, "run: give a spec file or a command after --, not both");
  if (!inline_cmd && args.spec.empty())
    return fail(kExitUsage,
                "run: give a spec file (burst run FILE) or a command (burst run --gpus L4 -- CMD)");
  if (!inline_cmd && !args.workdir.empty())
    return fail(kExitUsage, "--workdir goes with a command after --; a spec file sets code.dir");
  if (inline_cmd && args.detach)
    return fail(kExitUsage, "--detach needs a spec file: burstd reads the file");
  if (args.detach) return detach(args);
  auto spec_options = spec_options_from_flags(args.spec_flags.format, args.spec_flags.env,
                                              /*for_run=*/true, args.spec_flags.max_runtime);
  if (!spec_options.ok()) return fail(kExitUsage, spec_options.error().message);
  SpecReadInfo info;
  auto spec = inline_cmd ? parse_spec_or_print(inline_spec_yaml(args.command, args.workdir),
                                               kInlineSpecPath, *spec_options, &info)
                         : load_spec_or_print(args.spec, *spec_options, &info);
  if (!spec.ok()) return spec_exit_code(spec.error());
  // What the user named, before --provider replaces the spec's list (app/local_choice.h).
  const std::vector<std::string> named = named_providers(*spec, args.providers);
  auto config = load_config_or_print();
  if (!config.ok()) return fail(config.error(), ErrorOrigin::kConfig);
  std::string provider;
  if (int code = apply_plan_flags(&*spec, args.providers, args.gpus, *config, &provider))
    return code;
  if (args.print_spec) {  // the spec this run would plan, flags applied; nothing is asked
    std::cout << write_spec_yaml(*spec, info);
    return kExitOk;
  }
  std::map<std::string, std::string> env = environment_map();
  if (Status st = apply_secret_flags(&*spec, args.secrets, &env); !st.ok()) return fail(st.error());
  SystemClock clock;
  // A dry run plans as `burst plan` does: offline, from the price table where a cloud has no key.
  auto prepared = prepare_job(*spec, provider, *config, clock, env, /*offline_table=*/args.dryrun);
  if (!prepared.ok()) {
    const Error& e = prepared.error();
    if (e.message.rfind(spec->path + ":", 0) == 0 && !json_errors()) {
      std::cerr << e.message << "\n";  // secrets: file:line:col, as spec errors
      return kExitUsage;
    }
    return fail(e);  // kAuth (a key missing or refused) exits 3, kInvalid 2
  }
  if (args.dryrun) {
    for (const auto& w : prepared->warnings) std::cerr << "burst: warning: " << w << "\n";
    if (args.json) {
      std::cout << plan_json(*spec, prepared->plan).dump(2) << std::endl;
    } else if (args.quiet) {
      std::cout << dry_run_line(prepared->plan) << std::endl;
    } else {
      print_plan(*spec, prepared->plan);
      std::cout << "dry run: nothing was created\n";
    }
    return kExitOk;
  }
  for (const auto& w : prepared->warnings) std::cerr << "burst: warning: " << w << "\n";
  const Plan* plan = &prepared->plan;
  // -q: the outcome line is all stdout gets; a question still shows the plan it asks about, on
  // stderr with the question.
  if (!args.json && !args.quiet) print_plan(*spec, *plan);
  const auto show_plan_for_question = [&] {
    if (args.quiet && !args.json) print_plan_lines(plan_summary_lines(*spec, *plan), std::cerr);
  };
  const bool costs_money = plan->gpu.usd_per_hour > 0 || (plan->cpu && plan->cpu->usd_per_hour > 0);
  // The run step's live status: every pod of the job at the plan's $/hour.
  auto console = make_run_console(args.quiet || args.json,
                                  plan->gpu.usd_per_hour * std::max(1, plan->estimate.workers));
  // This machine only when the user chose it (app/local_choice.h): say so and ask; --yes or no
  // terminal is no answer.
  if (const std::string here = unchosen_here_provider(*plan, named); !here.empty()) {
    std::cerr << "burst: this job " << runs_here_line() << " (the " << here
              << " provider, which you did not name)\n";
    if (!args.yes) show_plan_for_question();
    if (args.yes || !console->confirm("Run it on this machine?"))
      return fail(kExitUsage, "not run: the plan puts this job on this machine (the " + here +
                                  " provider) and you did not choose it; pass --provider " + here +
                                  " to run it here, or name a cloud in resources.providers");
  }
  if (costs_money && !args.yes) show_plan_for_question();
  if (costs_money && !args.yes && !console->confirm("Start this job?"))
    return fail(kExitUsage, "not confirmed; nothing was created (pass --yes to skip the question)");

  auto store = open_store(*config);
  if (!store.ok()) return fail(store.error(), ErrorOrigin::kConfig);
  install_signal_handlers();

  const std::string job_id = new_job_id(clock.now());
  auto interrupts = [] { return g_interrupts.load(); };
  LaunchDeps deps{**store, clock, *console, *config, interrupts, "Ctrl-C or SIGTERM"};
  deps.faults = args.faults;
  // The same launch as burstd's (app/launch_job.h).
  auto launched = launch_job(deps, *spec, std::move(*prepared), {job_id, ""});
  if (!launched.ok()) return fail(launched.error(), ErrorOrigin::kConfig);
  RunJobOutcome& run = *launched;
  // What failed after the job (the report, the webhook) is a warning, never the job's outcome.
  for (const auto& w : run.finished.warnings) std::cerr << "burst: warning: " << w << "\n";
  const JobResult& result = run.result;
  if (args.json) {
    // The keys every command's --json uses for a job (cli/job_json.h).
    nlohmann::json out = {{"job_id", job_id}, {"pipeline", spec->name}};
    if (auto rec = (*store)->get_job(job_id); rec.ok()) {
      auto report = build_job_report(**store, job_id, clock.now());
      out = job_json(*rec, report.ok() ? &*report : nullptr);
    }
    out["state"] = to_string(result.state);
    out["error"] = result.error;
    out["report"] = run.finished.files.json;
    std::cout << out.dump(2) << std::endl;
  } else if (args.quiet) {
    // -q: the outcome, one line on stdout, whatever it is.
    std::cout << "job " << job_id << " " << to_string(result.state)
              << (result.error.empty() ? "" : ": " + result.error)
              << (run.finished.files.html.empty() ? "" : "; report " + run.finished.files.html)
              << std::endl;
  } else if (!result.error.empty()) {
    std::cerr << "burst: job " << job_id << " " << to_string(result.state) << ": " << result.error
              << "\n";
  }
  if (result.state == JobState::kSucceeded) return kExitOk;
  if (result.state == JobState::kInterrupted) return kExitInterrupted;
  return kExitFailure;
}

}  // namespace burst
