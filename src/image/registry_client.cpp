// The registry client (image/registry_client.h).
#include "image/registry_client.h"

#include <cctype>
#include <cstdio>
#include <optional>
#include <vector>

#include "image/registry_parse.h"
#include "util/public_address.h"

namespace burst {
namespace {

struct UrlHost {
  std::string scheme;
  std::string host;  // lower case, IPv6 without brackets
};

// The scheme and host of a URL burst is about to fetch, or nullopt when its authority holds
// anything but a host name or address and a port (userinfo, a backslash, percent escapes...), so
// that what is checked here is what libcurl connects to.
std::optional<UrlHost> url_host(const std::string& url) {
  const size_t sep = url.find("://");
  if (sep == std::string::npos) return std::nullopt;
  UrlHost out;
  out.scheme = url.substr(0, sep);
  for (char& c : out.scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t start = sep + 3;
  const size_t end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? end : end - start);
  for (char c : authority)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != ':' &&
        c != '[' && c != ']')
      return std::nullopt;
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string::npos) return std::nullopt;
    out.host = authority.substr(1, close - 1);
  } else {
    out.host = authority.substr(0, authority.find(':'));
  }
  for (char& c : out.host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (out.host.empty()) return std::nullopt;
  return out;
}

// The registrable part of a host name (see realm_refusal); an address is its own domain.
std::string domain_of(const std::string& host) {
  if (is_ip_literal(host)) return host;
  std::vector<std::string> labels;
  size_t at = 0;
  while (at <= host.size()) {
    size_t dot = host.find('.', at);
    if (dot == std::string::npos) dot = host.size();
    labels.push_back(host.substr(at, dot - at));
    at = dot + 1;
  }
  size_t keep = 2;
  if (labels.size() >= 3 && labels.back().size() == 2 && labels[labels.size() - 2].size() <= 3)
    keep = 3;
  if (labels.size() <= keep) return host;
  std::string out;
  for (size_t i = labels.size() - keep; i < labels.size(); ++i)
    out += (out.empty() ? "" : ".") + labels[i];
  return out;
}

std::string host_of_registry(const std::string& registry) {
  std::optional<UrlHost> h = url_host("https://" + registry);
  return h ? h->host : registry;
}

std::string regcli_encode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

class RegistrySession {
 public:
  RegistrySession(HttpClient& http, const Clock& clock, const ImageRef& image,
                  const RegistryOptions& options)
      : http_(http), clock_(clock), image_(image), options_(options), started_(clock.mono_now()) {}

  Result<int64_t> run() {
    Result<ManifestAnswer> first = manifest(image_.reference);
    if (!first) return first.error();
    if (!first->is_index) return first->bytes;
    Result<ManifestAnswer> second = manifest(first->amd64_digest);
    if (!second) return second.error();
    if (second->is_index) return fail(ErrorCode::kInvalid, "an index points to another index");
    return second->bytes;
  }

 private:
  std::string base() const {
    return options_.base_url.empty() ? "https://" + image_.registry : options_.base_url;
  }

  Error fail(ErrorCode code, const std::string& why) const {
    return make_error(code, "image " + image_.canonical() + ": " + why);
  }

  // Automatic mode: https to a host whose every address is public; "" when it may go.
  std::string refusal(const std::string& url) const {
    std::optional<UrlHost> h = url_host(url);
    if (!h) return "not a URL burst asks in automatic mode";
    if (h->scheme != "https") return "not https";
    std::vector<std::string> addresses{h->host};
    if (!is_ip_literal(h->host)) {
      Result<std::vector<std::string>> r =
          options_.resolve ? options_.resolve(h->host) : resolve_host(h->host);
      if (!r) return r.error().message;
      addresses = *r;
    }
    for (const std::string& a : addresses)
      if (!is_public_address_text(a))
        return h->host + " is not a public address" + (a == h->host ? "" : " (" + a + ")");
    return "";
  }

