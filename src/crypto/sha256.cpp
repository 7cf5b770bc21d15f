// SHA-256 through OpenSSL's EVP interface (hardware SHA extensions where present), with libcrypto
// loaded on first use (src/util/dynlib.h says why). The only file that includes OpenSSL headers.
#include "crypto/sha256.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "util/dynlib.h"

namespace burst {
namespace {

struct Evp {
  decltype(&::EVP_MD_CTX_new) ctx_new = nullptr;
  decltype(&::EVP_MD_CTX_free) ctx_free = nullptr;
  decltype(&::EVP_DigestInit_ex) init = nullptr;
  decltype(&::EVP_DigestUpdate) update = nullptr;
  decltype(&::EVP_DigestFinal_ex) final = nullptr;
  decltype(&::EVP_sha256) sha256 = nullptr;
};

// libcrypto's digest calls. libssh, which every transfer needs, links libcrypto itself, so a
// machine without it cannot sync or pull either: that is a broken installation, reported and
// ended here rather than hashed some other way.
const Evp& evp() {
  static std::once_flag once;
  static Evp api;
  static std::string why;
  std::call_once(once, [] {
#ifdef BURST_LIBCRYPTO_DIR
    const char* build_dir = BURST_LIBCRYPTO_DIR;
#else
    const char* build_dir = "";
#endif
    auto lib = DynLib::open(DynLib::names_for("libcrypto.so.3", "libcrypto.3.dylib", build_dir));
    if (!lib.ok()) {
      why = lib.error().message;
      return;
    }
    api.ctx_new = reinterpret_cast<decltype(api.ctx_new)>(lib->symbol("EVP_MD_CTX_new", &why));
    api.ctx_free = reinterpret_cast<decltype(api.ctx_free)>(lib->symbol("EVP_MD_CTX_free", &why));
    api.init = reinterpret_cast<decltype(api.init)>(lib->symbol("EVP_DigestInit_ex", &why));
    api.update = reinterpret_cast<decltype(api.update)>(lib->symbol("EVP_DigestUpdate", &why));
    api.final = reinterpret_cast<decltype(api.final)>(lib->symbol("EVP_DigestFinal_ex", &why));
    api.sha256 = reinterpret_cast<decltype(api.sha256)>(lib->symbol("EVP_sha256", &why));
  });
  if (!(api.ctx_new && api.ctx_free && api.init && api.update && api.final && api.sha256)) {
    std::fprintf(stderr, "burst: SHA-256 needs libcrypto (OpenSSL 3): %s\n", why.c_str());
    std::abort();
  }
  return api;
}

}  // namespace

struct Sha256::Impl {
  const Evp& api = evp();
  EVP_MD_CTX* ctx = nullptr;
  Impl() {
    ctx = api.ctx_new();
    if (!ctx) {
      std::fprintf(stderr, "burst: SHA-256: out of memory\n");
      std::abort();
    }
    api.init(ctx, api.sha256(), nullptr);
  }
  ~Impl() { api.ctx_free(ctx); }
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {}
Sha256::~Sha256() = default;

void Sha256::update(const void* data, size_t len) { impl_->api.update(impl_->ctx, data, len); }

std::string Sha256::hex_digest() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 32;
  impl_->api.final(impl_->ctx, md, &len);
  impl_->api.init(impl_->ctx, impl_->api.sha256(), nullptr);
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
