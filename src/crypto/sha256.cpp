// SHA-256 through OpenSSL's EVP interface (hardware SHA extensions where present), with libcrypto
// loaded on first use (src/util/dynlib.h says why), and a portable implementation for a machine
// where libcrypto cannot be loaded. The only file that includes OpenSSL headers.
#include "crypto/sha256.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
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

// Null when libcrypto is not loadable: the portable code below is used instead.
const Evp* evp() {
  static std::once_flag once;
  static Evp api;
  static bool ok = false;
  std::call_once(once, [] {
#ifdef BURST_LIBCRYPTO_DIR
    const char* build_dir = BURST_LIBCRYPTO_DIR;
#else
    const char* build_dir = "";
#endif
    auto lib = DynLib::open(DynLib::names_for("libcrypto.so.3", "libcrypto.3.dylib", build_dir));
    if (!lib.ok()) return;
    std::string why;
    api.ctx_new = reinterpret_cast<decltype(api.ctx_new)>(lib->symbol("EVP_MD_CTX_new", &why));
    api.ctx_free = reinterpret_cast<decltype(api.ctx_free)>(lib->symbol("EVP_MD_CTX_free", &why));
    api.init = reinterpret_cast<decltype(api.init)>(lib->symbol("EVP_DigestInit_ex", &why));
    api.update = reinterpret_cast<decltype(api.update)>(lib->symbol("EVP_DigestUpdate", &why));
    api.final = reinterpret_cast<decltype(api.final)>(lib->symbol("EVP_DigestFinal_ex", &why));
    api.sha256 = reinterpret_cast<decltype(api.sha256)>(lib->symbol("EVP_sha256", &why));
    ok = api.ctx_new && api.ctx_free && api.init && api.update && api.final && api.sha256;
  });
  return ok ? &api : nullptr;
}

// FIPS 180-4, one 64-byte block at a time.
class PortableSha256 {
 public:
  void reset() {
    h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    len_ = 0;
    used_ = 0;
  }
  void update(const unsigned char* p, size_t n) {
    len_ += n;
    while (n > 0) {
      size_t take = std::min(n, sizeof buf_ - used_);
      std::memcpy(buf_ + used_, p, take);
      used_ += take;
      p += take;
      n -= take;
      if (used_ == sizeof buf_) {
        block(buf_);
        used_ = 0;
      }
    }
  }
  void finish(unsigned char out[32]) {
    const uint64_t bits = len_ * 8;
    const unsigned char pad = 0x80;
    update(&pad, 1);
    const unsigned char zero = 0;
    while (used_ != 56) update(&zero, 1);
    unsigned char l[8];
    for (int i = 0; i < 8; ++i) l[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
    update(l, 8);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 4; ++j)
        out[4 * i + j] = static_cast<unsigned char>(h_[i] >> (24 - 8 * j));
    reset();
  }

 private:
  static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
  void block(const unsigned char* p) {
    static constexpr uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = uint32_t(p[4 * i]) << 24 | uint32_t(p[4 * i + 1]) << 16 | uint32_t(p[4 * i + 2]) << 8 |
             uint32_t(p[4 * i + 3]);
    for (int i = 16; i < 64; ++i) {
      uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
    for (int i = 0; i < 64; ++i) {
      uint32_t t1 =
          h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h_[0] += a, h_[1] += b, h_[2] += c, h_[3] += d, h_[4] += e, h_[5] += f, h_[6] += g, h_[7] += h;
  }

  std::array<uint32_t, 8> h_{};
  uint64_t len_ = 0;
  unsigned char buf_[64];
  size_t used_ = 0;
};

}  // namespace

struct Sha256::Impl {
  const Evp* api = evp();
  EVP_MD_CTX* ctx = nullptr;
  PortableSha256 portable;
  Impl() {
    if (api && (ctx = api->ctx_new()) != nullptr) api->init(ctx, api->sha256(), nullptr);
    portable.reset();
  }
  ~Impl() {
    if (ctx) api->ctx_free(ctx);
  }
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {}
Sha256::~Sha256() = default;

void Sha256::update(const void* data, size_t len) {
  if (impl_->ctx)
    impl_->api->update(impl_->ctx, data, len);
  else
    impl_->portable.update(static_cast<const unsigned char*>(data), len);
}

std::string Sha256::hex_digest() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 32;
  if (impl_->ctx) {
    impl_->api->final(impl_->ctx, md, &len);
    impl_->api->init(impl_->ctx, impl_->api->sha256(), nullptr);
  } else {
    impl_->portable.finish(md);
  }
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

std::string portable_sha256_hex(const std::string& data) {
  PortableSha256 h;
  h.reset();
  h.update(reinterpret_cast<const unsigned char*>(data.data()), data.size());
  unsigned char md[32];
  h.finish(md);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : md) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
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
