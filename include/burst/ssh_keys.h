// The SSH identity burst uses to reach its pods.
#pragma once

#include <string>

#include "burst/result.h"

namespace burst {

// Returns the OpenSSH public key line for the private key at `private_key_path`, generating an
// ed25519 pair there first (private key mode 0600, `<path>.pub` beside it) if the file is absent.
Result<std::string> ensure_keypair(const std::string& private_key_path);

}  // namespace burst
