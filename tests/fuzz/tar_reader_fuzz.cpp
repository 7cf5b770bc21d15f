// Fuzzes the TarReader (src/sync/tar_stream.h) with the bytes a pod's `tar -c` could send.
// Invariants: it never throws, never reads an entry's content past the size its header gave,
// and ends (an error or the end of the archive) once the input is exhausted.
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz/fuzz_check.h"
#include "sync/tar_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t pos = 0;
  burst::TarReader tar([&](char* d, size_t n) -> burst::Result<size_t> {
    // At most 300 bytes per read, so headers split across reads.
    const size_t k = std::min({n, size - pos, size_t{300}});
    std::memcpy(d, data + pos, k);
    pos += k;
    return k;
  });
  char buf[1000];
  for (int entries = 0; entries < 10000; ++entries) {
    auto e = tar.next();
    if (!e.ok() || !*e) break;
    uint64_t got = 0;
    while (true) {
      auto n = tar.read(buf, sizeof buf);
      if (!n.ok() || *n == 0) break;
      got += *n;
    }
    FUZZ_CHECK(got <= (*e)->size);
  }
  const std::string rest = tar.take_buffered();
  FUZZ_CHECK(rest.size() <= size);
  return 0;
}
