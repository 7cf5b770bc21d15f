// Fuzzes what burst reads back from a step's supervisor on the pod (src/job/step_answers.h and
// src/job/line_splitter.h): the status, probe and yes/no answers, and the output line splitter;
// the warm volume read's answer (src/job/volume_read.h); and a replica's facts file
// (src/job/replica_stats.h).
// The first input byte picks the line limit, the second a read size; the rest is pod output.
// Invariants: an accepted status is 0..255 and prints back as itself; an accepted probe answer is
// two non-empty NUL-free paths that make up the whole answer; lines never hold a line end and
// never exceed the limit (plus the cut marker); the reattach offset only grows, never passes what
// was fed and always sits just after a line end; reading in pieces gives the same lines and offset
// as reading whole; an accepted volume read read no more than the cap, in a time that does not run
// backwards and is under an hour; accepted replica facts came from at most the cap, start <= end,
// an exit status 0..255 and a mean utilisation of at most 100%.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "job/line_splitter.h"
#include "job/replica_stats.h"
#include "job/step_answers.h"
#include "job/volume_read.h"

namespace {

struct Run {
  std::vector<std::string> lines;
  uint64_t complete = 0;
};

Run split(std::string_view text, size_t max_line, size_t piece) {
  Run r;
  burst::LineSplitter s([&](const std::string& l) { r.lines.push_back(l); }, max_line);
  uint64_t fed = 0, last = 0;
  for (size_t at = 0; at < text.size(); at += piece) {
    const size_t n = std::min(piece, text.size() - at);
    s.feed(text.data() + at, n);
    fed += n;
    FUZZ_CHECK(s.complete_bytes() >= last);
    FUZZ_CHECK(s.complete_bytes() <= fed);
    last = s.complete_bytes();
    if (last > 0) FUZZ_CHECK(text[last - 1] == '\n' || text[last - 1] == '\r');
  }
  r.complete = s.complete_bytes();
  s.flush();
  const std::string marker = " [line cut at " + std::to_string(max_line) + " bytes]";
  for (const auto& l : r.lines) {
    FUZZ_CHECK(l.find('\n') == std::string::npos);
    FUZZ_CHECK(l.find('\r') == std::string::npos);
    FUZZ_CHECK(l.size() <= max_line + marker.size());
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t max_line = 1 + data[0] % 64;
  const size_t piece = 1 + data[1] % 16;
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);

  if (auto status = burst::parse_step_status(text); status.ok()) {
    FUZZ_CHECK(*status >= 0 && *status <= 255);
    FUZZ_CHECK(*burst::parse_step_status(std::to_string(*status)) == *status);
  }
  if (auto probe = burst::parse_probe_answer(text); probe.ok()) {
    for (const std::string* p : {&probe->volume, &probe->pod_dir}) {
      FUZZ_CHECK(!p->empty() && p->size() <= 4096);
      FUZZ_CHECK(p->find('\0') == std::string::npos);
    }
    FUZZ_CHECK(probe->volume.size() + probe->pod_dir.size() + 2 == text.size());
  }
  (void)burst::parse_yes_no(text);
  if (auto read = burst::parse_volume_read(text); read.ok()) {
    FUZZ_CHECK(read->bytes >= 0 && read->bytes <= burst::kVolumeReadMaxBytes);
    FUZZ_CHECK(read->nanos >= 0 && read->nanos <= 3600LL * 1000 * 1000 * 1000);
    FUZZ_CHECK(burst::volume_read_millis(*read) >= 1);
    FUZZ_CHECK(text.rfind("burst-volume-read ", 0) == 0);
  }

  if (auto stats = burst::parse_replica_stats(text); stats.ok()) {
    FUZZ_CHECK(text.size() <= burst::kReplicaStatsMaxBytes);
    FUZZ_CHECK(stats->start_s >= 0 && stats->start_s <= stats->end_s);
    FUZZ_CHECK(stats->exit_status >= 0 && stats->exit_status <= 255);
    FUZZ_CHECK(stats->util_sum >= 0 && stats->util_sum <= 100 * stats->util_samples);
    FUZZ_CHECK(text.rfind("burst-replica 1\n", 0) == 0);
  }

  const Run whole = split(text, max_line, text.size() + 1);
  const Run pieces = split(text, max_line, piece);
  FUZZ_CHECK(whole.lines == pieces.lines);
  FUZZ_CHECK(whole.complete == pieces.complete);
  return 0;
}
