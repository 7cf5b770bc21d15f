// Fuzzes what a container registry answers (src/image/registry_parse.h) and the image references
// a spec names (src/image/image_ref.h): all untrusted. The first byte picks the parser, the rest
// is its input. Invariants: nothing crashes, throws or allocates without bound; a manifest's size
// is within [0, kRegistryMaxImageBytes]; an index answer names a digest with a ':'; a challenge
// has a realm; a parsed reference has a registry, a repository and a tag or digest, and parses
// again from its canonical form to itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "image/image_ref.h"
#include "image/registry_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {
      auto m = burst::parse_manifest_answer(in, "");
      if (m.ok() && m->is_index) FUZZ_CHECK(m->amd64_digest.find(':') != std::string::npos);
      if (m.ok() && !m->is_index)
        FUZZ_CHECK(m->bytes >= 0 && m->bytes <= burst::kRegistryMaxImageBytes);
      break;
    }
    case 1: {
      auto c = burst::parse_bearer_challenge(in);
      if (c.ok()) FUZZ_CHECK(!c->realm.empty());
      break;
    }
    case 2: {
      auto t = burst::parse_token_answer(in);
      if (t.ok()) FUZZ_CHECK(!t->empty());
      break;
    }
    default: {
      auto r = burst::parse_image_ref(in);
      if (!r.ok()) break;
      FUZZ_CHECK(!r->registry.empty() && !r->repository.empty() && !r->reference.empty());
      auto again = burst::parse_image_ref(r->canonical());
      FUZZ_CHECK(again.ok());
      FUZZ_CHECK(again->canonical() == r->canonical());
      break;
    }
  }
  return 0;
}
