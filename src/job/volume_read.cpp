// A warm volume's read rate, measured on the pod (job/volume_read.h).
#include "job/volume_read.h"

#include <chrono>
#include <cstdio>

#include "job/step_answers.h"
#include "util/shell.h"

namespace burst {
namespace {

// A decimal of 1..19 digits (fits int64), nothing else.
bool volume_read_number(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 18 + 1) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > static_cast<uint64_t>(INT64_MAX)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

constexpr int64_t kVolumeReadMaxNanos = 3600LL * 1000 * 1000 * 1000;

}  // namespace

std::string volume_read_command(const std::string& volume,
                                const std::vector<std::string>& creates) {
  std::string paths;
  for (const std::string& p : creates) paths += " " + shell_quote(p);
  const std::string max_blocks = std::to_string(kVolumeReadMaxBytes / (4 * 1024 * 1024));
  const std::string read = "dd if=\"$f\" of=/dev/null bs=4M count=" + max_blocks;
  return "cd " + shell_quote(volume) + " 2>/dev/null || exit 0; f=$(find -L" + paths +
         " -type f -exec stat -L -c '%s %n' {} + 2>/dev/null | sort -n | tail -n 1 | cut -d ' ' "
         "-f 2-); [ -n \"$f\" ] || exit 0; s=$(stat -L -c %s \"$f\") || exit 0; "
         "if t0=$(date +%s%N) && " +
         read + " iflag=direct 2>/dev/null && t1=$(date +%s%N); then m=direct; " +
         "elif dd if=\"$f\" iflag=nocache count=0 2>/dev/null && t0=$(date +%s%N) && " + read +
         " 2>/dev/null && t1=$(date +%s%N); then m=dropped; else exit 0; fi; "
         "echo \"burst-volume-read $m $s $t0 $t1\"";
}

Result<VolumeRead> parse_volume_read(std::string_view text) {
  const auto bad = [] {
    return make_error(ErrorCode::kRemoteFailed,
                      "volume read: unexpected answer from the pod (want \"burst-volume-read "
                      "direct|dropped SIZE T0 T1\")");
  };
  if (text.size() > kMaxAnswer) return bad();
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  // Exactly five fields, one space between each: no empty field, nothing after the last.
  std::string_view fields[5];
  size_t n = 0;
  for (;;) {
    const size_t sp = text.find(' ');
    if (n == 5) return bad();
    fields[n++] = text.substr(0, sp);
    if (sp == std::string_view::npos) break;
    text.remove_prefix(sp + 1);
  }
  if (n != 5 || fields[0] != "burst-volume-read") return bad();
  VolumeRead r;
  if (fields[1] == "direct")
    r.direct = true;
  else if (fields[1] != "dropped")
    return bad();
  int64_t size = 0, t0 = 0, t1 = 0;
  if (!volume_read_number(fields[2], &size) || !volume_read_number(fields[3], &t0) ||
      !volume_read_number(fields[4], &t1) || t1 < t0 || t1 - t0 > kVolumeReadMaxNanos)
    return bad();
  r.bytes = size < kVolumeReadMaxBytes ? size : kVolumeReadMaxBytes;
  r.nanos = t1 - t0;
  return r;
}

Result<VolumeRead> measure_volume_read(RemoteSession& session, const std::string& volume,
                                       const std::vector<std::string>& creates, Clock& clock,
                                       const std::function<bool()>& should_stop) {
  const MonoTime start = clock.mono_now();
  std::string out;
  bool too_long = false;
  OutputSink sink;
  sink.out = [&](const char* data, size_t len) {
    if (out.size() + len > kMaxAnswer) {
      too_long = true;
      return;
    }
    out.append(data, len);
  };
  sink.err = [](const char*, size_t) {};
  bool late = false;
  auto stop = [&] {
    late = std::chrono::duration<double>(clock.mono_now() - start).count() > kVolumeReadDeadlineS;
    return late || (should_stop && should_stop());
  };
  auto status = session.exec(volume_read_command(volume, creates), sink, stop);
  if (!status.ok()) {
    if (late)
      return make_error(ErrorCode::kInterrupted,
                        "volume read: no answer within " +
                            std::to_string(static_cast<int>(kVolumeReadDeadlineS)) + " s");
    return status.error();
  }
  if (too_long) return make_error(ErrorCode::kRemoteFailed, "volume read: answer too long");
  if (*status != 0 || out.empty())
    return make_error(ErrorCode::kRemoteFailed,
                      "volume read: the pod measured nothing (no "
                      "created file, or it could not bypass its cache)");
  return parse_volume_read(out);
}

std::string volume_read_summary(const VolumeRead& r) {
  char buf[160];
  const double s = static_cast<double>(r.nanos) / 1e9;
  const double rate = s > 0 ? static_cast<double>(r.bytes) / s : 0;
  std::snprintf(buf, sizeof buf, "volume read %.1f MiB in %.3f s: %.2f GB/s (%s)",
                static_cast<double>(r.bytes) / (1024.0 * 1024.0), s, rate / 1e9,
                r.direct ? "direct I/O" : "page cache dropped first");
  return buf;
}

int64_t volume_read_millis(const VolumeRead& r) {
  const int64_t ms = (r.nanos + 999'999) / 1'000'000;
  return ms < 1 ? 1 : ms;
}

}  // namespace burst
