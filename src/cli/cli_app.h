// `burst`'s command line: the table of subcommands (CLI11 apps) and their flags, the parse, and
// the dispatch to one cmd_* function each. main() only calls run_cli; tests call it in process.
// The same table generates the shell completions (completion.h).
#pragma once

namespace burst {

// Parses argv and runs the chosen command; returns the process exit code (exit_codes.h).
int run_cli(int argc, char** argv);

}  // namespace burst
