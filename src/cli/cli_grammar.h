// burst's one command-line grammar, applied to every subcommand after they are declared:
// every option takes exactly one value per occurrence (repeat it, or give a comma list where the
// option says so), so options and positional arguments go in any order: `burst run --provider
// local FILE --dry-run` and `burst run FILE --dry-run --provider local` are the same command.
// Without it CLI11 lets a repeatable option swallow the words after it (the file included).
#pragma once

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace burst {

// Every option of `app` and of its subcommands, recursively: one value per occurrence.
void apply_one_value_grammar(CLI::App& app);

// `--dry-run`, the one spelling, on `cmd`; `--dryrun` is kept as a hidden alias.
void add_dry_run_flag(CLI::App* cmd, bool& value, const char* what);

}  // namespace burst
