#include "util/duration.h"

#include <cctype>
#include <cmath>

#include "util/decimal.h"

namespace burst {
namespace {

std::optional<double> unit_seconds(char unit) {
  switch (unit) {
    case 's':
      return 1;
    case 'm':
      return 60;
    case 'h':
      return 3600;
    case 'd':
      return 86400;
    default:
      return std::nullopt;
  }
}

// Length of the "<digits>[.<digits>]" at the start of text; 0 when there is none.
size_t number_length(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0) return 0;
  if (i < text.size() && text[i] == '.') {
    size_t j = i + 1;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j == i + 1) return 0;  // "1." is not a number here
    i = j;
  }
  return i;
}

}  // namespace

std::optional<double> parse_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double total = 0;
  while (!text.empty()) {
    size_t len = number_length(text);
    if (len == 0 || len >= text.size()) return std::nullopt;
    std::optional<double> scale = unit_seconds(text[len]);
    if (!scale) return std::nullopt;
    std::optional<double> value = parse_decimal(text.substr(0, len));
    if (!value) return std::nullopt;
    total += *value * *scale;
    text.remove_prefix(len + 1);
  }
  if (!std::isfinite(total)) return std::nullopt;
  return total;
}

}  // namespace burst
