// One function per subcommand; main.cpp wires them to CLI11. Each returns the process exit code.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace burst {

// How a command reads its spec file: --format burst|skypilot (default: recognised by its keys),
// --env K=V (repeatable) and --max-runtime DURATION (replaces budget.max_runtime).
struct SpecFlags {
  std::string format;
  std::vector<std::string> env;
  std::string max_runtime;
};

class FaultObserver;  // burst/fault_observer.h

struct RunArgs {
  std::string spec;  // the file; empty with `command` (a launch without YAML)
  SpecFlags spec_flags;
  std::vector<std::string> providers;  // override resources.providers (--provider a,b)
  std::string gpus;                    // --gpus TYPE[:N]
  std::vector<std::string> secrets;    // --secret NAME or NAME=VALUE
  bool dryrun = false;                 // --dry-run: plan offline and print, create nothing
  std::vector<std::string> command;    // after `--`: the job's run command, no spec file
  std::string workdir;                 // with `command`: code.dir
  bool print_spec = false;             // with `command`: print the spec built and exit
  bool detach = false;                 // hand the job to burstd (cmd_submit) and return
  std::string socket;                  // burstd's socket, with detach
  bool yes = false;
  bool json = false;
  bool quiet = false;
  FaultObserver* faults = nullptr;  // the BURST_FAULT hook, when main() installed one
};
int cmd_run(const RunArgs& args);

struct ValidateArgs {
  std::string spec;
  SpecFlags spec_flags;
  bool json = false;
};
int cmd_validate(const ValidateArgs& args);

// `burst convert FILE`: the equivalent burst spec of a (SkyPilot) file, on stdout.
struct ConvertArgs {
  std::string spec;
  SpecFlags spec_flags;
};
int cmd_convert(const ConvertArgs& args);

struct ReapArgs {
  bool json = false;
  bool dry_run = false;
  bool all_installations = false;  // other installations' pods too (asks first)
  bool yes = false;                // do not ask
  std::string grace = "10m";       // unknown pods of ours: deleted once seen this long
};
int cmd_reap(const ReapArgs& args);

int cmd_jobs(int limit, bool json);

struct PlanArgs {
  std::string spec;
  SpecFlags spec_flags;
  std::vector<std::string> providers;  // override resources.providers (--provider a,b)
  std::string gpus;                    // --gpus TYPE[:N]
  std::string offers;                  // a JSON file of offers instead of the providers
  bool json = false;
  bool all = false;
};
int cmd_plan(const PlanArgs& args);
int cmd_gpus(bool json);

struct EstimateArgs {
  std::string params;  // "7B", "500M"; optional with --model
  std::string model;   // a built-in model shape, e.g. llama-3-8b
  std::string mode;    // train | infer | diffusion
  std::string method;  // train: full | lora | qlora
  std::string precision;
  std::string tokens, context, concurrency, items, steps, batch;  // "1M", "4096"
  std::string kv_precision;                                       // infer: fp16 | fp8
  std::string checkpointing, lora_rank, lora_targets;             // train: on|off, "16", "q,v"
  std::string engine;                                             // infer: llama.cpp | vllm ...
  std::string tensor_parallel;    // infer: the cards one copy of the model is sharded over
  std::string sequence_parallel;  // diffusion: the cards one item's tokens are split over
  bool cfg_parallel = false;      // diffusion: guidance's two passes on two halves of a group
  std::optional<double> gpu_memory_utilization;  // infer: the engine's memory share (0, 1]
  std::string max_num_seqs;                      // infer: the engine's cap on sequences at once
  // A mixture of experts: "3B" parameters a token uses; routed experts and experts a token
  std::string active_params, experts, experts_per_token;
  std::string weights_from;  // hub | s3 | volume | local-disk | page-cache (burst/weight_load.h)
  std::optional<double> disk_read_mbps;  // the disk's own sequential read rate, MB/s (fio)
  std::string loader;  // weight load: default | streaming (cost/streaming_loader.h)
  std::string arch, resolution, frames;           // diffusion: unet, "1024" or "1280x720", "81"
  std::optional<double> audio_seconds, guidance;  // diffusion
  std::string guidance_batched;                   // diffusion: on (default) | off
  std::string attention_kernel;                   // diffusion: fa2 (default) | fa3
  std::string offload;                            // diffusion: none (default) | model | sequential
  std::optional<int> gpus;                        // price exactly this many GPUs per type
  std::optional<double> efficiency;               // print the batch-1 decode table at 100% and this
  std::optional<double> utilization;  // owned $/1M tokens and rent-vs-buy at this utilization
  double usd_per_kwh = 0.15;
  double life_years = 3;
  bool json = false;
};
int cmd_estimate(const EstimateArgs& args);

