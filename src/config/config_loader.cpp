// Reads config.yaml with the YAML field reader (src/yaml/yaml_fields.h): every problem, each as
// "file:line:col: field: message".
#include <sys/stat.h>

#include <cctype>
#include <cstdio>
#include <filesystem>

#include "burst/config.h"
#include "burst/store.h"
#include "util/small_file.h"
#include "yaml/yaml_fields.h"

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

using yaml::Fields;
using yaml::Problems;
using sv = std::string_view;

constexpr sv kTopFields[] = {"state_dir",
                             "reports_dir",
                             "ssh_key",
                             "ssh_wait_seconds",
                             "no_progress_seconds",
                             "pull_max_gib",
                             "providers",
                             "notify",
                             "store"};
constexpr sv kCloudFields[] = {"base_url", "api_key", "timeout_seconds", "ssh_user",
                               "offer_filters"};
constexpr sv kOfferFilterFields[] = {"min_reliability", "min_direct_ports", "min_inet_down_mbps",
                                     "min_cuda"};
constexpr sv kLocalFields[] = {"root", "sshd", "gpu_usd_per_hour", "cpu_usd_per_hour"};
constexpr sv kNotifyFields[] = {"webhook", "pipelines"};
constexpr sv kOwnHostsFields[] = {"hosts"};
constexpr sv kOwnHostFields[] = {"name",       "address",     "port",         "user",
                                 "key",        "host_key",    "usd_per_hour", "usd_per_kwh",
                                 "life_years", "utilization", "work_dir"};

void read_string(Fields& f, sv key, std::string* out) {
  if (std::optional<std::string> s = f.string(key)) *out = std::move(*s);
}

void read_number(Fields& f, sv key, double* out) {
  if (std::optional<double> n = f.non_negative_number(key)) *out = *n;
}

void read_cloud(Fields& providers, const std::string& name, Config* c) {
  std::optional<yaml::Node> n = providers.get(name);
  if (!n) return;
  CloudConfig& cc = c->clouds[name];
  Fields f(*n, providers.path_of(name), kCloudFields, providers.problems());
  if (!f.ok()) return;
  read_string(f, "base_url", &cc.base_url);
  read_string(f, "ssh_user", &cc.ssh_user);
  read_string(f, "api_key", &cc.api_key);
  read_number(f, "timeout_seconds", &cc.timeout_seconds);
  if (!cc.api_key.empty()) cc.api_key_source = "config.yaml";
  if (std::optional<yaml::Node> q = f.get("offer_filters")) {
    Fields filters(*q, f.path_of("offer_filters"), kOfferFilterFields, f.problems());
    if (!filters.ok()) return;
    for (sv filter : kOfferFilterFields)
      if (std::optional<double> v = filters.non_negative_number(filter))
        cc.offer_filters[std::string(filter)] = *v;
  }
}

