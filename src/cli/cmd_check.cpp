// `burst check [SPEC]`: whether this set-up works, before any money is spent. For each provider
// checked: the API key is present and accepted (one authenticated call, Provider::check_account),
// burst's SSH key is registered where the API says so, the account's balance where the API
// exposes it, the clock against the provider's Date header, and (with a spec) that the region of
// the spec's existing volume has a GPU the spec allows. Locally: burst's SSH key files and their
// modes, and the state dir. One line per check (ok / FAIL / warn / skipped) with what to do;
// --json. Exit 0 when nothing failed, 3 when a credential or config check failed, else 1.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/offers.h"
#include "burst/clock.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/spec_errors.h"
#include "cli/table.h"
#include "registry.h"
#include "ssh/ssh_provider.h"

namespace burst {
namespace {

constexpr double kMaxClockSkewS = 60;

enum class Verdict { kOk, kFail, kWarn, kSkipped };

struct CheckLine {
  std::string name;      // "api key", "ssh key", "state dir", ...
  std::string provider;  // "" for local checks
  Verdict verdict = Verdict::kOk;
  std::string message;
  std::string fix;      // what to do; "" when nothing
  bool config = false;  // a failure of credentials or config (exit 3)
};

const char* verdict_word(Verdict v) {
  switch (v) {
    case Verdict::kOk:
      return "ok";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kWarn:
      return "warn";
    case Verdict::kSkipped:
      return "skipped";
  }
  return "?";
}

std::string key_variable(const std::string& provider) {
  std::string var = provider;
  for (auto& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return var + "_API_KEY";
}

std::string mode_text(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Seconds since the epoch from an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"); -1 if not one.
double parse_http_date(const std::string& value) {
  std::tm tm{};
  const char* end = strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end) return -1;
  return static_cast<double>(timegm(&tm));
}

void check_ssh_key(const Config& config, std::vector<CheckLine>* out, std::string* public_key) {
  const std::string& path = config.ssh_key;
  const bool default_path = path == config.config_dir + "/id_ed25519";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (default_path) {
      out->push_back({"ssh key", "", Verdict::kWarn,
                      "burst's SSH key " + path + " does not exist yet",
                      "the first `burst run` creates it (ed25519, mode 0600)", false});
    } else {
      out->push_back({"ssh key", "", Verdict::kFail,
                      "the SSH key " + path + " set in config.yaml does not exist",
                      "create it (ssh-keygen -t ed25519 -N '' -f " + path +
                          ") or remove ssh_key from config.yaml",
                      true});
    }
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    out->push_back({"ssh key", "", Verdict::kFail, path + " is not a file",
                    "point ssh_key in config.yaml at a private key file", true});
    return;
  }
  if (st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
    out->push_back({"ssh key", "", Verdict::kFail,
                    "the SSH private key " + path + " has mode " + mode_text(st.st_mode) +
                        (st.st_uid != ::geteuid() ? " and belongs to another user" : "") +
                        "; SSH refuses a key others can read",
                    "chmod 600 " + path, true});
    return;
  }
  std::ifstream pub(path + ".pub");
  std::string line;
  if (!pub || !std::getline(pub, line) || line.empty()) {
    out->push_back({"ssh key", "", Verdict::kFail,
                    "the SSH public key " + path + ".pub is missing or empty",
                    "ssh-keygen -y -f " + path + " > " + path + ".pub", true});
    return;
  }
  *public_key = line;
  out->push_back(
      {"ssh key", "", Verdict::kOk, path + " (mode " + mode_text(st.st_mode) + ")", "", false});
}

void check_state_dir(const Config& config, std::vector<CheckLine>* out) {
  const std::string& dir = config.state_dir;
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    out->push_back({"state dir", "", Verdict::kWarn, dir + " does not exist yet",
                    "the first burst command that needs it creates it (mode 0700)", false});
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    out->push_back({"state dir", "", Verdict::kFail, dir + " is not a directory",
                    "remove it or set BURST_STATE_DIR to a directory", true});
    return;
  }
  if (st.st_uid != ::geteuid()) {
    out->push_back({"state dir", "", Verdict::kFail, dir + " belongs to another user",
                    "use a state dir of your own (BURST_STATE_DIR)", true});
    return;
  }
  if ((st.st_mode & 077) != 0) {
    out->push_back({"state dir", "", Verdict::kFail,
                    dir + " has mode " + mode_text(st.st_mode) +
                        ": others can read job logs, reports and the database",
                    "chmod 700 " + dir, true});
    return;
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    out->push_back(
        {"state dir", "", Verdict::kFail, dir + " is not writable", "chmod u+rwx " + dir, true});
    return;
  }
  out->push_back({"state dir", "", Verdict::kOk,
                  dir + " (private, mode " + mode_text(st.st_mode) + ", writable)", "", false});
}

bool allowed_gpu(const PipelineSpec& spec, const Offer& o) {
  const auto& gpus = spec.resources.gpus;
  if (!gpus.empty() && std::find(gpus.begin(), gpus.end(), o.gpu_type) == gpus.end()) return false;
  if (o.gpu_count < std::max(1, spec.resources.count_for(o.gpu_type))) return false;
  if (spec.resources.min_vram_gb && o.vram_gb && *o.vram_gb < *spec.resources.min_vram_gb)
    return false;
  return o.available;
}

void check_volume_region(Provider& p, const PipelineSpec& spec, std::vector<CheckLine>* out) {
  const std::string& name = p.name();
  const std::string vol = spec.volume.name;
  auto vols = p.list_volumes();
  if (!vols.ok()) {
    out->push_back({"volume region", name, Verdict::kFail,
                    "cannot list volumes: " + vols.error().message, "try again; `burst check`",
                    vols.error().code == ErrorCode::kAuth});
    return;
  }
  const Volume* found = nullptr;
  for (const auto& v : *vols)
    if (v.name == vol) found = &v;
  if (!found) {
    out->push_back({"volume region", name, Verdict::kSkipped,
                    "volume " + vol + " does not exist yet; the first run creates it where it runs",
                    "", false});
    return;
  }
  auto offers = p.offers(true);
  if (!offers.ok()) {
    out->push_back({"volume region", name, Verdict::kFail,
                    "cannot list offers: " + offers.error().message, "try again",
                    offers.error().code == ErrorCode::kAuth});
    return;
  }
  std::vector<std::string> seen;
  for (const auto& o : *offers)
    if (o.region == found->region && allowed_gpu(spec, o) &&
        std::find(seen.begin(), seen.end(), o.gpu_type) == seen.end())
      seen.push_back(o.gpu_type);
  if (seen.empty()) {
    std::string gpus;
    for (const auto& g : spec.resources.gpus) gpus += (gpus.empty() ? "" : ", ") + g;
    out->push_back({"volume region", name, Verdict::kFail,
                    "volume " + vol + " is in " + found->region +
                        ", where no GPU the spec allows is offered now" +
                        (gpus.empty() ? "" : " (" + gpus + ")"),
                    "allow more GPU types in resources.gpus, or try again later", false});
    return;
  }
  std::string list;
  for (const auto& g : seen) list += (list.empty() ? "" : ", ") + g;
  out->push_back({"volume region", name, Verdict::kOk,
                  "volume " + vol + " is in " + found->region + ", which offers " + list, "",
                  false});
}

void check_provider(const std::string& name, const Config& config, Clock& clock,
                    const PipelineSpec* spec, const std::string& public_key, bool asked_for,
                    std::vector<CheckLine>* out) {
  if (!has_api_key(config, name)) {
    const std::string fix = "set " + key_variable(name) + " (or providers." + name +
                            ".api_key in config.yaml, mode 0600)";
    if (asked_for)
      out->push_back(
          {"api key", name, Verdict::kFail, name + ": no API key is configured", fix, true});
    else
      out->push_back({"api key", name, Verdict::kSkipped,
                      name + ": no API key configured; `burst offers` prices it from the offline "
                             "table",
                      fix, false});
    return;
  }
  auto made = make_provider(name, config, clock);
  if (!made.ok()) {
    out->push_back({"api key", name, Verdict::kFail, made.error().message, "", true});
    return;
  }
  Provider& p = **made;
  const auto source = config.clouds.count(name) ? config.clouds.at(name).api_key_source : "";
  auto account = p.check_account(public_key);
  if (!account.ok()) {
    Error e = account.error();
    if (e.message.rfind(name + ": ", 0) == 0) e.message.erase(0, name.size() + 2);
    if (e.code == ErrorCode::kAuth)
      out->push_back({"api key", name, Verdict::kFail,
                      name + ": the API key" + (source.empty() ? "" : " from " + source) +
                          " was refused: " + e.message,
                      "set " + key_variable(name) + " (or providers." + name +
                          ".api_key in config.yaml) to a valid key from the provider's console",
                      true});
    else
      out->push_back({"api key", name, Verdict::kFail, name + ": cannot check: " + e.message,
                      "check the network and base_url, then run `burst check` again", false});
    return;
  }
  out->push_back({"api key", name, Verdict::kOk,
                  name + ": API key" + (source.empty() ? "" : " from " + source) + " accepted", "",
                  false});
  const AccountCheck& a = *account;
  if (public_key.empty())
    out->push_back({"ssh key registered", name, Verdict::kSkipped,
                    name + ": no public key yet to look for", "", false});
  else if (!a.ssh_key_registered)
    out->push_back({"ssh key registered", name, Verdict::kSkipped,
                    name + ": not checkable (" + a.ssh_key_note + ")", "", false});
  else if (*a.ssh_key_registered)
    out->push_back({"ssh key registered", name, Verdict::kOk,
                    name + ": burst's SSH key is registered on the account", "", false});
  else
    out->push_back({"ssh key registered", name, Verdict::kWarn,
                    name + ": burst's SSH key is not registered on the account yet",
                    "`burst run` registers it (adding to your keys) before the first pod", false});
  if (a.balance_usd) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "$%.2f", *a.balance_usd);
    if (*a.balance_usd > 0)
      out->push_back(
          {"balance", name, Verdict::kOk, name + ": balance " + std::string(buf), "", false});
    else
      out->push_back({"balance", name, Verdict::kFail, name + ": balance " + std::string(buf),
                      "add credit in the provider's console before running", false});
  } else {
    out->push_back({"balance", name, Verdict::kSkipped,
                    name + ": not checkable (the API does not expose the balance)", "", false});
  }
  const double server = parse_http_date(a.server_date);
  if (server < 0) {
    out->push_back({"clock", name, Verdict::kSkipped,
                    name + ": not checkable (no Date header in the answer)", "", false});
  } else {
    const double local =
        std::chrono::duration<double>(SystemClock().now().time_since_epoch()).count();
    const double skew = local - server;
    char buf[96];
    std::snprintf(buf, sizeof buf, "%+.0f s against %s's Date header", skew, name.c_str());
    if (std::fabs(skew) > kMaxClockSkewS)
      out->push_back(
          {"clock", name, Verdict::kWarn, "this machine's clock is off by " + std::string(buf),
           "sync the clock (e.g. timedatectl set-ntp true): job times and costs use it", false});
    else
      out->push_back(
          {"clock", name, Verdict::kOk, "clock within 60 s (" + std::string(buf) + ")", "", false});
  }
  if (spec) check_volume_region(p, *spec, out);
}

