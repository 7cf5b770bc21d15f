// What every HTTP cloud driver (runpod, lambda, vast) does the same way around its requests:
// refuse early without an API key, and send a bearer-authenticated request through api_call.
// The create rule they share lives next door (create_rule.h).
#pragma once

#include <string>

#include "burst/http.h"
#include "burst/result.h"
#include "http/api_call.h"

namespace burst {

// Ok with a key; otherwise kAuth naming where a key comes from, e.g. "runpod: no API key (set
// RUNPOD_API_KEY, or providers.runpod.api_key in config.yaml)". Never contains a key.
Status need_api_key(const std::string& provider, const std::string& api_key);

// "ssh-ed25519 AAAA..." without its comment: how two spellings of one key compare.
std::string ssh_key_body(const std::string& key);

// base_url + path with "Authorization: Bearer <api.api_key>", through api_call's retry and
// error rules. `idempotent` false for creates: they are never resent blindly.
Result<HttpResponse> call_api(const ApiCaller& api, const std::string& base_url,
                              const std::string& method, const std::string& path,
                              std::string body = "", bool idempotent = true);

}  // namespace burst
