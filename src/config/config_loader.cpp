// Reads config.yaml; the only yaml-cpp user outside src/spec.
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>

#include "burst/config.h"
#include "util/small_file.h"

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
    return check_keys(map, prefix, std::vector<std::string>(known.begin(), known.end()));
  }
  Status check_keys(const YAML::Node& map, const std::string& prefix,
                    const std::vector<std::string>& known) const {
    if (!map.IsMap())
      return error(map, prefix.empty() ? "(top level)" : prefix, "expected a mapping");
    for (const auto& kv : map) {
      std::string key = kv.first.as<std::string>();
      bool ok = false;
      for (const std::string& k : known) ok = ok || key == k;
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

Status read_cloud(const Reader& r, const YAML::Node& providers, const std::string& name,
                  Config* c) {
  YAML::Node n = providers[name];
  if (!n) return Status::Ok();
  const std::string at = "providers." + name;
  CloudConfig& cc = c->clouds[name];
  Status st = r.check_keys(n, at, {"base_url", "api_key", "timeout_seconds", "ssh_user"});
  if (st.ok()) st = r.string_field(n, "base_url", at + ".base_url", &cc.base_url);
  if (st.ok()) st = r.string_field(n, "ssh_user", at + ".ssh_user", &cc.ssh_user);
  if (st.ok()) st = r.string_field(n, "api_key", at + ".api_key", &cc.api_key);
  if (st.ok())
    st = r.number_field(n, "timeout_seconds", at + ".timeout_seconds", &cc.timeout_seconds);
  if (st.ok() && !cc.api_key.empty()) cc.api_key_source = "config.yaml";
  return st;
}

// notify: {webhook: URL, pipelines: {NAME: URL}} (app/webhook.h).
Status read_notify(const Reader& r, const YAML::Node& root, Config* c) {
  YAML::Node n = root["notify"];
  if (!n) return Status::Ok();
  Status st = r.check_keys(n, "notify", {"webhook", "pipelines"});
  if (st.ok()) st = r.string_field(n, "webhook", "notify.webhook", &c->notify.webhook);
  YAML::Node p = n["pipelines"];
  if (!st.ok() || !p) return st;
  if (!p.IsMap()) return r.error(p, "notify.pipelines", "expected a mapping of pipeline: URL");
  for (const auto& kv : p) {
    const std::string name = kv.first.as<std::string>();
    st = r.string_field(p, name.c_str(), "notify.pipelines." + name, &c->notify.pipelines[name]);
    if (!st.ok()) return st;
  }
  return st;
}

// A key in a file others can read is a leaked key: refuse the file rather than use it.
Status check_key_file_mode(const std::string& path, const Config& c) {
  std::string holder;
  for (const auto& [name, cc] : c.clouds)
    if (cc.api_key_source == "config.yaml" && holder.empty())
      holder = "an API key (providers." + name + ".api_key)";
  // A webhook URL carries its service's token (Slack, Discord): as secret as an API key.
  if (holder.empty() && !c.notify.webhook.empty())
    holder = "a webhook URL (notify.webhook), whose token is a secret,";
  if (holder.empty() && !c.notify.pipelines.empty())
    holder = "webhook URLs (notify.pipelines), whose tokens are secrets,";
  if (holder.empty()) return Status::Ok();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Status::Ok();
  if ((st.st_mode & 077) == 0) return Status::Ok();
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  return make_error(ErrorCode::kInvalid, path + ": holds " + holder + " but its mode is " + mode +
                                             ", so other users can read it; run `chmod 600 " +
                                             path + "` or pass the key in the environment instead");
}

// The local machine's section (root, sshd, prices): the first provider that runs here.
Status read_local(const Reader& r, const YAML::Node& providers,
                  const std::vector<ProviderTraits>& known, Config* c) {
  const ProviderTraits* here = nullptr;
  for (const ProviderTraits& t : known)
    if (t.runs_here && !here) here = &t;
  if (!here) return Status::Ok();
  YAML::Node local = providers[here->name];
  if (!local) return Status::Ok();
  const std::string at = "providers." + here->name;
  Status st = r.check_keys(local, at, {"root", "sshd", "gpu_usd_per_hour", "cpu_usd_per_hour"});
  if (st.ok()) st = r.string_field(local, "root", at + ".root", &c->local.root);
  if (st.ok()) st = r.string_field(local, "sshd", at + ".sshd", &c->local.sshd);
  if (st.ok())
    st = r.number_field(local, "gpu_usd_per_hour", at + ".gpu_usd_per_hour",
                        &c->local.gpu_usd_per_hour);
  if (st.ok())
    st = r.number_field(local, "cpu_usd_per_hour", at + ".cpu_usd_per_hour",
                        &c->local.cpu_usd_per_hour);
  return st;
}

Status read_file(const std::string& path, const std::vector<ProviderTraits>& known, Config* c) {
  // A regular file of at most 1 MiB (util/small_file.h): never a device or fifo read for ever.
  Result<std::string> text = read_small_file(path);
  if (!text.ok()) return text.error();
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::ParserException& e) {
    return make_error(ErrorCode::kInvalid, path + ":" + std::to_string(e.mark.line + 1) + ":" +
                                               std::to_string(e.mark.column + 1) +
                                               ": YAML syntax error: " + e.msg);
  }
  if (root.IsNull()) return Status::Ok();
  Reader r(path);
  Status st = r.check_keys(root, "",
                           {"state_dir", "reports_dir", "ssh_key", "ssh_wait_seconds",
                            "pull_max_gib", "providers", "notify"});
  if (st.ok()) st = r.string_field(root, "state_dir", "state_dir", &c->state_dir);
  if (st.ok()) st = r.string_field(root, "reports_dir", "reports_dir", &c->reports_dir);
  if (st.ok()) st = r.string_field(root, "ssh_key", "ssh_key", &c->ssh_key);
  if (st.ok())
    st = r.number_field(root, "ssh_wait_seconds", "ssh_wait_seconds", &c->ssh_wait_seconds);
  if (st.ok()) st = r.number_field(root, "pull_max_gib", "pull_max_gib", &c->pull_max_gib);
  if (st.ok()) st = read_notify(r, root, c);
  if (st.ok() && !root["providers"]) st = check_key_file_mode(path, *c);
  if (!st.ok() || !root["providers"]) return st;
  YAML::Node providers = root["providers"];
  // A section per provider with one: the clouds' (ProviderTraits::cloud_config) and this
  // machine's (runs_here), in the registry's order.
  std::vector<std::string> sections;
  for (const ProviderTraits& t : known)
    if (t.cloud_config || t.runs_here) sections.push_back(t.name);
  st = r.check_keys(providers, "providers", sections);
  for (const ProviderTraits& t : known)
    if (st.ok() && t.cloud_config) st = read_cloud(r, providers, t.name, c);
  if (st.ok()) st = check_key_file_mode(path, *c);
  if (!st.ok()) return st;
  return read_local(r, providers, known, c);
}

}  // namespace

