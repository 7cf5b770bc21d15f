// The registry client (src/image/): reference normalisation as `docker pull` reads it, the token
// dance, index -> linux/amd64 -> manifest, the size sum, classified errors, bounded answers and a
// bounded time, against the emulated registry (tests/fakes/fake_registry.h).
#include <gtest/gtest.h>

#include <string>

#include "fakes/fake_clock.h"
#include "fakes/fake_registry.h"
#include "image/image_ref.h"
#include "image/registry_client.h"
#include "image/registry_parse.h"
#include "util/public_address.h"

namespace burst {
namespace {

using testing::FakeRegistry;

std::string imgreg_canon(const std::string& text) {
  auto r = parse_image_ref(text);
  return r.ok() ? r->canonical() : "error: " + r.error().message;
}

TEST(ImageRef, NormalisesLikeDockerPull) {
  EXPECT_EQ(imgreg_canon("ubuntu:22.04"), "registry-1.docker.io/library/ubuntu:22.04");
  EXPECT_EQ(imgreg_canon("ubuntu"), "registry-1.docker.io/library/ubuntu:latest");
  EXPECT_EQ(imgreg_canon("runpod/pytorch:2.1.0-py3.10-cuda11.8.0-devel-ubuntu22.04"),
            "registry-1.docker.io/runpod/pytorch:2.1.0-py3.10-cuda11.8.0-devel-ubuntu22.04");
  EXPECT_EQ(imgreg_canon("docker.io/nvidia/cuda:12.1.0-base"),
            "registry-1.docker.io/nvidia/cuda:12.1.0-base");
  EXPECT_EQ(imgreg_canon("ghcr.io/owner/name:tag"), "ghcr.io/owner/name:tag");
  EXPECT_EQ(imgreg_canon("localhost:5000/team/img"), "localhost:5000/team/img:latest");
  EXPECT_EQ(imgreg_canon("registry.example.com:8443/a/b/c:v1"),
            "registry.example.com:8443/a/b/c:v1");
  const std::string digest = "sha256:" + std::string(64, 'a');
  EXPECT_EQ(imgreg_canon("ubuntu:22.04@" + digest),
            "registry-1.docker.io/library/ubuntu@" + digest);
  auto r = parse_image_ref("localhost:5000/team/img");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->registry, "localhost:5000");
  EXPECT_EQ(r->repository, "team/img");
  EXPECT_EQ(r->reference, "latest");
  for (const char* bad : {"", "Ubuntu:22.04", "ubuntu:", "ubuntu@sha256:abc", "a//b", "-x",
                          "ubuntu:tag with space"}) {
    auto b = parse_image_ref(bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.error().code, ErrorCode::kInvalid) << bad;
  }
}

TEST(RegistryParse, BearerChallengeAndHostileHeaders) {
  auto c = parse_bearer_challenge(
      R"(Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/ubuntu:pull")");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->realm, "https://auth.docker.io/token");
  EXPECT_EQ(c->service, "registry.docker.io");
  EXPECT_EQ(c->scope, "repository:library/ubuntu:pull");
  for (const char* bad : {"", "Basic realm=\"x\"", "Bearer service=\"x\"",
                          "Bearer realm=\"unterminated", "Bearer realm=\"http://a b\""})
    EXPECT_FALSE(parse_bearer_challenge(bad).ok()) << bad;
  EXPECT_FALSE(parse_bearer_challenge("Bearer realm=\"" + std::string(10000, 'a') + "\"").ok());
}

TEST(RegistryParse, ManifestSizesAreSummedAndBounded) {
  auto m = parse_manifest_answer(FakeRegistry::manifest_json(7023, {32654, 16724}),
                                 std::string(kMediaOciManifest));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_FALSE(m->is_index);
  EXPECT_EQ(m->bytes, 7023 + 32654 + 16724);
  // Negative, fractional or absurd sizes, oversized and deeply nested bodies: errors, no crash.
  EXPECT_FALSE(parse_manifest_answer(FakeRegistry::manifest_json(1, {-5}), "").ok());
  EXPECT_FALSE(
      parse_manifest_answer(FakeRegistry::manifest_json(1, {20'000'000'000'000}), "").ok());
  EXPECT_FALSE(parse_manifest_answer(R"({"config":{"size":1.5},"layers":[]})",
                                     std::string(kMediaOciManifest))
                   .ok());
  std::string huge = FakeRegistry::manifest_json(1, {1});
  huge.insert(huge.size() - 1, ",\"pad\":\"" + std::string(kRegistryMaxBodyBytes, 'x') + "\"");
  auto big = parse_manifest_answer(huge, "");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("too large"), std::string::npos);
  EXPECT_FALSE(parse_manifest_answer(std::string(100000, '[') + std::string(100000, ']'), "").ok());
  EXPECT_FALSE(parse_manifest_answer("{\"manifests\":[]}", "").ok());
}

