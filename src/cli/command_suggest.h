// "Did you mean" for a mistyped or foreign subcommand: the closest of burst's commands, also
// through the names other tools give the same thing (SkyPilot's `launch` is burst's `run`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace burst {

// The command `typed` most likely meant, among `commands`; nullopt when nothing is close.
std::optional<std::string> suggest_command(std::string_view typed,
                                           const std::vector<std::string>& commands);

}  // namespace burst
