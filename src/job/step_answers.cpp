#include "job/step_answers.h"

namespace burst {
namespace {

std::string_view chomp(std::string_view s) {
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return s;
}

bool clean_path(std::string_view p) {
  if (p.empty() || p.front() != '/' || p.size() > 4096) return false;
  for (char c : p)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

}  // namespace

Result<ProbeAnswer> parse_probe_answer(std::string_view text) {
  const auto bad = [] {
    return make_error(ErrorCode::kRemoteFailed,
                      "probe pod: unexpected answer (want two absolute paths, one a line)");
  };
  if (text.size() > kMaxAnswer) return bad();
  text = chomp(text);
  const size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return bad();
  ProbeAnswer a{std::string(text.substr(0, nl)), std::string(text.substr(nl + 1))};
  if (!clean_path(a.volume) || !clean_path(a.pod_dir)) return bad();
  return a;
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
