// Whether an address is on the public internet, for a client that goes where untrusted input
// says (the image-registry lookup: a spec names the registry, the registry names its token
// server) and must not be turned against this machine or its network.
//
// Not public: IPv4 0/8, 10/8, 100.64/10 (CGNAT), 127/8, 169.254/16 (link-local, cloud metadata),
// 172.16/12, 192.0.0/24, 192.0.2/24, 192.88.99/24, 192.168/16, 198.18/15, 198.51.100/24,
// 203.0.113/24, 224/4 (multicast) and 240/4 (reserved, broadcast); IPv6 outside 2000::/3 (so
// ::, ::1, fc00::/7 unique-local, fe80::/10 link-local, ff00::/8 multicast), 2001::/23 (Teredo
// and other protocol assignments), 2001:db8::/32 (documentation) and 2002::/16 (6to4); an
// IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) address is its IPv4 address.
// Sources: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and updates).
#pragma once

#include <sys/socket.h>

#include <string>
#include <vector>

#include "burst/result.h"

namespace burst {

// AF_INET or AF_INET6; false for any other family.
bool is_public_address(const sockaddr* address);

// A numeric address ("93.184.216.34", "2606:2800::1", no brackets); false when not one.
bool is_public_address_text(const std::string& ip);

// Whether `host` is a numeric IPv4 or IPv6 address (IPv6 without brackets).
bool is_ip_literal(const std::string& host);

// Every address the system's resolver gives for `host`, as numeric text. kConnection when it
// cannot be resolved.
Result<std::vector<std::string>> resolve_host(const std::string& host);

}  // namespace burst
