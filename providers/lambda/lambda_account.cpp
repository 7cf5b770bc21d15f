#include "lambda/lambda_account.h"

#include "driver_common.h"
#include "lambda/lambda_json.h"

namespace burst {

Result<AccountCheck> lambda_check_account(const ApiCaller& api, const std::string& base_url,
                                          const std::string& ssh_public_key) {
  if (Status st = need_api_key("lambda", api.api_key); !st.ok()) return st.error();
  auto r = call_api(api, base_url, "GET", "/api/v1/ssh-keys");
  if (!r.ok()) return r.error();
  AccountCheck out;
  out.server_date = r->header("date");
  out.ssh_key_note = "GET /api/v1/ssh-keys";
  auto data = lambda::data_of(r->body, "list SSH keys");
  if (!data.ok() || !data->is_array()) {
    out.ssh_key_note = "GET /api/v1/ssh-keys: not the documented {\"data\": [...]}";
    return out;
  }
  bool have = false;
  for (const auto& k : *data)
    if (k.is_object() && k.value("public_key", lambda::json()).is_string() &&
        ssh_key_body(k["public_key"].get<std::string>()) == ssh_key_body(ssh_public_key))
      have = true;
  out.ssh_key_registered = have;
  return out;
}

}  // namespace burst
