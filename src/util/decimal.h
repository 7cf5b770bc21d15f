// A decimal number read as std::from_chars reads a double in its general format, finite only:
// the whole of `text`, no leading space or '+', no hex, "inf" or "nan"; nullopt otherwise or when
// out of range. Locale-independent. libc++ before LLVM 17 (the Mac's, and Debian 12's) has no
// floating-point from_chars, so there it is strtod under the "C" locale on a checked copy.
#pragma once

#include <optional>
#include <string_view>

namespace burst {

std::optional<double> parse_decimal(std::string_view text);
// The strtod path, compiled everywhere so it is tested where from_chars exists too.
std::optional<double> parse_decimal_strtod(std::string_view text);

}  // namespace burst
