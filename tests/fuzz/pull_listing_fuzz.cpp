// Fuzzes the pull listing parser and the pod-name -> local path mapping (src/sync/pull_listing.h).
// Input: the first line is an artefact pattern, the rest is what the pod sends. Invariants: the
// parser never takes more than its limits allow and never throws; every name local_relative
// accepts is relative, has no empty, "." or ".." component and no control byte, so joined to an
// artefact dir it stays inside it; every error starts "pod sent".
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "sync/pull_listing.h"

using burst::ListingParser;
using burst::PullLimits;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t nl = in.find('\n');
  if (nl == std::string_view::npos) return 0;
  const std::string pattern(in.substr(0, nl));
  in.remove_prefix(nl + 1);

  PullLimits limits;
  limits.max_listing_bytes = 4096;
  limits.max_record_bytes = 512;
  limits.max_entries = 16;
  ListingParser p(limits, 2);
  size_t fed = 0;
  // Fed in chunks of 7 bytes, so records split across reads.
  while (fed < in.size() && !p.done()) {
    const size_t n = std::min<size_t>(7, in.size() - fed);
    auto used = p.feed(in.data() + fed, n);
    if (!used.ok()) {
      FUZZ_CHECK(used.error().message.rfind("pod sent", 0) == 0);
      return 0;
    }
    FUZZ_CHECK(*used <= n);
    FUZZ_CHECK(*used == n || p.done());
    fed += *used;
  }
  FUZZ_CHECK(fed <= limits.max_listing_bytes);
  FUZZ_CHECK(p.files().size() <= limits.max_entries);
  for (const auto& f : p.files()) {
    FUZZ_CHECK(f.pattern < 2);
    FUZZ_CHECK(f.mode <= 07777);
    FUZZ_CHECK((burst::install_mode(f.mode) & ~0755u) == 0);
    auto rel = burst::local_relative(pattern, f.name);
    if (!rel.ok()) {
      FUZZ_CHECK(rel.error().message.rfind("pod sent", 0) == 0);
      continue;
    }
    const std::string& r = *rel;
    FUZZ_CHECK(!r.empty() && r.front() != '/');
    for (char c : r) FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
    const std::string padded = "/" + r + "/";
    FUZZ_CHECK(padded.find("//") == std::string::npos);
    FUZZ_CHECK(padded.find("/../") == std::string::npos);
    FUZZ_CHECK(padded.find("/./") == std::string::npos);
  }
  return 0;
}