struct OffersArgs {
  std::string gpu;                     // catalog name filter, e.g. RTX_4090
  std::vector<std::string> providers;  // only these providers
  bool json = false;
};
int cmd_offers(const OffersArgs& args);

// burstd's client commands (cmd_daemon.cpp). `target`: a spec file (submit) or a job id.
struct DaemonArgs {
  std::string target;
  std::string socket;  // default: $BURSTD_SOCKET, else burstd.yaml's socket
  bool follow = false;
  bool json = false;
};
int cmd_submit(const DaemonArgs& args);
int cmd_status(const DaemonArgs& args);
// The job's log from the state dir (no daemon needed); burstd's when the state dir has none.
int cmd_logs(const DaemonArgs& args);
int cmd_daemon_logs(const DaemonArgs& args);  // burstd's copy (cmd_daemon.cpp)
int cmd_cancel(const DaemonArgs& args);
// `burst caps` lists the team's caps kept in the store (through burstd) and their latest
// changes; `burst caps set SCOPE SUBJECT PERIOD USD|none` sets or removes one (docs/daemon.md,
// "Team and user budgets").
struct CapsArgs {
  bool set = false;
  std::string scope, subject, period, usd;
  std::string socket;
  bool json = false;
};
int cmd_caps(const CapsArgs& args);

// `burst dashboard` (cmd_dashboard.cpp): a one-time link to burstd's dashboard, served on
// 127.0.0.1:port (0: a free one) by forwarding to burstd's socket, until Ctrl-C.
struct DashboardArgs {
  std::string socket;
  int port = 0;
};
int cmd_dashboard(const DashboardArgs& args);

// `burst ssh|exec JOB [worker] [-- CMD...]` (cmd_ssh.cpp): into a live pod of the job, with the
// host key pinned at the job's first contact and burst's SSH key.
struct SshArgs {
  std::string job;
  std::string worker;                // "" or "gpu": the GPU pod; "cpu": the upload pod; or N
  std::vector<std::string> command;  // after `--`; ssh: empty means a login shell
};
int cmd_ssh(const SshArgs& args);
int cmd_exec(const SshArgs& args);

// `burst __complete jobs|providers` (completion.cpp): names for the completion scripts.
int cmd_complete(const std::string& what);

struct ReportArgs {
  std::string job;            // empty: the latest job
  std::string month;          // "2026-11": a roll-up of that month
  std::string since, until;   // "2026-11-01", "2026-11": a roll-up of the range (inclusive)
  std::string format = "md";  // md | json | html
  bool json = false;          // --json: as --format json
  std::string output;         // a file instead of stdout
  double usd_per_kwh = 0.15;  // rent vs buy
  double life_years = 3;
};
int cmd_report(const ReportArgs& args);

// `burst check`: whether the set-up works (cmd_check.cpp).
struct CheckArgs {
  std::string spec;                    // optional: also check its volume's region
  std::vector<std::string> providers;  // default: the spec's, else every cloud
  bool json = false;
};
int cmd_check(const CheckArgs& args);
// `burst volumes [delete NAME|ID]` (cmd_volumes.cpp): adds the subcommand; the returned function
// runs it when it was chosen and returns -1 otherwise.
std::function<int()> add_volumes_command(CLI::App& app);

}  // namespace burst
