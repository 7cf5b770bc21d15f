// Reads burstd.yaml: a yaml-cpp adapter, like src/config/config_loader.cpp.
#include "daemon/daemon_config.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "registry.h"
#include "util/duration.h"
#include "util/small_file.h"

namespace burst::daemon {
namespace fs = std::filesystem;
namespace {

class Reader {
 public:
  Reader(std::string file, std::string dir) : file_(std::move(file)), dir_(std::move(dir)) {}

  Error error(const YAML::Node& n, const std::string& field, const std::string& msg) const {
    return make_error(ErrorCode::kInvalid, file_ + ":" + std::to_string(n.Mark().line + 1) + ":" +
                                               std::to_string(n.Mark().column + 1) + ": " + field +
                                               ": " + msg);
  }
  std::string path(const YAML::Node& n) const {
    std::string p = n.as<std::string>();
    if (p.rfind("~/", 0) == 0 && getenv("HOME")) return std::string(getenv("HOME")) + p.substr(1);
    return fs::path(p).is_absolute() ? p : (fs::path(dir_) / p).lexically_normal().string();
  }
  Result<std::string> text(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar() || n.as<std::string>().empty())
      return error(n, field, "expected a non-empty string");
    return n.as<std::string>();
  }
  Result<double> number(const YAML::Node& n, const std::string& field, double min) const {
    double v = 0;
    if (!n.IsScalar() || !YAML::convert<double>::decode(n, v))
      return error(n, field, "expected a number, got \"" + n.as<std::string>("") + "\"");
    if (v < min)
      return error(n, field, "must be at least " + std::to_string(static_cast<int>(min)));
    return v;
  }
  Result<bool> flag(const YAML::Node& n, const std::string& field) const {
    bool v = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v))
      return error(n, field, "expected true or false, got \"" + n.as<std::string>("") + "\"");
    return v;
  }
  Result<Duration> duration(const YAML::Node& n, const std::string& field) const {
    auto t = text(n, field);
    if (!t) return t.error();
    auto secs = parse_duration(*t);
    if (!secs)
      return error(n, field, "expected a duration such as 90s, 10m or 1h, got \"" + *t + "\"");
    return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(*secs));
  }

 private:
  std::string file_, dir_;
};

Status read_fields(const YAML::Node& root, const Reader& r, DaemonConfig* c, std::string* state,
                   std::string* db) {
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    if (key == "state_dir") {
      *state = r.path(v);
    } else if (key == "database") {
      *db = r.path(v);
    } else if (key == "socket") {
      c->socket = r.path(v);
    } else if (key == "log_file") {
      c->log_file = r.path(v);
    } else if (key == "log_max_mb" || key == "log_files" || key == "max_concurrent_jobs") {
      auto n = r.number(v, key, 1);
      if (!n) return n.error();
      int i = static_cast<int>(*n);
      (key == "log_max_mb"  ? c->log_max_mb
       : key == "log_files" ? c->log_files
                            : c->max_concurrent) = i;
    } else if (key == "pipelines") {
      if (!v.IsSequence()) return r.error(v, key, "expected a list of spec files");
      for (const auto& p : v) c->pipelines.push_back(r.path(p));
    } else if (key == "pipelines_dir") {
      c->pipelines_dir = r.path(v);
    } else if (key == "budget") {
      if (!v.IsMap()) return r.error(v, key, "expected a mapping");
      for (const auto& b : v) {
        const std::string bk = b.first.as<std::string>();
        if (bk != "usd_per_day" && bk != "usd_per_month")
          return r.error(b.first, "budget." + bk, "unknown field (usd_per_day, usd_per_month)");
        auto n = r.number(b.second, "budget." + bk, 0);
        if (!n) return n.error();
        (bk == "usd_per_day" ? c->usd_per_day : c->usd_per_month) = *n;
      }
    } else if (key == "api") {
      if (!v.IsMap()) return r.error(v, key, "expected a mapping");
      for (const auto& a : v) {
        const std::string ak = a.first.as<std::string>();
        if (ak == "tcp") {
          auto t = r.text(a.second, "api.tcp");
          if (!t) return t.error();
          const size_t colon = t->rfind(':');
          int port = -1;
          if (colon != std::string::npos && colon > 0) {
            try {
              size_t used = 0;
              port = std::stoi(t->substr(colon + 1), &used);
              if (used != t->size() - colon - 1) port = -1;
            } catch (const std::exception&) {
              port = -1;
            }
          }
          if (port < 0 || port > 65535)
            return r.error(a.second, "api.tcp", "expected HOST:PORT such as 127.0.0.1:8787");
          c->tcp_host = t->substr(0, colon);
          c->tcp_port = port;
        } else if (ak == "token_file") {
          c->token_file = r.path(a.second);
        } else if (ak == "tcp_allow_local_provider") {
          auto f = r.flag(a.second, "api.tcp_allow_local_provider");
          if (!f) return f.error();
          c->tcp_allow_local_provider = *f;
        } else {
          return r.error(a.first, "api." + ak,
                         "unknown field (tcp, token_file, tcp_allow_local_provider)");
        }
      }
      if (c->tcp_port >= 0 && c->token_file.empty())
        return r.error(v, "api.tcp",
                       "a TCP listener needs api.token_file (no TCP without a token)");
      if (c->tcp_port >= 0) {
        auto token = read_token_file(c->token_file);
        if (!token) return r.error(v, "api.token_file", token.error().message);
        c->api_token = *token;
      }
    } else if (key == "orphan_grace" || key == "drain_timeout") {
      auto d = r.duration(v, key);
      if (!d) return d.error();
      (key == "orphan_grace" ? c->orphan_grace : c->drain_timeout) = *d;
    } else {
      return r.error(kv.first, key, "unknown field");
    }
  }
  return Status::Ok();
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
    YAML::Node root;
    try {
      root = YAML::Load(*text);
    } catch (const YAML::Exception& e) {
      return make_error(ErrorCode::kInvalid, file + ":" + std::to_string(e.mark.line + 1) + ":" +
                                                 std::to_string(e.mark.column + 1) + ": " + e.msg);
    }
    Reader r(file, fs::absolute(file, ec).parent_path().string());
    if (!root.IsNull()) {
      if (!root.IsMap()) return r.error(root, "(top level)", "expected a mapping");
      Status st = read_fields(root, r, &c, &state, &db);
      if (!st) return st.error();
    }
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
