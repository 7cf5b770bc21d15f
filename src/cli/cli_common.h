// Shared plumbing for the subcommands: config and store opening, the console.
#pragma once

#include <atomic>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "burst/config.h"
#include "burst/console.h"
#include "burst/spec.h"
#include "burst/store.h"
#include "cli/exit_codes.h"

namespace burst {

// Counts SIGINT/SIGTERM since install_signal_handlers().
extern std::atomic<int> g_interrupts;
void install_signal_handlers();

Result<Config> load_config_or_print();
Result<std::unique_ptr<Store>> open_store(const Config& config);

// --provider and --gpus applied to a spec that was read, in one place for `burst plan` and
// `burst run`, which must plan the same spec. *provider: the one-provider override ("" when
// none). Returns 0, or the exit code after printing the error.
int apply_plan_flags(PipelineSpec* spec, const std::vector<std::string>& providers,
                     const std::string& gpus, const Config& config, std::string* provider);

// plan_summary_lines (plan/plan_summary.h) as `burst plan` and `burst run` print them: each
// wrapped to 120 columns, continuation lines under the value.
void print_plan_lines(const std::vector<std::string>& lines, std::ostream& out);

// Status lines to stdout, remote stdout/stderr to ours, progress only on a TTY.
std::unique_ptr<Console> make_terminal_console(bool quiet);
// make_terminal_console plus the run step's live status line (cli/live_status.h) on a TTY;
// `usd_per_hour` is every pod of the job together.
std::unique_ptr<Console> make_run_console(bool quiet, double usd_per_hour);

}  // namespace burst