// Your own hosts (config.yaml providers.<name>.hosts): each probed once over SSH. Unreachable or
// without a GPU: FAIL; held by a job: warn (a job now would burst to the clouds); free: ok.
void check_own_hosts_of(const std::string& name, const Config& config, Clock& clock,
                        std::vector<CheckLine>* out) {
  if (config.own_hosts.empty()) {
    out->push_back({"own host", name, Verdict::kSkipped, name + ": no hosts in config.yaml",
                    "list them under providers." + name + ".hosts (docs/providers.md)", false});
    return;
  }
  for (const OwnHostCheck& c :
       check_own_hosts(ssh_options_from(config), make_connector(name), clock)) {
    const std::string who = name + ": " + c.host + " (" + c.endpoint + ")";
    if (!c.reachable) {
      out->push_back({"own host", name, Verdict::kFail, who + ": unreachable: " + c.error,
                      "check its address, port, user and key in config.yaml", true});
    } else if (c.gpus.empty()) {
      out->push_back({"own host", name, Verdict::kFail, who + ": no GPU found: " + c.error,
                      "install the NVIDIA driver (nvidia-smi) on the host", false});
    } else {
      char cost[32];
      std::snprintf(cost, sizeof cost, "$%.3f/h", c.usd_per_hour);
      const std::string what = who + ": " + c.gpus + " at " + cost + " owned";
      if (c.busy)
        out->push_back({"own host", name, Verdict::kWarn,
                        what + ", busy (held by " + (c.holder.empty() ? "a job" : c.holder) + ")",
                        "a job now bursts to the clouds; `burst reap` frees a lock a finished "
                        "job left",
                        false});
      else
        out->push_back({"own host", name, Verdict::kOk, what + ", free", "", false});
    }
  }
}

}  // namespace

