// The libcurl adapter behind HttpClient: one easy handle per client, reused (with its connection
// cache) for every request, so calls to one API share a kept-alive connection. Thread-safe: calls
// are serialised. Proxies from the environment apply except for loopback.
#pragma once

#include <memory>

#include "burst/clock.h"
#include "burst/http.h"

namespace burst {

struct CurlOptions {
  Duration connect_timeout{10000};
  Duration total_timeout{30000};  // whole exchange, connect included
  std::string user_agent = "burst/" BURST_VERSION;
  // A response body larger than this ends the exchange (kUnavailable, "response larger than ..."):
  // an API that streams without end cannot fill burst's memory. The largest answer burst reads,
  // Vast's offer search, is a few MB.
  size_t max_body_bytes = 64u << 20;
  // Connect only to public addresses (util/public_address.h), checked on the address libcurl is
  // about to connect to, after its own resolution: for a client that goes where untrusted input
  // says (the image-registry lookup). A refused connection is kInvalid "... refused: ADDRESS is
  // not a public address". Not applied when the environment names a proxy (https_proxy,
  // all_proxy): the connection then goes to the user's own proxy, which resolves the name.
  bool public_addresses_only = false;
};

std::unique_ptr<HttpClient> make_curl_http_client(const CurlOptions& options = {});

// The rule every request passes first: https anywhere; plain http only when the host, as
// libcurl parses the URL (userinfo, IPv6 brackets, case and ports included), is exactly
// localhost, 127.0.0.1 or [::1]. kInvalid "refusing to send an API request to HOST over SCHEME:
// ..." otherwise (naming the host and port, never the path, query or userinfo).
Status check_api_url(const std::string& url);

}  // namespace burst