class RegistryClient : public ::testing::Test {
 protected:
  RegistryClient() { options_.base_url = FakeRegistry::kBase; }
  Result<int64_t> fetch(const std::string& image) {
    auto ref = parse_image_ref(image);
    EXPECT_TRUE(ref.ok());
    return fetch_image_bytes(registry_, clock_, *ref, options_);
  }
  FakeRegistry registry_;
  FakeClock clock_;
  RegistryOptions options_;
};

TEST_F(RegistryClient, TokenDanceThenIndexToAmd64ThenSizeSum) {
  const std::string amd64 = "sha256:" + std::string(64, '1');
  const std::string arm64 = "sha256:" + std::string(64, '2');
  registry_.put("runpod/pytorch", "2.1", std::string(kMediaOciIndex),
                FakeRegistry::index_json({{"linux/arm64", arm64}, {"linux/amd64", amd64}}));
  registry_.put("runpod/pytorch", amd64, std::string(kMediaOciManifest),
                FakeRegistry::manifest_json(5000, {7'000'000'000, 900'000'000}));
  registry_.put("runpod/pytorch", arm64, std::string(kMediaOciManifest),
                FakeRegistry::manifest_json(5000, {1}));
  auto bytes = fetch("runpod/pytorch:2.1");
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  EXPECT_EQ(*bytes, 7'900'005'000);
  // 401 -> token from the realm (scope and service from the challenge) -> retry -> amd64 by digest.
  ASSERT_EQ(registry_.requests.size(), 4u);
  EXPECT_EQ(registry_.requests[0].url, "https://registry.test/v2/runpod/pytorch/manifests/2.1");
  EXPECT_EQ(
      registry_.requests[1].url,
      "https://auth.test/token?scope=repository%3Arunpod%2Fpytorch%3Apull&service=registry.test");
  EXPECT_EQ(registry_.requests[2].headers.at("Authorization"), "Bearer anon-token-1");
  EXPECT_EQ(registry_.requests[3].url,
            "https://registry.test/v2/runpod/pytorch/manifests/" + amd64);
  for (const char* type : {kMediaOciIndex.data(), kMediaDockerList.data(), kMediaOciManifest.data(),
                           kMediaDockerManifest.data()})
    EXPECT_NE(registry_.requests[0].headers.at("Accept").find(type), std::string::npos) << type;
}

TEST_F(RegistryClient, DockerHubOfficialImageIsUnderLibraryAndADockerManifestWorks) {
  registry_.require_token = false;
  registry_.put("library/ubuntu", "22.04", std::string(kMediaDockerManifest),
                FakeRegistry::manifest_json(2000, {29'000'000}));
  auto bytes = fetch("ubuntu:22.04");
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  EXPECT_EQ(*bytes, 29'002'000);
  EXPECT_EQ(registry_.requests.size(), 1u);
}

TEST_F(RegistryClient, ErrorsAreClassified) {
  auto missing = fetch("nobody/nothing:1");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message.find("registry-1.docker.io/nobody/nothing:1"),
            std::string::npos);
  registry_.refuse_tokens = true;
  auto refused = fetch("private/model:1");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kAuth);
  // An index without linux/amd64: not found, saying so.
  registry_.refuse_tokens = false;
  registry_.put("arm/only", "1", std::string(kMediaDockerList),
                FakeRegistry::index_json({{"linux/arm64", "sha256:" + std::string(64, '3')}}));
  auto arm = fetch("arm/only:1");
  ASSERT_FALSE(arm.ok());
  EXPECT_EQ(arm.error().code, ErrorCode::kNotFound);
  EXPECT_NE(arm.error().message.find("linux/amd64"), std::string::npos);
}

TEST_F(RegistryClient, AHostileRegistryGetsABoundedError) {
  registry_.put("evil/img", "1", std::string(kMediaOciManifest),
                std::string(kRegistryMaxBodyBytes + 1, ' '));
  auto big = fetch("evil/img:1");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code, ErrorCode::kInvalid);
  // An index that points to itself: one hop, then an error, not a loop.
  const std::string self = "sha256:" + std::string(64, '4');
  registry_.put("evil/loop", "1", std::string(kMediaOciIndex),
                FakeRegistry::index_json({{"linux/amd64", self}}));
  registry_.put("evil/loop", self, std::string(kMediaOciIndex),
                FakeRegistry::index_json({{"linux/amd64", self}}));
  registry_.requests.clear();
  auto loop = fetch("evil/loop:1");
  ASSERT_FALSE(loop.ok());
  EXPECT_LE(registry_.requests.size(), static_cast<size_t>(kRegistryMaxRequests));
}

TEST_F(RegistryClient, NoRequestStartsAfterTheDeadline) {
  registry_.put("slow/img", "1", std::string(kMediaOciManifest),
                FakeRegistry::manifest_json(1, {1}));
  // Each request "takes" 2 s: the first 401 and the token fit in 3 s, the retry does not start.
  registry_.on_request = [&] { clock_.advance(Duration(2000)); };
  auto slow = fetch("slow/img:1");
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.error().code, ErrorCode::kTimeout);
  EXPECT_EQ(registry_.requests.size(), 2u);
}

