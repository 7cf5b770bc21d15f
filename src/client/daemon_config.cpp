// Reads burstd.yaml with the YAML field reader (src/yaml/yaml_fields.h), like config.yaml.
#include "client/daemon_config.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "registry.h"
#include "util/small_file.h"
#include "yaml/yaml_fields.h"

namespace burst::daemon {
namespace fs = std::filesystem;
namespace {

using yaml::Fields;
using yaml::Problems;
using yaml::Unknown;
using sv = std::string_view;

constexpr sv kTopFields[] = {"state_dir",           "database",  "socket",    "log_file",
                             "log_max_mb",          "log_files", "pipelines", "pipelines_dir",
                             "max_concurrent_jobs", "budget",    "api",       "orphan_grace",
                             "drain_timeout",       "lease",     "team"};
constexpr sv kBudgetFields[] = {"usd_per_day",        "usd_per_month",    "team_usd_per_day",
                                "team_usd_per_month", "user_usd_per_day", "user_usd_per_month"};
constexpr sv kApiFields[] = {"tcp", "token_file", "tcp_allow_local_provider"};

// A path as written, made absolute: "~/" is $HOME, a relative one is relative to the file.
class Paths {
 public:
  explicit Paths(std::string dir) : dir_(std::move(dir)) {}
  std::string resolve(const std::string& p) const {
    if (p.rfind("~/", 0) == 0 && getenv("HOME")) return std::string(getenv("HOME")) + p.substr(1);
    return fs::path(p).is_absolute() ? p : (fs::path(dir_) / p).lexically_normal().string();
  }
  void read(Fields& f, sv key, std::string* out) const {
    if (std::optional<std::string> p = f.string(key)) *out = resolve(*p);
  }

