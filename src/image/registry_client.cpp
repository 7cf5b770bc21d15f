// The registry client (image/registry_client.h).
#include "image/registry_client.h"

#include <cctype>
#include <cstdio>

#include "image/registry_parse.h"

namespace burst {
namespace {

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

  Result<HttpResponse> send(HttpRequest request) {
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

Result<int64_t> fetch_image_bytes(HttpClient& http, const Clock& clock, const ImageRef& image,
                                  const RegistryOptions& options) {
  return RegistrySession(http, clock, image, options).run();
}

}  // namespace burst
