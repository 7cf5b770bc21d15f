#include "util/limit_stop.h"

#include <cstdio>
#include <cstdlib>

namespace burst {

std::string limit_stop_reason(std::string_view limit, double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, " (%.0f s) reached", seconds);
  return "stopped: " + std::string(limit) + buf;
}

namespace {

// The whole number of seconds at `text[at]`, followed by `tail`; nullopt otherwise.
std::optional<double> seconds_at(std::string_view text, size_t at, std::string_view tail) {
  size_t end = at;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  if (end == at || text.substr(end, tail.size()) != tail) return std::nullopt;
  return std::strtod(std::string(text.substr(at, end - at)).c_str(), nullptr);
}

std::optional<LimitStop> limit_after(std::string_view text, std::string_view head,
                                     std::string_view tail, std::string_view limit) {
  const size_t at = text.find(head);
  if (at == std::string_view::npos) return std::nullopt;
  auto s = seconds_at(text, at + head.size(), tail);
  if (!s) return std::nullopt;
  return LimitStop{std::string(limit), *s};
}

}  // namespace

std::optional<LimitStop> find_limit_stop(std::string_view e) {
  for (std::string_view limit : {kLimitDeadline, kLimitMaxRuntime})
    if (auto s = limit_after(e, "stopped: " + std::string(limit) + " (", " s) reached", limit))
      return s;
  if (auto s = limit_after(e, "exceeded budget.max_runtime (", " s); stopped", kLimitMaxRuntime))
    return s;
  return limit_after(e, "no bytes from the pod for ", " s", kLimitNoProgress);
}

}  // namespace burst
