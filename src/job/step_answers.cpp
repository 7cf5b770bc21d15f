#include "job/step_answers.h"

namespace burst {
namespace {

std::string_view chomp(std::string_view s) {
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return s;
}

bool path_ok(std::string_view p) { return !p.empty() && p.size() <= 4096; }

}  // namespace

Result<ProbeAnswer> parse_probe_answer(std::string_view text) {
  const auto bad = [] {
    return make_error(ErrorCode::kRemoteFailed,
                      "probe pod: unexpected answer (want two NUL-ended paths)");
  };
  if (text.size() > kMaxAnswer) return bad();
  const size_t a = text.find('\0');
  if (a == std::string_view::npos) return bad();
  const size_t b = text.find('\0', a + 1);
  if (b == std::string_view::npos || b + 1 != text.size()) return bad();
  ProbeAnswer r{std::string(text.substr(0, a)), std::string(text.substr(a + 1, b - a - 1))};
  if (!path_ok(r.volume) || !path_ok(r.pod_dir)) return bad();
  return r;
}

Result<int> parse_step_status(std::string_view text) {
  const std::string_view s = chomp(text);
  int v = 0;
  bool ok = !s.empty() && s.size() <= 3;
  for (char c : s) {
    if (c < '0' || c > '9') ok = false;
    if (ok) v = v * 10 + (c - '0');
  }
  if (!ok || v > 255)
    return make_error(ErrorCode::kRemoteFailed, "its status file holds " +
                                                    std::to_string(text.size()) +
                                                    " bytes that are no exit status (0..255)");
  return v;
}

Result<bool> parse_yes_no(std::string_view text) {
  const std::string_view s = chomp(text);
  if (s == "yes") return true;
  if (s == "no") return false;
  return make_error(ErrorCode::kRemoteFailed, "unexpected answer from the pod (want yes or no)");
}

}  // namespace burst
