#include "vast/vast_account.h"

#include "driver_common.h"
#include "vast/vast_json.h"

namespace burst {

Result<AccountCheck> vast_check_account(const ApiCaller& api, const std::string& base_url,
                                        const std::string& ssh_public_key) {
  if (Status st = need_api_key("vast", api.api_key); !st.ok()) return st.error();
  auto r = call_api(api, base_url, "GET", "/api/v0/users/current/");
  if (!r.ok()) return r.error();
  AccountCheck out;
  out.server_date = r->header("date");
  vast::json user = vast::json::parse(r->body, nullptr, false);
  if (!user.is_discarded() && user.is_object() && user.value("balance", vast::json()).is_number())
    out.balance_usd = user["balance"].get<double>();
  out.ssh_key_note = "GET /api/v0/ssh/";
  auto keys = call_api(api, base_url, "GET", "/api/v0/ssh/");
  if (!keys.ok()) {
    if (keys.error().code == ErrorCode::kAuth) return keys.error();
    out.ssh_key_note = "GET /api/v0/ssh/: " + keys.error().message;
    return out;
  }
  auto listed = vast::parse_ssh_keys(keys->body);
  if (!listed.ok()) {
    out.ssh_key_note = "GET /api/v0/ssh/: " + listed.error().message;
    return out;
  }
  bool have = false;
  for (const auto& k : *listed) have = have || ssh_key_body(k) == ssh_key_body(ssh_public_key);
  out.ssh_key_registered = have;
  return out;
}

}  // namespace burst
