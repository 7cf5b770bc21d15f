// A container image reference, normalised the way `docker pull` reads it, so burst asks the same
// registry for the same manifest the provider will pull:
//   ubuntu:22.04                -> registry-1.docker.io, library/ubuntu, tag 22.04
//   runpod/pytorch:2.1          -> registry-1.docker.io, runpod/pytorch, tag 2.1
//   ghcr.io/owner/name:tag      -> ghcr.io, owner/name, tag
//   localhost:5000/name         -> localhost:5000, name, tag latest (the default tag)
//   name@sha256:<64 hex>        -> the digest (a tag before it is dropped: the digest wins)
// The first path component is a registry host when it has a '.' or a ':' or is "localhost";
// otherwise the image is on Docker Hub, whose one-component names live under "library/".
// Repository names and tags follow the OCI Distribution Spec's grammar
// (https://github.com/opencontainers/distribution-spec/blob/main/spec.md, "Pulling manifests":
// <name> is [a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*(/...)*, a tag [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}).
// Pure: no I/O. kInvalid, naming the reference, for anything else.
#pragma once

#include <string>
#include <string_view>

#include "burst/result.h"

namespace burst {

struct ImageRef {
  std::string registry;    // host[:port] as spoken to: "registry-1.docker.io", "ghcr.io"
  std::string repository;  // "library/ubuntu"
  std::string reference;   // a tag ("22.04") or a digest ("sha256:...")
  // "registry/repository:tag" or "registry/repository@digest": the cache key.
  std::string canonical() const;
};

Result<ImageRef> parse_image_ref(std::string_view text);

}  // namespace burst
