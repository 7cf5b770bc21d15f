// Parsers for what a container registry answers: untrusted input, so every one is bounded (a body
// over kRegistryMaxBodyBytes is refused before it is parsed, an index's entries and a manifest's
// layers are counted, sizes are checked non-negative and summed without overflow) and returns
// an error value, never throws or crashes (fuzzed: tests/fuzz/registry_manifest_fuzz.cpp).
//   - WWW-Authenticate: Bearer realm="...",service="...",scope="..." (Docker's token auth spec:
//     https://distribution.github.io/distribution/spec/auth/token/, "How to authenticate");
//   - the token server's answer: {"token": "..."} or {"access_token": "..."} (same spec,
//     "Token Response Fields");
//   - a manifest, by media type (OCI Image Spec, https://github.com/opencontainers/image-spec:
//     image-index.md, manifest.md; Docker's manifest v2 schema 2 and manifest list): an index or
//     list names the linux/amd64 manifest's digest; an image manifest's compressed size is
//     config.size + the sum of layers[].size (what a pull downloads).
// Errors: kInvalid "registry answer: ..." for a malformed or oversized answer; kNotFound when an
// index has no linux/amd64 manifest.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "burst/result.h"

namespace burst {

// Real manifests and indexes are a few KB; the OCI Distribution Spec lets registries cap them
// at 4 MiB. An estimate reads no more than this.
inline constexpr size_t kRegistryMaxBodyBytes = 1 << 20;
inline constexpr size_t kRegistryMaxEntries = 4096;  // index entries or layers
// A compressed image over 10 TB is a lie, not an image.
inline constexpr int64_t kRegistryMaxImageBytes = 10'000'000'000'000;

inline constexpr std::string_view kMediaOciIndex = "application/vnd.oci.image.index.v1+json";
inline constexpr std::string_view kMediaOciManifest = "application/vnd.oci.image.manifest.v1+json";
inline constexpr std::string_view kMediaDockerList =
    "application/vnd.docker.distribution.manifest.list.v2+json";
inline constexpr std::string_view kMediaDockerManifest =
    "application/vnd.docker.distribution.manifest.v2+json";

struct BearerChallenge {
  std::string realm;    // the token server's URL
  std::string service;  // may be empty
  std::string scope;    // may be empty
};
// kInvalid when the header is not a Bearer challenge with a realm.
Result<BearerChallenge> parse_bearer_challenge(std::string_view header);

// The token from a token server's JSON answer.
Result<std::string> parse_token_answer(std::string_view body);

struct ManifestAnswer {
  bool is_index = false;
  std::string amd64_digest;  // is_index: the linux/amd64 manifest's digest
  int64_t bytes = 0;         // !is_index: config + layers, compressed
};
// `content_type` is the response's Content-Type (parameters ignored); when it names neither an
// index nor a manifest, the document's own mediaType decides, then its shape (a "manifests"
// array is an index).
Result<ManifestAnswer> parse_manifest_answer(std::string_view body, std::string_view content_type);

}  // namespace burst
