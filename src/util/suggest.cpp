#include "util/suggest.h"

#include <algorithm>
#include <vector>

namespace burst {

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

}  // namespace burst
