#include "cli/command_suggest.h"

#include <algorithm>
#include <utility>

#include "spec/spec_checks.h"

namespace burst {
namespace {

// Other tools' commands (SkyPilot, dstack, docker) and the burst command that does that job.
constexpr std::pair<std::string_view, std::string_view> kForeign[] = {
    {"launch", "run"},  {"exec", "run"},     {"apply", "run"},      {"start", "run"},
    {"ps", "status"},   {"queue", "status"}, {"down", "cancel"},    {"stop", "cancel"},
    {"kill", "cancel"}, {"offer", "offers"}, {"show-gpus", "gpus"}, {"cost-report", "report"},
    {"ls", "jobs"},     {"list", "jobs"},    {"tail", "logs"},      {"dryrun", "plan"},
};

}  // namespace

std::optional<std::string> suggest_command(std::string_view typed,
                                           const std::vector<std::string>& commands) {
  std::vector<std::string_view> names(commands.begin(), commands.end());
  for (const auto& [foreign, ours] : kForeign)
    if (std::find(commands.begin(), commands.end(), ours) != commands.end())
      names.push_back(foreign);
  std::optional<std::string> guess = spec::suggest_field(typed, names);
  if (!guess) return std::nullopt;
  for (const auto& [foreign, ours] : kForeign)
    if (*guess == foreign && std::find(commands.begin(), commands.end(), *guess) == commands.end())
      return std::string(ours);
  return guess;
}

}  // namespace burst
