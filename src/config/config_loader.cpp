// Reads config.yaml; the only yaml-cpp user outside src/spec.
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "burst/config.h"

extern char** environ;

namespace burst {
namespace fs = std::filesystem;

std::map<std::string, std::string> environment_map() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string s(*e);
    size_t eq = s.find('=');
    if (eq != std::string::npos) env[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return env;
}

namespace {

std::string get(const std::map<std::string, std::string>& env, const std::string& k) {
  auto it = env.find(k);
  return it == env.end() ? "" : it->second;
}

std::string pick_dir(const std::map<std::string, std::string>& env, const char* own,
                     const char* xdg, const char* home_rel) {
  if (!get(env, own).empty()) return get(env, own);
  if (!get(env, xdg).empty()) return get(env, xdg) + "/burst";
  return get(env, "HOME") + "/" + home_rel;
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  Error error(const YAML::Node& n, const std::string& field, const std::string& msg) const {
    return make_error(ErrorCode::kInvalid, file_ + ":" + std::to_string(n.Mark().line + 1) + ":" +
                                               std::to_string(n.Mark().column + 1) + ": " + field +
                                               ": " + msg);
  }

  Status check_keys(const YAML::Node& map, const std::string& prefix,
                    std::initializer_list<const char*> known) const {
    if (!map.IsMap())
      return error(map, prefix.empty() ? "(top level)" : prefix, "expected a mapping");
    for (const auto& kv : map) {
      std::string key = kv.first.as<std::string>();
      bool ok = false;
      for (const char* k : known) ok = ok || key == k;
      if (!ok) return error(kv.first, prefix.empty() ? key : prefix + "." + key, "unknown field");
    }
    return Status::Ok();
  }

  Status string_field(const YAML::Node& map, const char* key, const std::string& path,
                      std::string* out) const {
    YAML::Node n = map[key];
    if (!n) return Status::Ok();
    if (!n.IsScalar()) return error(n, path, "expected a string");
    *out = n.Scalar();
    return Status::Ok();
  }

  Status number_field(const YAML::Node& map, const char* key, const std::string& path,
                      double* out) const {
    YAML::Node n = map[key];
    if (!n) return Status::Ok();
    try {
      *out = n.as<double>();
    } catch (const YAML::Exception&) {
      return error(n, path, "expected a number, got \"" + (n.IsScalar() ? n.Scalar() : "?") + "\"");
    }
    if (*out < 0) return error(n, path, "must not be negative");
    return Status::Ok();
  }

 private:
  std::string file_;
};

Status read_file(const std::string& path, Config* c) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::ParserException& e) {
    return make_error(ErrorCode::kInvalid, path + ":" + std::to_string(e.mark.line + 1) + ":" +
                                               std::to_string(e.mark.column + 1) +
                                               ": YAML syntax error: " + e.msg);
  }
  if (root.IsNull()) return Status::Ok();
  Reader r(path);
  Status st = r.check_keys(
      root, "", {"state_dir", "reports_dir", "ssh_key", "ssh_wait_seconds", "providers"});
  if (st.ok()) st = r.string_field(root, "state_dir", "state_dir", &c->state_dir);
  if (st.ok()) st = r.string_field(root, "reports_dir", "reports_dir", &c->reports_dir);
  if (st.ok()) st = r.string_field(root, "ssh_key", "ssh_key", &c->ssh_key);
  if (st.ok())
    st = r.number_field(root, "ssh_wait_seconds", "ssh_wait_seconds", &c->ssh_wait_seconds);
  if (!st.ok() || !root["providers"]) return st;
  YAML::Node providers = root["providers"];
  st = r.check_keys(providers, "providers", {"local"});
  YAML::Node local = providers["local"];
  if (!st.ok() || !local) return st;
  st = r.check_keys(local, "providers.local",
                    {"root", "sshd", "gpu_usd_per_hour", "cpu_usd_per_hour"});
  if (st.ok()) st = r.string_field(local, "root", "providers.local.root", &c->local.root);
  if (st.ok()) st = r.string_field(local, "sshd", "providers.local.sshd", &c->local.sshd);
  if (st.ok())
    st = r.number_field(local, "gpu_usd_per_hour", "providers.local.gpu_usd_per_hour",
                        &c->local.gpu_usd_per_hour);
  if (st.ok())
    st = r.number_field(local, "cpu_usd_per_hour", "providers.local.cpu_usd_per_hour",
                        &c->local.cpu_usd_per_hour);
  return st;
}

}  // namespace

Result<Config> load_config(const std::map<std::string, std::string>& env) {
  Config c;
  c.config_dir = pick_dir(env, "BURST_CONFIG_DIR", "XDG_CONFIG_HOME", ".config/burst");
  fs::path file = fs::path(c.config_dir) / "config.yaml";
  std::error_code ec;
  if (fs::exists(file, ec)) {
    c.config_file = file.string();
    Status st = read_file(c.config_file, &c);
    if (!st.ok()) return st.error();
  }
  if (c.state_dir.empty())
    c.state_dir = pick_dir(env, "BURST_STATE_DIR", "XDG_STATE_HOME", ".local/state/burst");
  c.db_path = c.state_dir + "/burst.db";
  c.logs_dir = c.state_dir + "/logs";
  if (c.reports_dir.empty()) c.reports_dir = c.state_dir + "/reports";
  if (c.ssh_key.empty()) c.ssh_key = c.config_dir + "/id_ed25519";
  if (c.local.root.empty()) c.local.root = c.state_dir + "/local";
  return c;
}

}  // namespace burst