TEST(PublicAddress, OnlyPublicInternetAddressesArePublic) {
  for (const char* ip : {"93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111",
                         "2001:4860:4860::8888", "::ffff:8.8.8.8"})
    EXPECT_TRUE(is_public_address_text(ip)) << ip;
  for (const char* ip : {"127.0.0.1",
                         "127.9.9.9",
                         "0.0.0.0",
                         "10.0.0.1",
                         "172.16.0.1",
                         "172.31.255.255",
                         "192.168.1.1",
                         "169.254.169.254",
                         "100.64.0.1",
                         "100.127.255.254",
                         "192.0.2.1",
                         "198.18.0.1",
                         "224.0.0.1",
                         "255.255.255.255",
                         "::",
                         "::1",
                         "fd00::1",
                         "fc00::1",
                         "fe80::1",
                         "ff02::1",
                         "::ffff:127.0.0.1",
                         "::ffff:10.0.0.1",
                         "64:ff9b::a00:1",
                         "2001:db8::1",
                         "2002:7f00:1::1",
                         "not an address",
                         ""})
    EXPECT_FALSE(is_public_address_text(ip)) << ip;
  EXPECT_TRUE(is_public_address_text("172.32.0.1"));   // just past 172.16/12
  EXPECT_TRUE(is_public_address_text("100.128.0.1"));  // just past 100.64/10
}

// Issue 29: automatic mode goes only to registries (image/registry_client.h).
class RegistryAutomatic : public RegistryClient {
 protected:
  RegistryAutomatic() {
    options_.base_url = "";
    registry_.base = "https://registry.example.com";
    options_.resolve = [this](const std::string& host) -> Result<std::vector<std::string>> {
      resolved_.push_back(host);
      auto it = dns_.find(host);
      if (it == dns_.end()) return make_error(ErrorCode::kConnection, "cannot resolve " + host);
      return it->second;
    };
    registry_.put("x/y", "1", std::string(kMediaOciManifest), FakeRegistry::manifest_json(5, {5}));
  }
  std::map<std::string, std::vector<std::string>> dns_{
      {"registry.example.com", {"93.184.216.34"}},
      {"auth.example.com", {"93.184.216.35"}},
      {"auth.other.net", {"93.184.216.36"}},
      {"rebind.example.com", {"93.184.216.37", "127.0.0.1"}}};
  std::vector<std::string> resolved_;
};

