// burstd's own settings, read from burstd.yaml (config/burstd.yaml documents every field). Paths
// default to burst's state dir (burst/config.h), so `burst` and `burstd` share one database.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/result.h"

namespace burst::daemon {

struct DaemonConfig {
  std::string file;                    // the file read, or "" when none existed
  Config burst;                        // burst's config, with state_dir/db_path as burstd.yaml says
  std::string socket;                  // default: <state dir>/burstd.sock
  std::string log_file;                // default: <state dir>/logs/burstd.log
  int log_max_mb = 10;                 // rotated at this size
  int log_files = 3;                   // rotated files kept
  std::vector<std::string> pipelines;  // spec files, absolute
  std::string pipelines_dir;           // every *.yaml / *.yml in it, too
  int max_concurrent = 2;              // jobs running at once
  std::optional<double> usd_per_day;   // global caps over every job's accrued cost
  std::optional<double> usd_per_month;
  // A team on one database (docs/daemon.md, "Team and user budgets"): the team this daemon's
  // jobs count for, and caps per team and per submitting user.
  std::string team;
  std::optional<double> team_usd_per_day, team_usd_per_month;
  std::optional<double> user_usd_per_day, user_usd_per_month;
  Duration orphan_grace = std::chrono::minutes(10);   // unknown burst-* pods live this long
  Duration drain_timeout = std::chrono::minutes(30);  // SIGTERM waits this long, then cancels
  // A job's lease (docs/daemon.md, "Leases"): renewed every third of it while the job runs; a
  // daemon silent this long loses its jobs to another. At least 0.3 s.
  Duration lease = std::chrono::seconds(30);
  // api.tcp: an optional TCP listener ("127.0.0.1:8787"; port 0 picks a free one), only with
  // api.token_file, a file of mode 0600 whose content (trimmed) every TCP request must send as
  // "Authorization: Bearer <token>". The token is read at load and never logged.
  std::string tcp_host;
  int tcp_port = -1;  // -1: no TCP listener
  std::string token_file;
  std::string api_token;
  // api.tcp_allow_local_provider: may a job submitted over TCP use the built-in `local` provider,
  // whose `run:` executes on this machine as burstd's user? Off by default: a token then grants
  // cloud jobs only. The Unix socket (mode 0600, burstd's own user) is not affected.
  bool tcp_allow_local_provider = false;
};

// Reads a token file: kInvalid unless it is a regular file of mode 0600 (no group or other bits)
// holding a non-empty token; trailing whitespace is trimmed.
Result<std::string> read_token_file(const std::string& path);

// Reads `path` (default <config dir>/burstd.yaml; absent is fine and means every default).
// Relative paths in it are resolved against the file's directory. Errors: kInvalid with
// "file:line:col: field: message", like spec errors.
Result<DaemonConfig> load_daemon_config(const std::string& path,
                                        const std::map<std::string, std::string>& env);

}  // namespace burst::daemon
