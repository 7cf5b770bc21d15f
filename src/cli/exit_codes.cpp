#include "cli/exit_codes.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "util/terminal_text.h"

namespace burst {
namespace {

bool g_json_errors = false;

}  // namespace

const std::vector<ExitCodeRow>& exit_code_table() {
  static const std::vector<ExitCodeRow> table = {
      {kExitOk, "ok", "success"},
      {kExitFailure, "failed", "the job failed (or the operation did)"},
      {kExitUsage, "usage", "bad arguments or a bad spec; nothing was created"},
      {kExitConfig, "config", "bad config or credentials (API key, SSH key, state dir)"},
      {kExitNotFound, "not_found", "the named job, pod, volume or file does not exist"},
      {kExitDaemon, "daemon_unreachable", "burstd does not answer on its socket"},
      {kExitInterrupted, "interrupted", "interrupted (Ctrl-C, SIGTERM); pods were still deleted"},
  };
  return table;
}

std::string exit_codes_footer() {
  std::string out = "Exit codes (every command):";
  for (const ExitCodeRow& row : exit_code_table()) {
    std::string code = std::to_string(row.code);
    out += "\n  " + code + std::string(code.size() < 5 ? 5 - code.size() : 1, ' ') + row.meaning;
  }
  return out;
}

const char* exit_code_name(int code) {
  for (const ExitCodeRow& row : exit_code_table())
    if (row.code == code) return row.name;
  return "failed";
}

int exit_code_for(const Error& e, ErrorOrigin origin) {
  if (origin == ErrorOrigin::kConfig) return kExitConfig;
  if (origin == ErrorOrigin::kDaemon &&
      (e.code == ErrorCode::kConnection || e.code == ErrorCode::kTimeout ||
       e.code == ErrorCode::kUnavailable))
    return kExitDaemon;
  switch (e.code) {
    case ErrorCode::kInvalid:
      return kExitUsage;
    case ErrorCode::kAuth:
      return kExitConfig;
    case ErrorCode::kNotFound:
      return kExitNotFound;
    case ErrorCode::kInterrupted:
      return kExitInterrupted;
    default:
      return kExitFailure;
  }
}

void set_json_errors(bool on) { g_json_errors = on; }
bool json_errors() { return g_json_errors; }

int fail(int code, const std::string& message, const std::vector<std::string>& more) {
  if (g_json_errors) {
    nlohmann::json error = {{"code", exit_code_name(code)}, {"message", message}, {"exit", code}};
    if (!more.empty()) error["errors"] = more;
    std::cout << nlohmann::json{{"error", error}}.dump(2) << std::endl;
    return code;
  }
  std::cerr << "burst: " << terminal_safe(message) << "\n";
  for (const std::string& line : more) std::cerr << terminal_safe(line) << "\n";
  std::cerr << std::flush;
  return code;
}

int fail(int code, const std::string& message) { return fail(code, message, {}); }

int fail(const Error& e, ErrorOrigin origin) { return fail(exit_code_for(e, origin), e.message); }

}  // namespace burst
