// The OpenSSL adapter for SHA-256 (EVP, so hardware SHA extensions are used where present).
#include "crypto/sha256.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace burst {

struct Sha256::Impl {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  Impl() { EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr); }
  ~Impl() { EVP_MD_CTX_free(ctx); }
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {}
Sha256::~Sha256() = default;

void Sha256::update(const void* data, size_t len) { EVP_DigestUpdate(impl_->ctx, data, len); }

std::string Sha256::hex_digest() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(impl_->ctx, md, &len);
  EVP_DigestInit_ex(impl_->ctx, EVP_sha256(), nullptr);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

std::string sha256_hex(const std::string& data) {
  Sha256 h;
  h.update(data.data(), data.size());
  return h.hex_digest();
}

Result<std::string> sha256_file(const std::string& path, long long limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(ErrorCode::kNotFound, path + ": " + std::strerror(errno));
  Sha256 h;
  std::vector<char> buf(256 * 1024);
  long long left = limit;
  while (limit < 0 || left > 0) {
    size_t want = buf.size();
    if (limit >= 0 && static_cast<long long>(want) > left) want = static_cast<size_t>(left);
    ssize_t n = ::read(fd, buf.data(), want);
    if (n < 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return make_error(ErrorCode::kInternal, path + ": " + why);
    }
    if (n == 0) break;
    h.update(buf.data(), static_cast<size_t>(n));
    left -= n;
  }
  ::close(fd);
  return h.hex_digest();
}

}  // namespace burst
