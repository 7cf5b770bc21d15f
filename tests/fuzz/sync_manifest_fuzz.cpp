// Fuzzes the reader of the pod's answer to a sync's first part (ProbeReplyReader and the manifest
// and stat parsers, src/sync/sync_manifest.h). The first input byte picks a read size; the rest is
// the answer. Invariants: reading it in pieces gives what reading it whole gives (the end-marker
// search resumes correctly), the reader stays within its limit, and a parsed manifest survives
// formatting and parsing again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "sync/sync_manifest.h"

using burst::ManifestEntry;
using burst::ProbeReplyReader;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t piece = 1 + data[0] % 32;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  constexpr size_t kLimit = 4096;  // small, so the limit paths are reached

  ProbeReplyReader whole(kLimit);
  auto whole_done = whole.feed(text.data(), text.size());
  ProbeReplyReader pieces(kLimit);
  burst::Result<bool> piece_done = false;
  for (size_t at = 0; at < text.size() && piece_done.ok() && !*piece_done; at += piece) {
    const size_t n = std::min(piece, text.size() - at);
    piece_done = pieces.feed(text.data() + at, n);
  }
  if (text.size() > kLimit) FUZZ_CHECK(!whole_done.ok() || *whole_done);
  if (whole_done.ok() && piece_done.ok()) {
    FUZZ_CHECK(*whole_done == *piece_done);
    if (*whole_done) {
      const burst::ProbeReply a = whole.reply(), b = pieces.reply();
      FUZZ_CHECK(a.has_tar == b.has_tar);
      FUZZ_CHECK(a.manifest.size() == b.manifest.size());
      FUZZ_CHECK(a.remote.size() == b.remote.size());
      for (const auto& [path, s] : a.remote) {
        auto it = b.remote.find(path);
        FUZZ_CHECK(it != b.remote.end());
        FUZZ_CHECK(it->second.size == s.size && it->second.mtime == s.mtime);
        FUZZ_CHECK(s.mode <= 07777);
      }
    }
  } else if (!whole_done.ok()) {
    // A limit broken whole is broken in pieces too, unless the end came first in pieces.
    FUZZ_CHECK(!piece_done.ok() || *piece_done);
  }

  // The manifest parser on its own: what it accepts formats and parses back to the same.
  const burst::Manifest m = burst::parse_manifest(text);
  std::vector<ManifestEntry> entries;
  for (const auto& [path, e] : m) {
    FUZZ_CHECK(path == e.path);
    FUZZ_CHECK(e.path.find('\n') == std::string::npos);
    entries.push_back(e);
    if (entries.back().sha256.empty()) entries.back().sha256 = "-";
  }
  const burst::Manifest again = burst::parse_manifest(burst::format_manifest(entries));
  FUZZ_CHECK(again.size() == m.size());
  for (const auto& e : entries) {
    auto it = again.find(e.path);
    FUZZ_CHECK(it != again.end());
    FUZZ_CHECK(it->second.type == e.type && it->second.mode == e.mode);
    FUZZ_CHECK(it->second.size == e.size && it->second.mtime == e.mtime);
    FUZZ_CHECK(it->second.sha256 == e.sha256);
  }
  return 0;
}
