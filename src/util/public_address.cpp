// Public addresses (util/public_address.h).
#include "util/public_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <cstdint>
#include <cstring>

namespace burst {
namespace {

bool in_v4(uint32_t a, uint32_t net, int bits) {
  const uint32_t mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
  return (a & mask) == (net & mask);
}

bool public_v4(uint32_t a) {  // host byte order
  struct Net {
    uint32_t net;
    int bits;
  };
  static constexpr Net kNotPublic[] = {
      {0x00000000, 8},  {0x0A000000, 8},  {0x64400000, 10}, {0x7F000000, 8},  {0xA9FE0000, 16},
      {0xAC100000, 12}, {0xC0000000, 24}, {0xC0000200, 24}, {0xC0586300, 24}, {0xC0A80000, 16},
      {0xC6120000, 15}, {0xC6336400, 24}, {0xCB007100, 24}, {0xE0000000, 4},  {0xF0000000, 4}};
  for (const Net& n : kNotPublic)
    if (in_v4(a, n.net, n.bits)) return false;
  return true;
}

uint32_t v4_at(const uint8_t* b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

bool public_v6(const uint8_t* b) {
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static constexpr uint8_t kNat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::memcmp(b, kMapped, 12) == 0 || std::memcmp(b, kNat64, 12) == 0)
    return public_v4(v4_at(b + 12));
  if ((b[0] & 0xE0) != 0x20) return false;                        // outside 2000::/3
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] < 0x02) return false;  // 2001::/23
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) return false;  // 2001:db8::/32
  if (b[0] == 0x20 && b[1] == 0x02) return false;                                  // 2002::/16
  return true;
}

}  // namespace

bool is_public_address(const sockaddr* address) {
  if (!address) return false;
  if (address->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(address);
    return public_v4(ntohl(in->sin_addr.s_addr));
  }
  if (address->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    return public_v6(in6->sin6_addr.s6_addr);
  }
  return false;
}

bool is_public_address_text(const std::string& ip) {
  in_addr v4{};
  if (inet_pton(AF_INET, ip.c_str(), &v4) == 1) return public_v4(ntohl(v4.s_addr));
  in6_addr v6{};
  if (inet_pton(AF_INET6, ip.c_str(), &v6) == 1) return public_v6(v6.s6_addr);
  return false;
}

bool is_ip_literal(const std::string& host) {
  in_addr v4{};
  in6_addr v6{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

Result<std::vector<std::string>> resolve_host(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &list);
  if (rc != 0)
    return make_error(ErrorCode::kConnection, "cannot resolve " + host + ": " + gai_strerror(rc));
  std::vector<std::string> out;
  for (const addrinfo* a = list; a; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw =
        a->ai_family == AF_INET
            ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr)
            : static_cast<const void*>(
                  &reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr);
    if ((a->ai_family == AF_INET || a->ai_family == AF_INET6) &&
        inet_ntop(a->ai_family, raw, text, sizeof text))
      out.emplace_back(text);
  }
  freeaddrinfo(list);
  if (out.empty()) return make_error(ErrorCode::kConnection, "cannot resolve " + host);
  return out;
}

}  // namespace burst
