#include "util/decimal.h"

#include <cerrno>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <string>

namespace burst {

std::optional<double> parse_decimal(std::string_view text) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (!std::isfinite(value)) return std::nullopt;  // libstdc++ reads "inf" and "nan"
  return value;
#else
  return parse_decimal_strtod(text);
#endif
}

std::optional<double> parse_decimal_strtod(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // Only what from_chars's general format accepts: [-]digits[.digits][(e|E)[+|-]digits].
  size_t i = text[0] == '-' ? 1 : 0;
  bool digits = false, dot = false, exp = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !dot && !exp) {
      dot = true;
    } else if ((c == 'e' || c == 'E') && digits && !exp) {
      exp = true;
      digits = false;
      if (i + 1 < text.size() && (text[i + 1] == '+' || text[i + 1] == '-')) ++i;
    } else {
      return std::nullopt;
    }
  }
  if (!digits) return std::nullopt;
  // burst never calls setlocale, so strtod reads '.' as the decimal point (the "C" locale).
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE) return std::nullopt;
  return value;
}

}  // namespace burst
