// burstd's /v1/caps (docs/daemon.md, "Team and user budgets"): the team's budget caps kept in
// the store (Store::set_cap), read live by every daemon on it.
//   GET  /v1/caps  -> {"caps": [...], "changes": [the 50 newest, newest first]}
//   POST /v1/caps  {"scope": "team"|"user"|"pipeline", "subject": NAME ("*" = every user),
//                   "period": "day"|"month", "usd": NUMBER >= 0 | null (removes it),
//                   "user": who sets it}  -> 200 {"cap": ..., "old_usd": ...}
// A bad request is a 400 naming the field; nothing is written then.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "burst/store.h"

namespace burst::daemon {

struct CapsAnswer {
  int status = 200;
  nlohmann::json body;
};

CapsAnswer caps_list(LedgerStore& store);
CapsAnswer caps_set(LedgerStore& store, const std::string& body, int64_t now_ms);

}  // namespace burst::daemon
