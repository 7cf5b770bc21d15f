// SHA-256, streamed. The same digest `sha256sum` prints on the pod, so both sides of a transfer
// can be compared. The OpenSSL adapter (sha256.cpp) is the only file that includes OpenSSL, and
// it loads libcrypto on first use. Without libcrypto (which libssh needs too) the first Sha256
// prints why and ends the process: there is no second implementation.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "burst/result.h"

namespace burst {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, size_t len);
  // Lower-case hex of the digest; the object starts over afterwards.
  std::string hex_digest();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::string sha256_hex(const std::string& data);
// Hashes the first `limit` bytes of a file (all of it when limit is -1). kNotFound if unreadable.
Result<std::string> sha256_file(const std::string& path, long long limit = -1);

}  // namespace burst
