// Durations as written in specs and on the command line: "45s", "30m", "1h30m", "1.5h", "2d".
#pragma once

#include <optional>
#include <string_view>

namespace burst {

// Seconds for a string of one or more <number><unit> parts (units s, m, h, d); nullopt when the
// text is not of that form. A bare number has no unit and is rejected: a YAML number is seconds,
// but the string "90" is more likely a mistake than a choice. Zero is returned as 0; callers that
// need a positive duration check that themselves.
std::optional<double> parse_duration(std::string_view text);

}  // namespace burst
