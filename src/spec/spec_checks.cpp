#include "spec/spec_checks.h"

#include <algorithm>
#include <vector>

namespace burst::spec {
namespace {

bool is_lower_or_digit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_letter_or_underscore(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > 63 || !is_lower_or_digit(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return is_lower_or_digit(c) || c == '-'; });
}

bool is_env_name(std::string_view name) {
  if (name.empty() || !is_letter_or_underscore(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return is_letter_or_underscore(c) || is_digit(c); });
}

bool is_reserved_env_name(std::string_view name) { return name.starts_with("BURST_"); }

bool is_valid_artefact_remote(std::string_view remote) {
  constexpr std::string_view kVolume = "$BURST_VOLUME/";
  if (remote.starts_with(kVolume)) {
    remote.remove_prefix(kVolume.size());
  } else if (remote.empty() || remote.starts_with('/')) {
    return false;
  }
  if (remote.empty()) return false;
  // No ".." component anywhere: artefacts never reach outside the code dir or the volume.
  size_t start = 0;
  while (start <= remote.size()) {
    size_t end = remote.find('/', start);
    if (end == std::string_view::npos) end = remote.size();
    if (remote.substr(start, end - start) == "..") return false;
    start = end + 1;
  }
  return true;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> suggest_field(std::string_view key,
                                         std::span<const std::string_view> known) {
  std::optional<std::string_view> best;
  size_t best_distance = 3;
  for (std::string_view field : known) {
    size_t d = edit_distance(key, field);
    if (d < best_distance && d < key.size()) {
      best = field;
      best_distance = d;
    }
  }
  if (best) return std::string(*best);
  if (key.size() < 2) return std::nullopt;
  for (std::string_view field : known) {
    if (field.starts_with(key) || key.starts_with(field)) return std::string(field);
  }
  return std::nullopt;
}

}  // namespace burst::spec
