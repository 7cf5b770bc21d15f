#include "runpod/runpod_account.h"

#include "driver_common.h"
#include "runpod/runpod_json.h"

namespace burst {

Result<AccountCheck> runpod_check_account(const ApiCaller& api, const std::string& base_url,
                                          const std::string& ssh_public_key) {
  if (Status st = need_api_key("runpod", api.api_key); !st.ok()) return st.error();
  auto r = call_api(api, base_url, "GET", "/v2/pods?includeClusterPods=false");
  if (!r.ok()) return r.error();
  AccountCheck out;
  out.server_date = r->header("date");
  out.ssh_key_note = "GET /v2/account/ssh-keys";
  auto keys = call_api(api, base_url, "GET", "/v2/account/ssh-keys");
  if (!keys.ok()) {
    if (keys.error().code == ErrorCode::kAuth) return keys.error();
    out.ssh_key_note = "GET /v2/account/ssh-keys: " + keys.error().message;
    return out;
  }
  runpod::json j = runpod::json::parse(keys->body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("keys") || !j["keys"].is_array()) {
    out.ssh_key_note = "GET /v2/account/ssh-keys: not the documented {\"keys\": [...]}";
    return out;
  }
  bool have = false;
  for (const auto& k : j["keys"])
    if (k.is_string() && ssh_key_body(k.get<std::string>()) == ssh_key_body(ssh_public_key))
      have = true;
  out.ssh_key_registered = have;
  return out;
}

}  // namespace burst
