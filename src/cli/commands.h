// One function per subcommand; main.cpp wires them to CLI11. Each returns the process exit code.
#pragma once

#include <string>

namespace burst {

struct RunArgs {
  std::string spec;
  std::string provider;  // overrides resources.providers
  bool yes = false;
  bool json = false;
  bool quiet = false;
};
int cmd_run(const RunArgs& args);

int cmd_validate(const std::string& spec, bool json);

struct ReapArgs {
  bool json = false;
  bool dry_run = false;
};
int cmd_reap(const ReapArgs& args);

int cmd_jobs(int limit, bool json);

struct PlanArgs {
  std::string spec;
  std::string provider;
  bool json = false;
  bool all = false;
};
int cmd_plan(const PlanArgs& args);
int cmd_gpus(bool json);

inline constexpr int kExitUsageCode = 2;

}  // namespace burst
