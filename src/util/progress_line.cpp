#include "util/progress_line.h"

#include <cctype>
#include <charconv>
#include <climits>
#include <map>
#include <string>

namespace burst {
namespace {

std::optional<long> progress_number(std::string_view s) {
  s = progress_line_trim(s);
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::pair<std::string_view, std::string_view> progress_line_tag(std::string_view line) {
  if (!line.starts_with("[w")) return {{}, line};
  const size_t end = line.find("] ");
  if (end == std::string_view::npos || end < 3) return {{}, line};
  for (size_t i = 2; i < end; ++i)
    if (!std::isdigit(static_cast<unsigned char>(line[i]))) return {{}, line};
  return {line.substr(0, end + 2), line.substr(end + 2)};
}

std::string_view progress_line_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::optional<ItemsProgress> parse_progress_line(std::string_view line) {
  std::string_view rest = progress_line_trim(progress_line_tag(line).second);
  constexpr std::string_view kWord = "BURST_PROGRESS";
  if (!rest.starts_with(kWord)) return std::nullopt;
  rest.remove_prefix(kWord.size());
  if (rest.empty() || (rest.front() != ' ' && rest.front() != '\t')) return std::nullopt;
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto done = progress_number(rest.substr(0, slash));
  auto total = progress_number(rest.substr(slash + 1));
  if (!done || !total || *total == 0 || *done > *total) return std::nullopt;
  return ItemsProgress{*done, *total};
}

std::optional<ItemsProgress> progress_of_log(std::string_view log) {
  std::map<std::string, ItemsProgress> latest;  // by worker tag
  while (!log.empty()) {
    const size_t nl = log.find('\n');
    const std::string_view line = log.substr(0, nl);
    log.remove_prefix(nl == std::string_view::npos ? log.size() : nl + 1);
    if (std::optional<ItemsProgress> p = parse_progress_line(line))
      latest[std::string(progress_line_tag(line).first)] = *p;
  }
  if (latest.empty()) return std::nullopt;
  ItemsProgress sum;
  for (const auto& [tag, p] : latest) {
    // Saturating: a hostile pod's numbers near LONG_MAX must not overflow the sum.
    sum.done = p.done > LONG_MAX - sum.done ? LONG_MAX : sum.done + p.done;
    sum.total = p.total > LONG_MAX - sum.total ? LONG_MAX : sum.total + p.total;
  }
  return sum;
}

}  // namespace burst
