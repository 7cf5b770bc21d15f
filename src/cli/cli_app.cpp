#include "cli/cli_app.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cli/cli_grammar.h"
#include "cli/command_suggest.h"
#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/exit_codes.h"
#include "util/fault_point.h"

namespace burst {
namespace {

// --format, --env and --max-runtime, on every command that reads a spec file.
void add_spec_flags(CLI::App* cmd, SpecFlags& flags) {
  cmd->add_option("--max-runtime", flags.max_runtime,
                  "DURATION (30m, 2h, 1h30m): the run step's wall-clock limit; replaces "
                  "budget.max_runtime and any default");
  cmd->add_option("--format", flags.format,
                  "burst | skypilot (default: recognised by the file's keys)");
  cmd->add_option("--env", flags.env,
                  "K=V: set or replace an env value (K alone: take it from this shell); "
                  "repeatable");
}

// --provider NAME, repeatable or a comma list (runpod,vast).
void add_provider_flag(CLI::App* cmd, std::vector<std::string>& providers, const char* what) {
  cmd->add_option("--provider", providers, what)->delimiter(',')->type_name("NAME[,NAME...]");
}

std::vector<std::string> command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* c : app.get_subcommands([](CLI::App* c) { return !c->get_group().empty(); }))
    names.push_back(c->get_name());
  return names;
}

// "burst: unknown command 'x'; did you mean 'y'?" and the list of commands; exit 2.
int unknown_command(CLI::App& app, const std::string& typed) {
  std::vector<std::string> names = command_names(app);
  std::string line = "burst: unknown command '" + typed + "'";
  if (std::optional<std::string> guess = suggest_command(typed, names))
    line += "; did you mean '" + *guess + "'?";
  std::cerr << line << "\ncommands:\n";
  for (const CLI::App* c : app.get_subcommands([](CLI::App* c) { return !c->get_group().empty(); }))
    std::fprintf(stderr, "  %-10s %s\n", c->get_name().c_str(), c->get_description().c_str());
  std::cerr << "(burst help COMMAND shows a command's flags)\n";
  return kExitUsage;
}

bool is_command(CLI::App& app, const std::string& name) {
  std::vector<std::string> names = command_names(app);
  return std::find(names.begin(), names.end(), name) != names.end() || name == "__complete";
}

