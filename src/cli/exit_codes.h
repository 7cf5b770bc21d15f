// The one table of `burst`'s exit codes (README, "Exit codes") and the one place that turns a
// classified error (burst/result.h) into one of them. Every command returns these; every error a
// command reports goes through fail(), which prints "burst: <message>" to stderr, or, when the
// command was given --json, the object {"error": {"code", "message", "exit"}} to stdout.
#pragma once

#include <string>
#include <vector>

#include "burst/result.h"

namespace burst {

enum ExitCode {
  kExitOk = 0,
  kExitFailure = 1,   // the job (or the operation) ran and failed
  kExitUsage = 2,     // bad arguments or a bad spec
  kExitConfig = 3,    // bad config or credentials
  kExitNotFound = 4,  // the named job, pod, volume or file does not exist
  kExitDaemon = 5,    // burstd does not answer on its socket
  kExitInterrupted = 130,
};

struct ExitCodeRow {
  int code;
  const char* name;     // the "code" of a --json error object
  const char* meaning;  // one line, as the README's table says it
};
const std::vector<ExitCodeRow>& exit_code_table();
// "Exit codes (every command):" and one line per row of the table: `burst --help`'s footer.
std::string exit_codes_footer();
// The row's name for `code` ("usage", "not_found"); "failed" for a code not in the table.
const char* exit_code_name(int code);

// Where an error arose, when that decides the exit code beyond its ErrorCode: whatever goes wrong
// reading the config or opening the store is a config error (3), and a daemon client's connection
// failure means burstd is unreachable (5).
enum class ErrorOrigin { kCommand, kConfig, kDaemon };

// kInvalid 2, kAuth 3, kNotFound 4, kInterrupted 130, anything else 1; then the origin's rule.
int exit_code_for(const Error& e, ErrorOrigin origin = ErrorOrigin::kCommand);

// Whether errors are printed as JSON objects (the command was given --json). Set once by the
// command line parser before the command runs.
void set_json_errors(bool on);
bool json_errors();

// Prints the error (text to stderr, or the JSON object to stdout) and returns `code`.
int fail(int code, const std::string& message);
// The same, with extra lines (a spec's further errors) in "errors" / on their own lines.
int fail(int code, const std::string& message, const std::vector<std::string>& more);
// fail(exit_code_for(e, origin), e.message).
int fail(const Error& e, ErrorOrigin origin = ErrorOrigin::kCommand);

}  // namespace burst
