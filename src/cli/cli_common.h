// Shared plumbing for the subcommands: exit codes, config and store opening, the console.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "burst/config.h"
#include "burst/console.h"
#include "burst/store.h"

namespace burst {

enum ExitCode {
  kExitOk = 0,
  kExitFailure = 1,
  kExitUsage = 2,   // bad arguments or a bad spec
  kExitConfig = 3,  // bad config or credentials
  kExitInterrupted = 130,
};

// Counts SIGINT/SIGTERM since install_signal_handlers().
extern std::atomic<int> g_interrupts;
void install_signal_handlers();

// Prints "burst: <message>" to stderr and returns `code`.
int fail(int code, const std::string& message);

Result<Config> load_config_or_print();
Result<std::unique_ptr<Store>> open_store(const Config& config);

// Status lines to stdout, remote stdout/stderr to ours, progress only on a TTY.
std::unique_ptr<Console> make_terminal_console(bool quiet);

}  // namespace burst
