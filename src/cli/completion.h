// `burst completion bash|zsh|fish`: a completion script generated from the command table (the
// CLI11 apps run_cli builds), so a new command or flag completes without editing a script.
// Subcommands and flags are static in the script; job ids and provider names come from
// `burst __complete jobs|providers` when the user presses Tab.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace burst {

// The script for `shell`, or "" when the shell is not bash, zsh or fish.
std::string completion_script(const CLI::App& app, const std::string& shell);

// Prints completion_script; exit 2 naming the shells when `shell` is none of them.
int cmd_completion(const CLI::App& app, const std::string& shell);

}  // namespace burst