// Whether the command that was parsed (or its parsed subcommand) was given --json.
bool json_requested(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    const CLI::Option* o = sub->get_option_no_throw("--json");
    if (o && o->count() > 0) return true;
    if (json_requested(*sub)) return true;
  }
  return false;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"burst: run a pipeline on the cheapest adequate cloud GPU, then delete it"};
  app.set_version_flag("--version", std::string("burst ") + BURST_VERSION);
  app.require_subcommand(1);
  app.footer(exit_codes_footer());

  // `burst ssh|exec [JOB] [worker] -- CMD...` and `burst run --gpus L4 -- CMD...`: what follows
  // `--` is the command (on the pod), never burst's arguments.
  std::vector<std::string> remote_command;
  bool has_remote_command = false;
  const char* const ssh_name = "ssh";  // not a provider name: the subcommand
  if (argc > 2 && (std::strcmp(argv[1], ssh_name) == 0 || std::strcmp(argv[1], "exec") == 0 ||
                   std::strcmp(argv[1], "run") == 0)) {
    for (int i = 2; i < argc; ++i) {
      if (std::strcmp(argv[i], "--") != 0) continue;
      for (int k = i + 1; k < argc; ++k) remote_command.push_back(argv[k]);
      has_remote_command = true;
      argc = i;
      break;
    }
  }

  RunArgs run;
  auto* run_cmd =
      app.add_subcommand("run", "Plan and run a pipeline; pods are deleted on every exit path");
  run_cmd->add_option("file", run.spec,
                      "pipeline spec (YAML, or a SkyPilot task); or none and `-- CMD` (a launch "
                      "without YAML: --gpus, --workdir)");
  add_spec_flags(run_cmd, run.spec_flags);
  add_provider_flag(run_cmd, run.providers, "use these providers instead of resources.providers");
  run_cmd->add_option("--gpus", run.gpus,
                      "TYPE[:N]: only this GPU type (case-insensitive), N of them per pod");
  run_cmd->add_option("--secret", run.secrets,
                      "NAME (read from this shell) or NAME=VALUE: one more secret; repeatable");
  add_dry_run_flag(run_cmd, run.dryrun, "plan and print; create nothing (offline, as plan)");
  run_cmd->add_option("--workdir", run.workdir,
                      "with -- CMD: the directory synced to the pod (default: none)");
  run_cmd->add_flag("--print-spec", run.print_spec,
                    "with -- CMD: print the spec built from the flags and exit");
  run_cmd->add_flag("-d,--detach", run.detach, "queue the job on burstd (burst submit) and return");
  run_cmd->add_option("--socket", run.socket, "burstd's socket (with --detach)");
  run_cmd->add_flag("-y,--yes", run.yes, "do not ask before spending money");
  run_cmd->add_flag("--json", run.json, "print the outcome as JSON");
  run_cmd->add_flag("-q,--quiet", run.quiet, "print only errors and the outcome");

  ValidateArgs validate;
  auto* validate_cmd = app.add_subcommand("validate", "Check a pipeline spec; creates nothing");
  validate_cmd->add_option("file", validate.spec, "pipeline spec (YAML, or a SkyPilot task)")
      ->required();
  validate_cmd->add_flag("--json", validate.json, "print the result as JSON");
  add_spec_flags(validate_cmd, validate.spec_flags);

  ConvertArgs convert;
  auto* convert_cmd = app.add_subcommand(
      "convert", "Print the burst spec equivalent to a SkyPilot task file; creates nothing");
  convert_cmd->add_option("file", convert.spec, "SkyPilot task file (or a burst spec)")->required();
  add_spec_flags(convert_cmd, convert.spec_flags);

  ReapArgs reap;
  auto* reap_cmd = app.add_subcommand("reap", "Delete every pod of ours that is still alive");
  reap_cmd->add_flag("--json", reap.json, "print the outcome as JSON");
  add_dry_run_flag(reap_cmd, reap.dry_run, "list what would be deleted");
  reap_cmd->add_flag("--all-installations", reap.all_installations,
                     "also delete other installations' pods (asks first)");
  reap_cmd->add_flag("-y,--yes", reap.yes, "do not ask before --all-installations deletes");
  reap_cmd->add_option("--grace", reap.grace,
                       "a pod of ours the store does not know is deleted once it has been seen "
                       "this long (default 10m, as burstd's orphan_grace; 0: at once)");

  int jobs_limit = 20;
  bool jobs_json = false;
  auto* jobs_cmd = app.add_subcommand("jobs", "List recent jobs");
  jobs_cmd->add_option("-n,--limit", jobs_limit, "how many");
  jobs_cmd->add_flag("--json", jobs_json, "print as JSON");

  PlanArgs plan;
  auto* plan_cmd =
      app.add_subcommand("plan", "Price every candidate GPU for a spec; creates nothing");
  plan_cmd->add_option("file", plan.spec, "pipeline spec (YAML, or a SkyPilot task)")->required();
  add_spec_flags(plan_cmd, plan.spec_flags);
  add_provider_flag(plan_cmd, plan.providers, "use these providers instead of resources.providers");
  plan_cmd->add_option("--gpus", plan.gpus,
                       "TYPE[:N]: only this GPU type (case-insensitive), N of them per pod");
  plan_cmd->add_flag("--json", plan.json, "print as JSON");
  plan_cmd->add_flag("--all", plan.all, "include rejected candidates and why");
  plan_cmd->add_option("--offers", plan.offers,
                       "price these offers (a JSON array) instead of asking the providers");

  EstimateArgs est;
  auto* est_cmd = app.add_subcommand(
      "estimate", "Ad-hoc cost model: memory, time and cost per GPU type, without a spec");
  est_cmd->add_option("--params", est.params, "model parameters, e.g. 7B, 500M");
  est_cmd->add_option("--model", est.model,
                      "a built-in model shape, e.g. llama-3-8b, mixtral-8x7b");
  est_cmd->add_option("--active-params", est.active_params,
                      "a mixture of experts: parameters each token uses, e.g. 3B (with --params)");
  est_cmd->add_option("--experts", est.experts,
                      "a mixture of experts: routed experts per layer (with --experts-per-token: "
                      "a batch reads the experts its tokens pick)");
  est_cmd->add_option("--experts-per-token", est.experts_per_token,
                      "a mixture of experts: experts each token uses");
  est_cmd->add_option("--mode", est.mode, "train | infer | diffusion")->required();
  est_cmd->add_option("--method", est.method, "train: full (default) | lora | qlora");
  est_cmd->add_option("--precision", est.precision, "fp32 | fp16 | bf16 | fp8 | int8 | int4");
  est_cmd->add_option("--tokens", est.tokens,
                      "train: tokens to process; infer: tokens to generate (e.g. 1M)");
  est_cmd->add_option("--context", est.context, "context length in tokens");
  est_cmd->add_option("--concurrency", est.concurrency, "infer: sequences decoded together");
  est_cmd->add_option("--items", est.items,
                      "diffusion: items to generate; infer: requests, --tokens split among them "
                      "and run --concurrency at a time");
  est_cmd->add_option("--steps", est.steps, "diffusion: denoising steps per item");
  est_cmd->add_option("--batch", est.batch, "items or sequences per batch");
  est_cmd->add_option("--arch", est.arch, "diffusion: unet | dit | flow-tts (or --model sdxl)");
  est_cmd->add_option("--resolution", est.resolution,
                      "diffusion: image side in pixels, e.g. 1024, or width x height, 1280x720");
  est_cmd->add_option("--frames", est.frames,
                      "diffusion (video denoiser): frames per item, e.g. 81");
  est_cmd->add_option("--audio-seconds", est.audio_seconds,
                      "diffusion (flow-tts): seconds of audio per item");
  est_cmd->add_option("--guidance", est.guidance,
                      "diffusion: classifier-free guidance scale (> 1: two passes per step)");
  est_cmd->add_option("--guidance-batched", est.guidance_batched,
                      "diffusion: on (default: both passes in one call a step) | off (two calls, "
                      "as F5-TTS before 1.1.6)");
  est_cmd->add_option("--attention-kernel", est.attention_kernel,
                      "diffusion (video denoiser, image DiT): fa2 (default: flash-attn 2, "
                      "PyTorch SDPA) | fa3 (FlashAttention 3, Hopper)");
  est_cmd->add_option("--offload", est.offload,
                      "diffusion: none (default: every component on the card) | model (one at a "
                      "time, enable_model_cpu_offload) | sequential (streamed a module at a time)");
  est_cmd->add_option("--gradient-checkpointing", est.checkpointing,
                      "train: on (default for lora, qlora) | off (default for full)");
  est_cmd->add_option("--lora-rank", est.lora_rank, "train lora/qlora: adapter rank (16)");
  est_cmd->add_option(
      "--lora-targets", est.lora_targets,
      "train lora/qlora: adapted projections, e.g. q,v (all: q,k,v,o,gate,up,down)");
  est_cmd->add_option("--kv-precision", est.kv_precision, "infer: KV cache fp16 (default) | fp8");
  est_cmd->add_option("--engine", est.engine,
                      "infer: llama.cpp | vllm | sglang | tensorrt-llm | pytorch");
  est_cmd->add_option("--tensor-parallel", est.tensor_parallel,
                      "infer: shard one copy of the model over this many GPUs (vLLM's "
                      "--tensor-parallel-size); --gpus / N copies");
  est_cmd->add_option("--sequence-parallel", est.sequence_parallel,
                      "diffusion (transformer denoiser): split each item's tokens over this many "
                      "GPUs (Ulysses: xDiT's --ulysses_degree, Wan's --ulysses_size); --gpus / N "
                      "copies");
  est_cmd->add_flag("--cfg-parallel", est.cfg_parallel,
                    "diffusion, with --sequence-parallel N: guidance's two passes on two halves "
                    "of the N GPUs, Ulysses over N/2 within each (xDiT's --use_cfg_parallel)");
  est_cmd->add_option("--gpu-memory-utilization", est.gpu_memory_utilization,
                      "infer (vllm, sglang, tensorrt-llm): the engine's memory share, 0.9 by "
                      "default (vLLM's gpu_memory_utilization, SGLang's mem_fraction_static, "
                      "TensorRT-LLM's free_gpu_memory_fraction)");
  est_cmd->add_option("--max-num-seqs", est.max_num_seqs,
                      "infer (vllm, sglang, tensorrt-llm): the most sequences the engine runs at "
                      "once (vLLM's --max-num-seqs, SGLang's --max-running-requests, "
                      "TensorRT-LLM's max_batch_size); vLLM's default by card when unset");
  est_cmd->add_option("--weights-from", est.weights_from,
                      "weight load (JSON weight_load_s): hub | s3 | volume | local-disk | "
                      "page-cache");
  est_cmd->add_option("--disk-read-mbps", est.disk_read_mbps,
                      "weight load: the disk's own sequential read rate, MB/s (e.g. fio's)");
  est_cmd->add_option("--loader", est.loader,
                      "weight load: default (the engine's own) | streaming (Run:ai Model "
                      "Streamer, ServerlessLLM Store, fastsafetensors: many threads at the "
                      "storage's rate; from the hub, a parallel downloader: Xet or "
                      "hf_transfer) | http (from the hub: huggingface_hub's one stream a file, "
                      "before 0.32.0 or with HF_HUB_DISABLE_XET=1)");
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

  OffersArgs offers;
  auto* offers_cmd = app.add_subcommand(
      "offers", "Live GPU offers merged across providers, cheapest first; creates nothing");
  offers_cmd->add_option("--gpus", offers.gpu,
                         "only this GPU type, e.g. RTX_4090 (as run and plan)");
  offers_cmd->add_option("--gpu", offers.gpu, "the old spelling of --gpus")->group("");
  add_provider_flag(offers_cmd, offers.providers, "only these providers");
  offers_cmd->add_flag("--json", offers.json, "print as JSON");

  // burstd's client (docs/daemon.md); `logs` reads the state dir first and needs no daemon.
  DaemonArgs submit, status, logs, cancel;
  auto* submit_cmd = app.add_subcommand("submit", "Queue a pipeline on burstd");
  submit_cmd->add_option("file", submit.target, "pipeline spec (YAML)")->required();
  submit_cmd->add_flag("-f,--follow", submit.follow, "follow its log until it ends");
  submit_cmd->add_flag("--json", submit.json, "print the job id as JSON");
  auto* status_cmd = app.add_subcommand("status", "burstd's jobs, or one job with its phases");
  status_cmd->add_option("job", status.target, "job id (default: all)");
  status_cmd->add_flag("--json", status.json, "print as JSON");
  auto* logs_cmd =
      app.add_subcommand("logs", "A job's log, from the state dir (no daemon needed) or burstd");
  logs_cmd->add_option("job", logs.target, "job id (default: the latest)");
  logs_cmd->add_flag("-f,--follow", logs.follow, "keep printing until the job ends");
  logs_cmd->add_flag("--json", logs.json, "print the log as a JSON object");
  auto* cancel_cmd = app.add_subcommand("cancel", "Cancel a burstd job (its pods are deleted)");
  cancel_cmd->add_option("job", cancel.target, "job id (default: burstd's latest unfinished job)");
  cancel_cmd->add_flag("--json", cancel.json, "print the answer as JSON");
  for (auto* c : {submit_cmd, status_cmd, logs_cmd, cancel_cmd})
    c->add_option("--socket",
                  c == submit_cmd   ? submit.socket
                  : c == status_cmd ? status.socket
                  : c == logs_cmd   ? logs.socket
                                    : cancel.socket,
                  "burstd's socket, or http://HOST:PORT for its TCP listener (the token from "
                  "the file $BURSTD_TOKEN_FILE names)");
  CapsArgs caps;
  auto* caps_cmd = app.add_subcommand(
      "caps", "The team's budget caps kept in the store (through burstd), and their changes");
  caps_cmd->add_flag("--json", caps.json, "print as JSON");
  caps_cmd->add_option("--socket", caps.socket, "burstd's socket, or http://HOST:PORT");
  auto* caps_set_cmd = caps_cmd->add_subcommand(
      "set", "Set or remove one cap: burst caps set team|user|pipeline NAME day|month USD|none");
  caps_set_cmd->add_option("scope", caps.scope, "team, user or pipeline")->required();
  caps_set_cmd->add_option("subject", caps.subject, "its name (user: * for every user)")
      ->required();
  caps_set_cmd->add_option("period", caps.period, "day or month (UTC)")->required();
  caps_set_cmd->add_option("usd", caps.usd, "dollars, or none to remove it")->required();
  caps_set_cmd->add_flag("--json", caps.json, "print the answer as JSON");
  caps_set_cmd->add_option("--socket", caps.socket, "burstd's socket, or http://HOST:PORT");
  DashboardArgs dashboard;
  auto* dashboard_cmd = app.add_subcommand(
      "dashboard", "burstd's dashboard on 127.0.0.1 through a one-time link, until Ctrl-C");
  dashboard_cmd->add_option("--port", dashboard.port, "local port (default: a free one)");
  dashboard_cmd->add_option("--socket", dashboard.socket, "burstd's socket");

  SshArgs ssh, exec;
  auto* ssh_cmd = app.add_subcommand(
      ssh_name, "Open a shell (or run -- CMD) on a running job's pod, with burst's key");
  auto* exec_cmd =
      app.add_subcommand("exec", "Run a command on a running job's pod: burst exec JOB -- CMD");
  for (auto* c : {ssh_cmd, exec_cmd}) {
    SshArgs& a = c == ssh_cmd ? ssh : exec;
    c->add_option("job", a.job, "job id (default: the latest)");
    c->add_option("worker", a.worker, "which pod: gpu (default), cpu, or a worker number");
  }

  ReportArgs report;
  auto* report_cmd = app.add_subcommand(
      "report", "Cost report of a job (the latest by default) or of a period, from the store");
  report_cmd->add_option("job", report.job, "job id (default: the latest)");
  report_cmd->add_option("--month", report.month, "roll up a month, e.g. 2026-11");
  report_cmd->add_option("--since", report.since, "roll up from this day or month (2026-11-01)");
  report_cmd->add_option("--until", report.until, "roll up to this day or month, inclusive");
  report_cmd->add_option("--format", report.format, "md (default) | json | html");
  report_cmd->add_flag("--json", report.json, "print as JSON (--format json)");
  report_cmd->add_option("-o,--output", report.output, "write to this file instead of stdout");
  report_cmd->add_option("--usd-per-kwh", report.usd_per_kwh,
                         "rent vs buy: electricity price (0.15)");
  report_cmd->add_option("--life-years", report.life_years, "rent vs buy: years of use (3)");

  CheckArgs check;
  auto* check_cmd = app.add_subcommand(
      "check", "Whether this set-up works: API keys, SSH key, state dir, clock; creates nothing");
  check_cmd->add_option("file", check.spec, "pipeline spec (YAML): also check its volume's region");
  add_provider_flag(check_cmd, check.providers, "check these providers");
  check_cmd->add_flag("--json", check.json, "print as JSON");
  auto volumes_cmd = add_volumes_command(app);

  std::string shell;
  auto* completion_cmd = app.add_subcommand(
      "completion", "Print a shell completion script: burst completion bash|zsh|fish");
  completion_cmd->add_option("shell", shell, "bash | zsh | fish")->required();
  // The completion scripts' helper: job ids and provider names, one a line. Not listed.
  std::string complete_what;
  auto* complete_cmd = app.add_subcommand("__complete", "")->group("");
  complete_cmd->add_option("what", complete_what, "jobs | providers")->required();

  std::string help_topic;
  auto* help_cmd = app.add_subcommand("help", "Show the commands, or one command's flags");
  help_cmd->add_option("command", help_topic, "a command");
  bool version_json = false;
  auto* version_cmd = app.add_subcommand("version", "Print burst's version");
  version_cmd->add_flag("--json", version_json, "print as JSON");

  // A first word that is no command: name it, suggest one, list them (CLI11 would only say
  // that a subcommand is required).
  if (argc > 1 && argv[1][0] != '-' && !is_command(app, argv[1]))
    return unknown_command(app, argv[1]);
  apply_one_value_grammar(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  set_json_errors(json_requested(app));
  if (*help_cmd) {
    // app.help() would describe `help` itself, the subcommand that was parsed.
    if (help_topic.empty()) {
      std::cout << app.get_formatter()->make_help(&app, "burst", CLI::AppFormatMode::Normal);
      return kExitOk;
    }
    if (!is_command(app, help_topic)) return unknown_command(app, help_topic);
    std::cout << app.get_subcommand(help_topic)->help("burst");
    return kExitOk;
  }
  if (*version_cmd) {
    if (version_json)
      std::cout << "{\"version\": \"" << BURST_VERSION << "\"}" << std::endl;
    else
      std::cout << "burst " << BURST_VERSION << "\n";
    return kExitOk;
  }
  if (*completion_cmd) return cmd_completion(app, shell);
  if (*complete_cmd) return cmd_complete(complete_what);
  // The chaos matrix's fault hook (docs/chaos.md) is installed here and handed to the job.
  const char* fault_env = std::getenv("BURST_FAULT");
  const auto faults = make_env_fault_hook(fault_env ? fault_env : "");
  run.faults = faults.get();
  if (*run_cmd) {
    if (has_remote_command && remote_command.empty())
      return fail(kExitUsage, "run: give the command after --");
    run.command = remote_command;
    return cmd_run(run);
  }
  if (*check_cmd) return cmd_check(check);
  if (*validate_cmd) return cmd_validate(validate);
  if (*convert_cmd) return cmd_convert(convert);
  if (*reap_cmd) return cmd_reap(reap);
  if (*jobs_cmd) return cmd_jobs(jobs_limit, jobs_json);
  if (*plan_cmd) return cmd_plan(plan);
  if (*gpus_cmd) return cmd_gpus(gpus_json);
  if (*est_cmd) return cmd_estimate(est);
  if (*offers_cmd) return cmd_offers(offers);
  if (*report_cmd) return cmd_report(report);
  if (int rc = volumes_cmd(); rc >= 0) return rc;
  if (*submit_cmd) return cmd_submit(submit);
  if (*status_cmd) return cmd_status(status);
  if (*logs_cmd) return cmd_logs(logs);
  if (*cancel_cmd) return cmd_cancel(cancel);
  if (*caps_cmd) {
    caps.set = static_cast<bool>(*caps_set_cmd);
    return cmd_caps(caps);
  }
  if (*dashboard_cmd) return cmd_dashboard(dashboard);
  if (*ssh_cmd) {
    ssh.command = remote_command;
    return cmd_ssh(ssh);
  }
  if (*exec_cmd) {
    exec.command = remote_command;
    if (exec.command.empty()) return fail(kExitUsage, "exec: give the command after --");
    return cmd_exec(exec);
  }
  return kExitUsage;
}

}  // namespace burst
