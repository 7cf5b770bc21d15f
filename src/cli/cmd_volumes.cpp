// `burst volumes`: burst's volumes on every configured provider (the store's mappings, each
// verified against the provider's own list) with size, region and storage cost per month; and
// `burst volumes delete NAME|ID`, which deletes one and verifies it is gone. A volume is burst's
// when the store maps a spec volume to it (job/volume_binding.h); nothing else is touched.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/table.h"
#include "registry.h"

namespace burst {
namespace {

using nlohmann::json;

struct VolumesArgs {
  bool json = false;
  std::string target;    // delete: spec volume name or provider id
  std::string provider;  // delete: only this provider
  bool yes = false;
};

struct Listed {
  VolumeRecord row;
  Volume live;
  double usd_per_month() const {
    const double rate = live.usd_per_gb_month > 0 ? live.usd_per_gb_month : row.usd_per_gb_month;
    return rate * (live.size_gb > 0 ? live.size_gb : row.size_gb);
  }
};

struct Survey {
  std::vector<Listed> found;
  std::vector<std::string> notes;  // one line per provider that could not answer, or row gone
  std::map<std::string, std::unique_ptr<Provider>> providers;
};

std::string money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", usd);
  return buf;
}

// Every store mapping checked against its provider's list. A provider with no API key configured
// is not asked (its mappings are reported as unverified).
Result<Survey> survey(Store& store, const Config& config, Clock& clock) {
  auto rows = store.live_volumes();
  if (!rows.ok()) return rows.error();
  Survey s;
  std::map<std::string, std::vector<Volume>> lists;
  for (const VolumeRecord& r : *rows) {
    if (r.volume_id.empty()) continue;  // a create that never returned: nothing to show
    if (!lists.count(r.provider) && !s.providers.count(r.provider)) {
      auto c = config.clouds.find(r.provider);
      if (c != config.clouds.end() && c->second.api_key.empty()) {
        s.notes.push_back(r.provider + ": not asked (no API key configured); volume " +
                          r.spec_name + " (" + r.volume_id + ") unverified");
        continue;
      }
      auto p = make_provider(r.provider, config, clock);
      if (!p.ok()) {
        s.notes.push_back(r.provider + ": " + p.error().message);
        continue;
      }
      auto vols = (*p)->list_volumes();
      if (!vols.ok()) {
        s.notes.push_back(r.provider + ": " + vols.error().message);
        continue;
      }
      lists[r.provider] = *vols;
      s.providers[r.provider] = std::move(*p);
    }
    auto list = lists.find(r.provider);
    if (list == lists.end()) continue;
    bool present = false;
    for (const Volume& v : list->second)
      if (v.id == r.volume_id) {
        s.found.push_back({r, v});
        present = true;
      }
    if (!present)
      s.notes.push_back(r.provider + ": volume " + r.spec_name + " (" + r.volume_id +
                        ") is recorded but no longer exists there");
  }
  return s;
}

int list(const VolumesArgs& a, Store& store, const Config& config, Clock& clock) {
  auto s = survey(store, config, clock);
  if (!s.ok()) return fail(kExitFailure, s.error().message);
  double total = 0;
  for (const Listed& l : s->found) total += l.usd_per_month();
  if (a.json) {
    json arr = json::array();
    for (const Listed& l : s->found)
      arr.push_back({{"provider", l.row.provider},
                     {"name", l.row.spec_name},
                     {"id", l.row.volume_id},
                     {"region", l.row.region},
                     {"size_gb", l.live.size_gb > 0 ? l.live.size_gb : l.row.size_gb},
                     {"usd_per_gb_month", l.live.usd_per_gb_month > 0 ? l.live.usd_per_gb_month
                                                                      : l.row.usd_per_gb_month},
                     {"usd_per_month", l.usd_per_month()}});
    std::cout << json{{"volumes", arr}, {"usd_per_month", total}, {"notes", s->notes}}.dump(2)
              << "\n";
    return kExitOk;
  }
  if (s->found.empty()) std::cout << "no volumes of burst's\n";
  const auto r = Table::kRight;
  Table table({{"PROVIDER"}, {"NAME"}, {"ID"}, {"REGION"}, {"SIZE GB", r}, {"$/MONTH", r}});
  for (const Listed& l : s->found) {
    const int size = l.live.size_gb > 0 ? l.live.size_gb : l.row.size_gb;
    table.add({l.row.provider, l.row.spec_name, l.row.volume_id, l.row.region, std::to_string(size),
               money(l.usd_per_month())});
  }
  if (!s->found.empty()) std::cout << table.render() << "storage: " << money(total) << "/month\n";
  for (const auto& n : s->notes) std::cout << "note: " << n << "\n";
  return kExitOk;
}

int remove(const VolumesArgs& a, Store& store, const Config& config, Clock& clock) {
  auto s = survey(store, config, clock);
  if (!s.ok()) return fail(kExitFailure, s.error().message);
  std::vector<const Listed*> hits;
  for (const Listed& l : s->found)
    if ((l.row.spec_name == a.target || l.row.volume_id == a.target) &&
        (a.provider.empty() || l.row.provider == a.provider))
      hits.push_back(&l);
  if (hits.empty())
    return fail(kExitNotFound, "no volume of burst's named or with id \"" + a.target + "\"" +
                                   (a.provider.empty() ? "" : " on " + a.provider) +
                                   " (see `burst volumes`)");
  if (hits.size() > 1) {
    std::string which;
    for (const Listed* l : hits) which += "\n  " + l->row.provider + " " + l->row.volume_id;
    return fail(kExitUsage, "\"" + a.target + "\" names " + std::to_string(hits.size()) +
                                " volumes; give the id (and --provider):" + which);
  }
  const Listed& l = *hits[0];
  const std::string what = l.row.provider + " volume " + l.row.spec_name + " (id " +
                           l.row.volume_id + ", " + l.row.region + ")";
  if (!a.yes && !make_terminal_console(false)->confirm(
                    "Delete " + what + "? Its files (e.g. cached weights) are lost."))
    return fail(kExitUsage, "not confirmed; nothing was deleted (pass --yes to skip the question)");
  Provider& p = *s->providers.at(l.row.provider);
  if (Status st = p.delete_volume(l.row.volume_id); !st.ok())
    return fail(kExitFailure, "delete " + what + ": " + st.error().message);
  auto vols = p.list_volumes();  // verify: deleted means absent from the provider's own list
  if (!vols.ok())
    return fail(kExitFailure, "deleted " + what + " but could not verify: " + vols.error().message);
  for (const Volume& v : *vols)
    if (v.id == l.row.volume_id)
      return fail(kExitFailure, "asked to delete " + what + " but it is still listed");
  VolumeRecord row = l.row;
  row.state = "deleted";
  row.updated_ms = to_unix_ms(clock.now());
  if (Status st = store.put_volume(row); !st.ok())
    return fail(kExitFailure, "deleted " + what + " but: " + st.error().message);
  if (a.json)
    std::cout << json{{"deleted", true},
                      {"provider", l.row.provider},
                      {"name", l.row.spec_name},
                      {"id", l.row.volume_id},
                      {"region", l.row.region}}
                     .dump(2)
              << "\n";
  else
    std::cout << "deleted " << what << " (verified gone)\n";
  return kExitOk;
}

int run_volumes(const VolumesArgs& a, bool deleting) {
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  auto store = open_store(*config);
  if (!store.ok()) return fail(kExitConfig, store.error().message);
  SystemClock clock;
  return deleting ? remove(a, **store, *config, clock) : list(a, **store, *config, clock);
}

}  // namespace

std::function<int()> add_volumes_command(CLI::App& app) {
  auto args = std::make_shared<VolumesArgs>();
  auto* cmd = app.add_subcommand(
      "volumes", "List burst's volumes on every configured provider, with storage cost per month");
  cmd->add_flag("--json", args->json, "print the list as JSON");
  auto* del = cmd->add_subcommand("delete", "Delete one of burst's volumes and verify it is gone");
  del->add_option("volume", args->target, "spec volume name or provider volume id")->required();
  del->add_option("--provider", args->provider, "only this provider's volume");
  del->add_flag("-y,--yes", args->yes, "do not ask before deleting");
  del->add_flag("--json", args->json, "print what was deleted as JSON");
  return [cmd, del, args]() -> int {
    if (!*cmd) return -1;
    return run_volumes(*args, static_cast<bool>(*del));
  };
}

}  // namespace burst
