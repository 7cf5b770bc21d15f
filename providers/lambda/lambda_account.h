// `burst check` on Lambda Cloud (API v1): one authenticated GET /api/v1/ssh-keys proves the key
// (401 global/invalid-api-key when refused) and says whether burst's key is registered (compared
// by its type and base64, REFERENCE §3.7). Lambda's API documents no balance.
#pragma once

#include <string>

#include "burst/provider.h"
#include "http/api_call.h"

namespace burst {

Result<AccountCheck> lambda_check_account(const ApiCaller& api, const std::string& base_url,
                                          const std::string& ssh_public_key);

}  // namespace burst
