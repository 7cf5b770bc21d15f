// Making text that came from a pod safe to show on the user's terminal or write to a log.
//
// terminal_safe() keeps printable ASCII, tab, newline, well-formed UTF-8 (except the C1 controls
// U+0080..U+009F) and SGR colour sequences (ESC '[' digits, ';' or ':' 'm', at most 64 bytes).
// Every other byte is written as the text "\xNN": other control bytes (BEL, backspace, CR, ...),
// ESC when it does not start an SGR sequence (so an OSC title or clipboard write, a cursor move
// or a DCS string shows as harmless text), bytes that are not part of valid UTF-8, and the two
// bytes of an encoded C1 control. A backslash itself is kept, so the function is idempotent:
// escaping its own output changes nothing.
#pragma once

#include <string>
#include <string_view>

namespace burst {

std::string terminal_safe(std::string_view text);

// For one line of text read from a file the user did not write (a spec's name, an env key, a
// SkyPilot field), shown inside burst's own messages: terminal_safe, but every control byte is
// "\xNN" (newline, tab and the ESC of a colour sequence too), so the value can neither forge a
// line of burst's output nor change the terminal. Idempotent.
std::string terminal_line(std::string_view text);

}  // namespace burst
