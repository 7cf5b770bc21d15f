// Fuzzes the pull's hash record parser (src/sync/pull_listing.h): "<sha256>  <name>\0" records.
// Invariants: it never throws or reads past its limits; every hash it keeps is 64 lower-case hex
// digits for a non-empty name; every error starts "pod sent".
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "sync/pull_listing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  burst::PullLimits limits;
  limits.max_record_bytes = 512;
  limits.max_hash_bytes = 8192;
  burst::HashParser p(limits);
  const char* d = reinterpret_cast<const char*>(data);
  burst::Status st;
  for (size_t at = 0; at < size && st.ok(); at += 5)
    st = p.feed(d + at, std::min<size_t>(5, size - at));
  if (st.ok()) st = p.finish();
  if (!st.ok()) FUZZ_CHECK(st.error().message.rfind("pod sent", 0) == 0);
  for (const auto& [name, sha] : p.hashes()) {
    FUZZ_CHECK(!name.empty());
    FUZZ_CHECK(sha.size() == 64);
    for (char c : sha) FUZZ_CHECK((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  }
  return 0;
}
