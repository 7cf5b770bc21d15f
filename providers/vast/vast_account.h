// `burst check` on Vast.ai: GET /api/v0/users/current/ proves the key (401 auth_error when
// refused) and gives the account's `balance` (REFERENCE §4.8, spec "show user"); GET /api/v0/ssh/
// lists the account's keys, compared with burst's by type and base64.
#pragma once

#include <string>

#include "burst/provider.h"
#include "http/api_call.h"

namespace burst {

Result<AccountCheck> vast_check_account(const ApiCaller& api, const std::string& base_url,
                                        const std::string& ssh_public_key);

}  // namespace burst