 private:
  std::string dir_;
};

void read_int(Fields& f, sv key, int* out) {
  if (std::optional<long> n = f.integer(key, 1, INT_MAX)) *out = static_cast<int>(*n);
}

void read_duration(Fields& f, sv key, Duration* out) {
  if (std::optional<double> secs = f.duration(key, yaml::Need::kOptional, yaml::Zero::kAllowed))
    *out = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(*secs));
}

// "HOST:PORT" -> port, or -1.
int port_of(const std::string& t) {
  const size_t colon = t.rfind(':');
  if (colon == std::string::npos || colon == 0) return -1;
  try {
    size_t used = 0;
    int port = std::stoi(t.substr(colon + 1), &used);
    return used == t.size() - colon - 1 && port <= 65535 ? port : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

void read_api(Fields& top, const Paths& paths, DaemonConfig* c) {
  std::optional<yaml::Node> v = top.get("api");
  if (!v) return;
  Problems& problems = top.problems();
  Fields api(*v, "api", kApiFields, problems, Unknown::kSuggestOrList);
  if (!api.ok()) return;
  if (std::optional<yaml::Node> tcp = api.get("tcp")) {
    std::optional<std::string> t = yaml::read_string(*tcp, "api.tcp", problems);
    if (t && t->empty()) problems.add(yaml::pos_of(*tcp), "api.tcp", "expected a non-empty string");
    int port = t && !t->empty() ? port_of(*t) : -1;
    if (t && !t->empty() && port < 0)
      problems.add(yaml::pos_of(*tcp), "api.tcp", "expected HOST:PORT such as 127.0.0.1:8787");
    if (port >= 0) {
      c->tcp_host = t->substr(0, t->rfind(':'));
      c->tcp_port = port;
    }
  }
  paths.read(api, "token_file", &c->token_file);
  if (std::optional<bool> f = api.boolean("tcp_allow_local_provider"))
    c->tcp_allow_local_provider = *f;
  if (c->tcp_port < 0) return;
  if (c->token_file.empty()) {
    problems.add(yaml::pos_of(*v), "api.tcp",
                 "a TCP listener needs api.token_file (no TCP without a token)");
    return;
  }
  Result<std::string> token = read_token_file(c->token_file);
  if (!token) {
    problems.add(yaml::pos_of(*v), "api.token_file", token.error().message);
    return;
  }
  c->api_token = *token;
}

void read_fields(Fields& top, const Paths& paths, DaemonConfig* c, std::string* state,
                 std::string* db) {
  paths.read(top, "state_dir", state);
  paths.read(top, "database", db);
  paths.read(top, "socket", &c->socket);
  paths.read(top, "log_file", &c->log_file);
  read_int(top, "log_max_mb", &c->log_max_mb);
  read_int(top, "log_files", &c->log_files);
  read_int(top, "max_concurrent_jobs", &c->max_concurrent);
  if (std::optional<yaml::Node> v = top.get("pipelines")) {
    if (!v->is_sequence()) {
      top.problems().add(yaml::pos_of(*v), "pipelines",
                         "expected a list of spec files, got " + yaml::kind_of(*v));
    } else {
      for (size_t i = 0; i < v->size(); ++i) {
        std::optional<std::string> p =
            yaml::read_string((*v)[i], "pipelines[" + std::to_string(i) + "]", top.problems());
        if (p) c->pipelines.push_back(paths.resolve(*p));
      }
    }
  }
  paths.read(top, "pipelines_dir", &c->pipelines_dir);
  if (std::optional<yaml::Node> v = top.get("budget")) {
    Fields budget(*v, "budget", kBudgetFields, top.problems(), Unknown::kSuggestOrList);
    if (budget.ok()) {
      if (auto n = budget.non_negative_number("usd_per_day")) c->usd_per_day = *n;
      if (auto n = budget.non_negative_number("usd_per_month")) c->usd_per_month = *n;
      if (auto n = budget.non_negative_number("team_usd_per_day")) c->team_usd_per_day = *n;
      if (auto n = budget.non_negative_number("team_usd_per_month")) c->team_usd_per_month = *n;
      if (auto n = budget.non_negative_number("user_usd_per_day")) c->user_usd_per_day = *n;
      if (auto n = budget.non_negative_number("user_usd_per_month")) c->user_usd_per_month = *n;
    }
  }
  read_api(top, paths, c);
  read_duration(top, "orphan_grace", &c->orphan_grace);
  read_duration(top, "drain_timeout", &c->drain_timeout);
  read_duration(top, "lease", &c->lease);
  if (std::optional<yaml::Node> v = top.get("team"))
    if (auto t = yaml::read_string(*v, "team", top.problems())) c->team = *t;
  c->lease = std::max<Duration>(c->lease, std::chrono::milliseconds(300));
}

}  // namespace

Result<std::string> read_token_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return make_error(ErrorCode::kInvalid, path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return make_error(ErrorCode::kInvalid, path + ": not a regular file");
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return make_error(
        ErrorCode::kInvalid,
        path + " has mode " + mode + "; a token file must be 0600 (chmod 600 " + path + ")");
  }
  auto read = read_small_file(path, 4096);  // a token is a line, not a file to stream
  if (!read) return read.error();
  std::string token = std::move(*read);
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  if (token.empty()) return make_error(ErrorCode::kInvalid, path + ": the token file is empty");
  return token;
}

Result<DaemonConfig> load_daemon_config(const std::string& path,
                                        const std::map<std::string, std::string>& env) {
  auto base = load_config(env, all_provider_traits());
  if (!base) return base.error();
  DaemonConfig c;
  std::string file = path.empty() ? base->config_dir + "/burstd.yaml" : path;
  std::string state, db;
  std::error_code ec;
  if (fs::exists(file, ec)) {
    c.file = file;
    Result<std::string> text = read_small_file(file);  // regular, at most 1 MiB
    if (!text.ok()) return text.error();
    Problems problems(file);
    // An empty file means every default.
    std::optional<yaml::Node> root = yaml::load_optional_document(*text, problems);
    if (root && !root->is_null()) {
      Fields top(*root, "", kTopFields, problems);
      if (top.ok())
        read_fields(top, Paths(fs::absolute(file, ec).parent_path().string()), &c, &state, &db);
    }
    if (!problems.empty()) return problems.to_error();
  } else if (!path.empty()) {
    return make_error(ErrorCode::kInvalid, file + ": no such file");
  }
  if (!state.empty()) {  // every path under the state dir follows it
    auto moved = env;
    moved["BURST_STATE_DIR"] = state;
    base = load_config(moved, all_provider_traits());
    if (!base) return base.error();
  }
  c.burst = std::move(*base);
  if (!db.empty()) c.burst.db_path = db;
  if (c.socket.empty()) c.socket = c.burst.state_dir + "/burstd.sock";
  if (c.log_file.empty()) c.log_file = c.burst.logs_dir + "/burstd.log";
  return c;
}

}  // namespace burst::daemon