  Result<HttpResponse> send(HttpRequest request) {
    if (options_.base_url.empty()) {
      if (std::string why = refusal(request.url); !why.empty())
        return fail(ErrorCode::kInvalid, "registry lookup refused: " + why +
                                             "; set BURST_IMAGE_REGISTRY to a URL to ask a "
                                             "registry that is not on the public internet");
    }
    if (++requests_ > kRegistryMaxRequests) return fail(ErrorCode::kInternal, "too many requests");
    if (clock_.mono_now() - started_ >= options_.deadline)
      return fail(ErrorCode::kTimeout, "registry deadline passed");
    Result<HttpResponse> r = http_.send(request);
    if (!r) return fail(r.error().code, "registry: " + r.error().message);
    return r;
  }

  Result<std::string> token(const std::string& challenge_header) {
    Result<BearerChallenge> ch = parse_bearer_challenge(challenge_header);
    if (!ch) return fail(ch.error().code, ch.error().message);
    if (options_.base_url.empty()) {
      if (std::string why = realm_refusal(image_.registry, ch->realm); !why.empty())
        return fail(ErrorCode::kInvalid, "token realm refused: " + why);
    }
    HttpRequest req;
    std::string scope = ch->scope.empty() ? "repository:" + image_.repository + ":pull" : ch->scope;
    req.url = ch->realm + (ch->realm.find('?') == std::string::npos ? "?" : "&") +
              "scope=" + regcli_encode(scope);
    if (!ch->service.empty()) req.url += "&service=" + regcli_encode(ch->service);
    Result<HttpResponse> r = send(std::move(req));
    if (!r) return r.error();
    if (r->status == 401 || r->status == 403)
      return fail(ErrorCode::kAuth, "the token server refused an anonymous token (private image?)");
    if (r->status != 200)
      return fail(ErrorCode::kUnavailable,
                  "the token server answered HTTP " + std::to_string(r->status));
    Result<std::string> t = parse_token_answer(r->body);
    if (!t) return fail(t.error().code, t.error().message);
    return t;
  }

  Result<ManifestAnswer> manifest(const std::string& reference) {
    HttpRequest req;
    req.url = base() + "/v2/" + image_.repository + "/manifests/" + reference;
    req.headers["Accept"] = std::string(kMediaOciIndex) + ", " + std::string(kMediaDockerList) +
                            ", " + std::string(kMediaOciManifest) + ", " +
                            std::string(kMediaDockerManifest);
    if (!token_.empty()) req.headers["Authorization"] = "Bearer " + token_;
    Result<HttpResponse> r = send(req);
    if (!r) return r.error();
    if (r->status == 401 && token_.empty()) {
      Result<std::string> t = token(r->header("www-authenticate"));
      if (!t) return t.error();
      token_ = *t;
      req.headers["Authorization"] = "Bearer " + token_;
      r = send(req);
      if (!r) return r.error();
    }
    if (r->status == 404) return fail(ErrorCode::kNotFound, "no such image or tag in the registry");
    if (r->status == 401 || r->status == 403)
      return fail(ErrorCode::kAuth, "the registry refused access (private image?)");
    if (r->status == 429) return fail(ErrorCode::kRateLimited, "the registry is rate limiting");
    if (r->status != 200)
      return fail(ErrorCode::kUnavailable,
                  "the registry answered HTTP " + std::to_string(r->status));
    Result<ManifestAnswer> m = parse_manifest_answer(r->body, r->header("content-type"));
    if (!m) return fail(m.error().code, m.error().message);
    return m;
  }

  HttpClient& http_;
  const Clock& clock_;
  const ImageRef& image_;
  const RegistryOptions& options_;
  MonoTime started_;
  int requests_ = 0;
  std::string token_;
};

}  // namespace

std::string realm_refusal(const std::string& registry, const std::string& realm_url) {
  std::optional<UrlHost> realm = url_host(realm_url);
  if (!realm) return "not a URL burst asks";
  if (realm->scheme != "https") return realm_url.substr(0, realm_url.find("://")) + ", not https";
  const std::string host = host_of_registry(registry);
  if (realm->host == host || domain_of(realm->host) == domain_of(host)) return "";
  return realm->host + " is not on the registry's domain (" + domain_of(host) + ")";
}

Result<int64_t> fetch_image_bytes(HttpClient& http, const Clock& clock, const ImageRef& image,
                                  const RegistryOptions& options) {
  return RegistrySession(http, clock, image, options).run();
}

}  // namespace burst
