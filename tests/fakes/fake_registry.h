// An emulated container registry behind the HttpClient seam, following the OCI Distribution
// Spec's manifest pull (GET /v2/<name>/manifests/<tag or digest>, content negotiated by Accept,
// 404 for an unknown name or reference) and Docker's token auth spec (a request without a valid
// "Authorization: Bearer" gets 401 with WWW-Authenticate: Bearer realm,service,scope; the realm
// hands out an anonymous token for a pull scope). Tests load images into it: an index (OCI or
// Docker list) pointing to per-platform manifests, or a bare manifest. It records every request.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/http.h"

namespace burst::testing {

class FakeRegistry : public HttpClient {
 public:
  static constexpr const char* kBase = "https://registry.test";
  static constexpr const char* kRealm = "https://auth.test/token";
  static constexpr const char* kToken = "anon-token-1";

  // name:reference -> (content type, body)
  void put(const std::string& name, const std::string& reference, const std::string& type,
           const std::string& body) {
    docs_[name + "@" + reference] = {type, body};
  }
  // A manifest of `layers` sizes and a config of `config_size`.
  static std::string manifest_json(long config_size, const std::vector<long>& layers) {
    std::string out =
        "{\"schemaVersion\":2,\"config\":{\"mediaType\":\"application/"
        "vnd.oci.image.config.v1+json\",\"digest\":\"sha256:c0\",\"size\":" +
        std::to_string(config_size) + "},\"layers\":[";
    for (size_t i = 0; i < layers.size(); ++i)
      out += std::string(i ? "," : "") + "{\"digest\":\"sha256:l" + std::to_string(i) +
             "\",\"size\":" + std::to_string(layers[i]) + "}";
    return out + "]}";
  }
  static std::string index_json(const std::vector<std::pair<std::string, std::string>>& entries) {
    std::string out = "{\"schemaVersion\":2,\"manifests\":[";
    for (size_t i = 0; i < entries.size(); ++i) {
      const auto slash = entries[i].first.find('/');
      out += std::string(i ? "," : "") + "{\"digest\":\"" + entries[i].second +
             "\",\"size\":500,\"platform\":{\"os\":\"" + entries[i].first.substr(0, slash) +
             "\",\"architecture\":\"" + entries[i].first.substr(slash + 1) + "\"}}";
    }
    return out + "]}";
  }

  // Where it answers: an emulated host behind the HttpClient seam by default, or a loopback
  // server's address when a test serves it over HTTP.
  std::string base = kBase;
  std::string realm = kRealm;
  bool require_token = true;
  bool refuse_tokens = false;        // the realm answers 401
  std::function<void()> on_request;  // e.g. advance a FakeClock
  std::vector<HttpRequest> requests;

  Result<HttpResponse> send(const HttpRequest& r) override {
    requests.push_back(r);
    if (on_request) on_request();
    HttpResponse out;
    if (r.url.rfind(realm, 0) == 0) {
      if (refuse_tokens || r.url.find("scope=repository%3A") == std::string::npos) {
        out.status = 401;
        return out;
      }
      out.status = 200;
      out.body = std::string("{\"token\":\"") + kToken + "\",\"expires_in\":300}";
      return out;
    }
    const std::string prefix = base + "/v2/";
    const auto at = r.url.find("/manifests/");
    if (r.url.rfind(prefix, 0) != 0 || at == std::string::npos) {
      out.status = 404;
      return out;
    }
    const std::string name = r.url.substr(prefix.size(), at - prefix.size());
    const std::string ref = r.url.substr(at + 11);
    auto auth = r.headers.find("Authorization");
    if (require_token &&
        (auth == r.headers.end() || auth->second != std::string("Bearer ") + kToken)) {
      out.status = 401;
      out.headers["www-authenticate"] = "Bearer realm=\"" + realm +
                                        "\",service=\"registry.test\",scope=\"repository:" + name +
                                        ":pull\"";
      return out;
    }
    auto doc = docs_.find(name + "@" + ref);
    if (doc == docs_.end()) {
      out.status = 404;
      out.body = "{\"errors\":[{\"code\":\"MANIFEST_UNKNOWN\"}]}";
      return out;
    }
    auto accept = r.headers.find("Accept");
    if (accept == r.headers.end() || accept->second.find(doc->second.first) == std::string::npos) {
      out.status = 404;  // the spec: a type the client does not accept is not served
      return out;
    }
    out.status = 200;
    out.headers["content-type"] = doc->second.first;
    out.body = doc->second.second;
    return out;
  }

 private:
  std::map<std::string, std::pair<std::string, std::string>> docs_;
};

}  // namespace burst::testing
