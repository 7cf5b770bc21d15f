// How many bytes a pull of an image downloads: its compressed size for linux/amd64, asked of the
// image's registry the way `docker pull` asks it. Follows the OCI Distribution Spec
// (https://github.com/opencontainers/distribution-spec/blob/main/spec.md, "Pulling manifests")
// and Docker's token authentication spec
// (https://distribution.github.io/distribution/spec/auth/token/):
//   1. GET <base>/v2/<repository>/manifests/<tag or digest>, Accept: OCI index, Docker manifest
//      list, OCI manifest, Docker v2 manifest;
//   2. a 401 with "WWW-Authenticate: Bearer realm=..,service=..,scope=.." -> GET the realm with
//      service and scope (anonymous: burst sends no credentials) for a token, then the same GET
//      with "Authorization: Bearer <token>";
//   3. an index or manifest list -> its linux/amd64 entry's digest -> GET that manifest;
//   4. size = config.size + sum(layers[].size) (image/registry_parse.h).
// At most kRegistryMaxRequests requests, none started after `deadline` has passed since the call
// began (each request's own timeout is the HTTP client's: app code makes it short), so a plan
// never waits long on a registry. HTTP goes through the HttpClient passed in (tests swap it).
// burst sends no credentials: the token is anonymous, and goes to the registry only. Every URL,
// the realm a registry names included, passes the HTTP client's rule (https, or plain http to
// loopback only: http/curl_http_client.h, check_api_url).
// The spec names the registry and the registry names its token server, so in automatic mode (no
// base_url) the client goes only where a registry can be: https only, a host whose every address
// is public (util/public_address.h: no loopback, private, link-local, unique-local, CGNAT, ...),
// and a realm on the registry's own host or domain. Anything else is refused before a request
// (kInvalid, "... is not a public address", "... realm ... is not on the registry's domain"),
// and a plan then goes on without the image's size. Only an explicit base_url (the user's
// BURST_IMAGE_REGISTRY: a mirror, the tests' emulated registry) goes anywhere else. The HTTP
// client for automatic mode should also refuse non-public addresses at connect time
// (CurlOptions::public_addresses_only), so a name that resolves differently the second time
// (DNS rebinding) gets nowhere either.
// Errors, classified: kInvalid (bad reference, malformed answer), kNotFound (no such image or
// tag, or no linux/amd64 image), kAuth (the registry refused an anonymous token: a private
// image), kTimeout (the deadline passed), kRateLimited (429), kUnavailable / kConnection
// (transport, 5xx); messages name the image.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/http.h"
#include "burst/result.h"
#include "image/image_ref.h"

namespace burst {

inline constexpr int kRegistryMaxRequests = 6;

// A host's addresses as numeric text (util/public_address.h, resolve_host).
using ResolveHost = std::function<Result<std::vector<std::string>>(const std::string& host)>;

struct RegistryOptions {
  // "" asks each image's own registry over https (automatic mode, public addresses only);
  // "http://127.0.0.1:PORT" (a mirror, or the emulated registry of the tests) is asked for every
  // image instead.
  std::string base_url;
  Duration deadline{3000};
  // Automatic mode's resolver; null: the system's (resolve_host). Tests give their own.
  ResolveHost resolve;
};

// Whether the registry's domain (host[:port] as in ImageRef::registry) allows a token realm URL:
// https, on the registry's host or on its domain (the last two labels, three under a two-letter
// country code whose second label is at most three letters: "auth.docker.io" for
// "registry-1.docker.io", "x.example.co.uk" for "r.example.co.uk"). Empty when allowed, else why.
std::string realm_refusal(const std::string& registry, const std::string& realm_url);

Result<int64_t> fetch_image_bytes(HttpClient& http, const Clock& clock, const ImageRef& image,
                                  const RegistryOptions& options);

}  // namespace burst