// Your own hosts: providers.<name>.hosts, a list of {name, address, port, user, key, host_key,
// usd_per_hour, usd_per_kwh, life_years, utilization, work_dir} (burst/config.h, OwnHostConfig).
void read_own_hosts(Fields& providers, const std::string& name, Config* c) {
  std::optional<yaml::Node> n = providers.get(name);
  if (!n) return;
  Fields f(*n, providers.path_of(name), kOwnHostsFields, providers.problems());
  if (!f.ok()) return;
  std::optional<yaml::Node> list = f.get("hosts");
  if (!list) return;
  const std::string path = f.path_of("hosts");
  if (!list->is_sequence()) {
    f.problems().add(yaml::pos_of(*list), path,
                     "expected a list of hosts, got " + yaml::kind_of(*list));
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    Fields h((*list)[i], at, kOwnHostFields, f.problems());
    if (!h.ok()) continue;
    OwnHostConfig host;
    auto name_v = h.string("name", yaml::Need::kRequired);
    auto address = h.string("address", yaml::Need::kRequired);
    if (!name_v || !address) continue;
    host.name = *name_v;
    host.address = *address;
    // A name becomes part of pod and volume ids ("<pod>@<name>") and of paths: one safe word.
    bool safe =
        !host.name.empty() && host.name.size() <= 64 && host.name[0] != '-' && host.name[0] != '.';
    for (char ch : host.name)
      safe = safe &&
             (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.');
    if (!safe)
      f.problems().add(
          h.pos(), at + ".name",
          "must be 1-64 letters, digits, '-', '_' or '.', not starting with '-' or '.'");
    for (const OwnHostConfig& other : c->own_hosts)
      if (other.name == host.name)
        f.problems().add(h.pos(), at + ".name", "\"" + host.name + "\" names another host too");
    if (auto port = h.integer("port", 1, 65535)) host.port = static_cast<int>(*port);
    read_string(h, "user", &host.user);
    read_string(h, "key", &host.key);
    read_string(h, "host_key", &host.host_key);
    read_string(h, "work_dir", &host.work_dir);
    if (std::optional<double> v = h.non_negative_number("usd_per_hour")) host.usd_per_hour = *v;
    read_number(h, "usd_per_kwh", &host.usd_per_kwh);
    read_number(h, "life_years", &host.life_years);
    read_number(h, "utilization", &host.utilization);
    if (host.utilization > 1)
      f.problems().add(h.pos(), at + ".utilization", "must be between 0 and 1");
    c->own_hosts.push_back(std::move(host));
  }
}

// notify: {webhook: URL, pipelines: {NAME: URL}} (app/webhook.h).
void read_notify(Fields& top, Config* c) {
  std::optional<yaml::Node> n = top.get("notify");
  if (!n) return;
  Fields f(*n, "notify", kNotifyFields, top.problems());
  if (!f.ok()) return;
  read_string(f, "webhook", &c->notify.webhook);
  std::optional<yaml::Node> p = f.get("pipelines");
  if (!p) return;
  if (!p->is_map()) {
    f.problems().add(yaml::pos_of(*p), "notify.pipelines", "expected a mapping of pipeline: URL");
    return;
  }
  for (const auto& kv : *p) {
    const std::string name = yaml::key_name(kv.first);
    std::optional<std::string> url =
        yaml::read_string(kv.second, "notify.pipelines." + name, f.problems());
    if (url) c->notify.pipelines[name] = std::move(*url);
  }
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
  if (holder.empty() && redact_store_url(c.store_url) != c.store_url)
    holder = "a database password (store)";
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
void read_local(Fields& providers, const std::vector<ProviderTraits>& known, Config* c) {
  const ProviderTraits* here = nullptr;
  for (const ProviderTraits& t : known)
    if (t.runs_here && !here) here = &t;
  if (!here) return;
  std::optional<yaml::Node> local = providers.get(here->name);
  if (!local) return;
  Fields f(*local, providers.path_of(here->name), kLocalFields, providers.problems());
  if (!f.ok()) return;
  read_string(f, "root", &c->local.root);
  read_string(f, "sshd", &c->local.sshd);
  read_number(f, "gpu_usd_per_hour", &c->local.gpu_usd_per_hour);
  read_number(f, "cpu_usd_per_hour", &c->local.cpu_usd_per_hour);
}

Status read_file(const std::string& path, const std::vector<ProviderTraits>& known, Config* c) {
  // A regular file of at most 1 MiB (util/small_file.h): never a device or fifo read for ever.
  Result<std::string> text = read_small_file(path);
  if (!text.ok()) return text.error();
  Problems problems(path);
  // An empty file is an empty config: every field is optional.
  std::optional<yaml::Node> root = yaml::load_optional_document(*text, problems);
  if (root && !root->is_null()) {
    Fields top(*root, "", kTopFields, problems);
    if (top.ok()) {
      read_string(top, "state_dir", &c->state_dir);
      read_string(top, "reports_dir", &c->reports_dir);
      read_string(top, "ssh_key", &c->ssh_key);
      read_number(top, "ssh_wait_seconds", &c->ssh_wait_seconds);
      read_number(top, "pull_max_gib", &c->pull_max_gib);
      read_number(top, "no_progress_seconds", &c->no_progress_seconds);
      if (std::optional<yaml::Node> n = top.get("no_progress_seconds");
          n && c->no_progress_seconds < 1)
        problems.add(yaml::pos_of(*n), "no_progress_seconds", "must be at least 1 (seconds)");
      read_notify(top, c);
      read_string(top, "store", &c->store_url);
      if (!c->store_url.empty() && !is_postgres_url(c->store_url))
        problems.add(top.pos(), "store",
                     "must be a postgres:// or postgresql:// URL (leave it out for the SQLite "
                     "file in the state dir)");
      if (std::optional<yaml::Node> node = top.get("providers")) {
        // A section per provider with one: the clouds' (ProviderTraits::cloud_config) and this
        // machine's (runs_here), in the registry's order.
        std::vector<sv> sections;
        for (const ProviderTraits& t : known)
          if (t.cloud_config || t.runs_here || t.own_hosts_config) sections.push_back(t.name);
        Fields providers(*node, "providers", sections, problems);
        if (providers.ok()) {
          for (const ProviderTraits& t : known)
            if (t.cloud_config) read_cloud(providers, t.name, c);
          for (const ProviderTraits& t : known)
            if (t.own_hosts_config) read_own_hosts(providers, t.name, c);
          read_local(providers, known, c);
        }
      }
    }
  }
  if (!problems.empty()) return problems.to_error();
  return check_key_file_mode(path, *c);
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
  // A host key path written "~/..." is the user's home's.
  for (OwnHostConfig& h : c.own_hosts)
    if (h.key.rfind("~/", 0) == 0) h.key = get(env, "HOME") + h.key.substr(1);
  if (!get(env, "BURST_WEBHOOK_URL").empty()) c.notify.webhook = get(env, "BURST_WEBHOOK_URL");
  c.image_registry =
      get(env, "BURST_IMAGE_REGISTRY").empty() ? "auto" : get(env, "BURST_IMAGE_REGISTRY");
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
