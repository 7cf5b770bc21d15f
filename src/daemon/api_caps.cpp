#include "daemon/api_caps.h"

#include <algorithm>
#include <cmath>

#include "burst/clock.h"

namespace burst::daemon {
namespace {

using nlohmann::json;

CapsAnswer bad(const std::string& message) { return {400, json{{"error", message}}}; }

json usd_or_null(const std::optional<double>& usd) { return usd ? json(*usd) : json(nullptr); }

// A name as the ledger shows it: at most 64 characters, none a control character.
bool plain_name(const std::string& s) {
  return !s.empty() && s.size() <= 64 && std::none_of(s.begin(), s.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

}  // namespace

CapsAnswer caps_list(LedgerStore& store) {
  auto caps = store.caps();
  if (!caps.ok()) return {500, json{{"error", caps.error().message}}};
  auto changes = store.cap_changes(50);
  if (!changes.ok()) return {500, json{{"error", changes.error().message}}};
  json out = {{"caps", json::array()}, {"changes", json::array()}};
  for (const CapSetting& c : *caps)
    out["caps"].push_back({{"scope", c.scope},
                           {"subject", c.subject},
                           {"period", c.period},
                           {"usd", c.usd},
                           {"set_by", c.set_by},
                           {"set", c.set_ms ? format_utc(from_unix_ms(c.set_ms)) : ""}});
  for (const CapChange& c : *changes)
    out["changes"].push_back({{"scope", c.scope},
                              {"subject", c.subject},
                              {"period", c.period},
                              {"old_usd", usd_or_null(c.old_usd)},
                              {"new_usd", usd_or_null(c.new_usd)},
                              {"set_by", c.set_by},
                              {"at", format_utc(from_unix_ms(c.at_ms))}});
  return {200, out};
}

CapsAnswer caps_set(LedgerStore& store, const std::string& body, int64_t now_ms) {
  const json req = json::parse(body, nullptr, false);
  if (!req.is_object()) return bad("the body must be a JSON object");
  for (const char* key : {"scope", "subject", "period"})
    if (!req.contains(key) || !req[key].is_string())
      return bad(std::string("\"") + key + "\" must be a string");
  CapChange change;
  change.scope = req["scope"].get<std::string>();
  change.subject = req["subject"].get<std::string>();
  change.period = req["period"].get<std::string>();
  if (change.scope != "team" && change.scope != "user" && change.scope != "pipeline")
    return bad("\"scope\" must be team, user or pipeline, not \"" + change.scope + "\"");
  if (change.period != "day" && change.period != "month")
    return bad("\"period\" must be day or month, not \"" + change.period + "\"");
  if (!plain_name(change.subject))
    return bad("\"subject\" must be 1 to 64 characters, none a control character");
  if (change.subject == "*" && change.scope != "user")
    return bad("\"subject\": * (every user) is for scope user only");
  if (!req.contains("usd")) return bad("\"usd\" is required: a number of dollars, or null");
  if (!req["usd"].is_null()) {
    if (!req["usd"].is_number()) return bad("\"usd\" must be a number of dollars, or null");
    const double usd = req["usd"].get<double>();
    if (!std::isfinite(usd) || usd < 0) return bad("\"usd\" must be 0 or more");
    change.new_usd = usd;
  }
  if (req.contains("user") && !req["user"].is_string()) return bad("\"user\" must be a string");
  change.set_by = req.value("user", "");
  if (!change.set_by.empty() && !plain_name(change.set_by))
    return bad("\"user\" must be at most 64 characters, none a control character");
  change.at_ms = now_ms;
  if (Status st = store.set_cap(change); !st.ok())
    return {500, json{{"error", st.error().message}}};
  auto latest = store.cap_changes(1);
  std::optional<double> old;
  if (latest.ok() && !latest->empty()) old = latest->front().old_usd;
  return {200, json{{"cap",
                     {{"scope", change.scope},
                      {"subject", change.subject},
                      {"period", change.period},
                      {"usd", usd_or_null(change.new_usd)}}},
                    {"old_usd", usd_or_null(old)}}};
}

}  // namespace burst::daemon