Result<Config> load_config(const std::map<std::string, std::string>& env,
                           const std::vector<ProviderTraits>& providers) {
  Config c;
  c.config_dir = pick_dir(env, "BURST_CONFIG_DIR", "XDG_CONFIG_HOME", ".config/burst");
  fs::path file = fs::path(c.config_dir) / "config.yaml";
  std::error_code ec;
  if (fs::exists(file, ec)) {
    c.config_file = file.string();
    Status st = read_file(c.config_file, providers, &c);
    if (!st.ok()) return st.error();
  }
  if (c.state_dir.empty())
    c.state_dir = pick_dir(env, "BURST_STATE_DIR", "XDG_STATE_HOME", ".local/state/burst");
  c.db_path = c.state_dir + "/burst.db";
  c.logs_dir = c.state_dir + "/logs";
  if (c.reports_dir.empty()) c.reports_dir = c.state_dir + "/reports";
  if (c.ssh_key.empty()) c.ssh_key = c.config_dir + "/id_ed25519";
  if (c.local.root.empty()) c.local.root = c.state_dir + "/local";
  if (!get(env, "BURST_WEBHOOK_URL").empty()) c.notify.webhook = get(env, "BURST_WEBHOOK_URL");
  // The public APIs, and the environment variables their own CLIs read the key from: each
  // cloud's registry row.
  for (const ProviderTraits& t : providers) {
    if (!t.cloud_config) continue;
    CloudConfig& cc = c.clouds[t.name];
    if (cc.base_url.empty()) cc.base_url = t.default_base_url;
    while (!cc.base_url.empty() && cc.base_url.back() == '/') cc.base_url.pop_back();
    if (!t.api_key_env.empty() && !get(env, t.api_key_env).empty()) {
      cc.api_key = get(env, t.api_key_env);
      cc.api_key_source = t.api_key_env;
    }
  }
  return c;
}

}  // namespace burst
