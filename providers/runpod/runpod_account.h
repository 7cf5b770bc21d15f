// `burst check` on RunPod (REST v2): the key is proven with GET /v2/pods (401 when refused), and
// burst's SSH key is looked for in GET /v2/account/ssh-keys ({"keys": ["ssh-ed25519 ..."]},
// REFERENCE §2.4.1). The v2 API documents no balance, so none is reported.
#pragma once

#include <string>

#include "burst/provider.h"
#include "http/api_call.h"

namespace burst {

Result<AccountCheck> runpod_check_account(const ApiCaller& api, const std::string& base_url,
                                          const std::string& ssh_public_key);

}  // namespace burst