TEST_F(RegistryAutomatic, ARegistryThatIsNotPublicIsNeverAsked) {
  registry_.require_token = false;
  for (const char* image : {"127.0.0.1:18446/x/y:1", "10.0.0.7/x/y:1", "[fd00::1]:443/x/y:1",
                            "169.254.169.254/x/y:1"}) {
    auto r = fetch(image);
    ASSERT_FALSE(r.ok()) << image;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalid) << image;
    EXPECT_NE(r.error().message.find("is not a public address"), std::string::npos)
        << r.error().message;
  }
  EXPECT_TRUE(registry_.requests.empty());
  EXPECT_TRUE(resolved_.empty());  // an address is not resolved
  // A public name with one private address among its answers is refused too.
  dns_["registry.example.com"] = {"93.184.216.34", "192.168.0.10"};
  auto mixed = fetch("registry.example.com/x/y:1");
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.error().message.find("registry.example.com is not a public address "
                                       "(192.168.0.10)"),
            std::string::npos)
      << mixed.error().message;
  EXPECT_TRUE(registry_.requests.empty());
  // All public: asked, and answered.
  dns_["registry.example.com"] = {"93.184.216.34"};
  auto ok = fetch("registry.example.com/x/y:1");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(*ok, 10);
}

TEST_F(RegistryAutomatic, ATokenRealmOnlyOnTheRegistrysDomainOverHttps) {
  struct Case {
    const char* realm;
    const char* why;  // "" when the token is fetched
  };
  for (const Case& c : {
           Case{"http://127.0.0.1:9/any/path", "token realm refused: http, not https"},
           Case{"https://127.0.0.1:9/any/path",
                "token realm refused: 127.0.0.1 is not on the registry's domain (example.com)"},
           Case{"https://auth.other.net/token",
                "token realm refused: auth.other.net is not on the registry's domain"},
           Case{"https://user@auth.example.com/token", "token realm refused: not a URL"},
           Case{"https://rebind.example.com/token",
                "rebind.example.com is not a public address (127.0.0.1)"},
           Case{"https://auth.example.com/token", ""},
       }) {
    registry_.requests.clear();
    registry_.realm = c.realm;
    auto r = fetch("registry.example.com/x/y:1");
    if (std::string(c.why).empty()) {
      ASSERT_TRUE(r.ok()) << c.realm << ": " << r.error().message;
      EXPECT_EQ(registry_.requests.size(), 3u);  // 401, token, manifest
      continue;
    }
    ASSERT_FALSE(r.ok()) << c.realm;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalid) << c.realm;
    EXPECT_NE(r.error().message.find(c.why), std::string::npos) << r.error().message;
    ASSERT_EQ(registry_.requests.size(), 1u) << c.realm;  // the manifest's 401 only
  }
}

TEST(RegistryRealm, TheRegistrysDomainIsItsLastTwoLabelsOrThreeUnderACountryCode) {
  EXPECT_EQ(realm_refusal("registry-1.docker.io", "https://auth.docker.io/token"), "");
  EXPECT_EQ(realm_refusal("ghcr.io", "https://ghcr.io/token"), "");
  EXPECT_EQ(realm_refusal("r.example.co.uk:5000", "https://auth.example.co.uk/t"), "");
  EXPECT_NE(realm_refusal("r.example.co.uk", "https://evil.co.uk/t"), "");
  EXPECT_NE(realm_refusal("ghcr.io", "https://ghcr.io.evil.com/token"), "");
  EXPECT_NE(realm_refusal("ghcr.io", "https://ghcr.io\\@evil.com/token"), "");
}

}  // namespace
}  // namespace burst