int cmd_check(const CheckArgs& args) {
  std::optional<PipelineSpec> spec;
  if (!args.spec.empty()) {
    auto options = spec_options_from_flags("", {}, /*for_run=*/false);
    auto s = options.ok() ? load_spec_or_print(args.spec, *options)
                          : Result<PipelineSpec>(options.error());
    if (!s.ok()) return spec_exit_code(s.error());
    spec = std::move(*s);
  }
  // Read as it is, before make_private_dirs would tighten it: the check reports what is wrong.
  auto config = load_config(environment_map(), all_provider_traits());
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  // Checkable: the clouds with an account, and the providers that run here (nothing to check).
  const std::vector<std::string> clouds = cloud_provider_names();
  std::string checkable;
  for (const auto& c : clouds) checkable += (checkable.empty() ? "" : ", ") + c;
  for (const auto& e : provider_table())
    if (e.traits.runs_here || e.traits.own_hosts_config)
      checkable += std::string(checkable.empty() ? "" : ", ") + e.name;
  for (const auto& p : args.providers) {
    const ProviderTraits* t = find_provider_traits(p);
    if (!t || (t->api_key_env.empty() && !t->runs_here && !t->own_hosts_config))
      return fail(kExitUsage, "unknown provider \"" + p + "\" (" + checkable + ")");
  }

  std::vector<CheckLine> lines;
  std::string public_key;
  check_ssh_key(*config, &lines, &public_key);
  check_state_dir(*config, &lines);

  std::vector<std::string> names = args.providers;
  bool asked_for = !names.empty();
  if (names.empty() && spec && !spec->resources.providers.empty()) {
    names = spec->resources.providers;
    asked_for = true;
  }
  if (names.empty()) {
    names = clouds;
    for (const auto& e : provider_table())  // your own hosts, when config.yaml lists some
      if (e.traits.own_hosts_config && !config->own_hosts.empty()) names.push_back(e.name);
  }
  SystemClock clock;
  for (const auto& name : names) {
    const ProviderTraits* t = find_provider_traits(name);
    if (t && t->own_hosts_config) {
      check_own_hosts_of(name, *config, clock, &lines);
      continue;
    }
    if (t && t->runs_here) {
      lines.push_back({"api key", name, Verdict::kSkipped,
                       name + ": needs no account (this machine)", "", false});
      continue;
    }
    if (!t || t->api_key_env.empty()) {
      lines.push_back({"api key", name, Verdict::kSkipped,
                       name + ": not checkable (no driver with an account in this build)", "",
                       false});
      continue;
    }
    check_provider(name, *config, clock, spec ? &*spec : nullptr, public_key, asked_for, &lines);
  }

  bool failed = false, config_failed = false;
  for (const auto& l : lines)
    if (l.verdict == Verdict::kFail) {
      failed = true;
      config_failed = config_failed || l.config;
    }
  const int rc = !failed ? kExitOk : config_failed ? kExitConfig : kExitFailure;
  if (args.json) {
    nlohmann::json j = {{"ok", !failed}, {"checks", nlohmann::json::array()}};
    for (const auto& l : lines)
      j["checks"].push_back({{"check", l.name},
                             {"provider", l.provider},
                             {"status", verdict_word(l.verdict)},
                             {"message", l.message},
                             {"fix", l.fix}});
    std::cout << j.dump(2) << std::endl;
    return rc;
  }
  Table table({{"STATUS"}, {"CHECK"}, {"RESULT"}});
  for (const auto& l : lines) {
    table.add({verdict_word(l.verdict), l.name, l.message});
    if (!l.fix.empty() && l.verdict != Verdict::kOk) table.add({"", "", "-> " + l.fix});
  }
  std::fputs(table.render().c_str(), stdout);
  std::printf("%s\n", !failed ? "all checks passed"
                              : "some checks failed; fix them, then run `burst check` again");
  return rc;
}

}  // namespace burst
