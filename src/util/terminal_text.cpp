#include "util/terminal_text.h"

#include <cstdint>

namespace burst {
namespace {

constexpr size_t kMaxSgr = 64;

// The length of an SGR sequence starting at text[i] (an ESC), or 0 if there is none.
size_t sgr_length(std::string_view text, size_t i) {
  if (i + 2 >= text.size() || text[i + 1] != '[') return 0;
  for (size_t j = i + 2; j < text.size() && j - i < kMaxSgr; ++j) {
    const char c = text[j];
    if (c == 'm') return j - i + 1;
    if (!((c >= '0' && c <= '9') || c == ';' || c == ':')) return 0;
  }
  return 0;
}

// The length of a well-formed UTF-8 sequence (RFC 3629: no overlongs, no surrogates, nothing
// above U+10FFFF) starting at text[i], or 0. Sets *cp to the code point.
size_t utf8_length(std::string_view text, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = b(0);
  size_t n;
  uint32_t v, min;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, v = c & 0x1f, min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, v = c & 0x0f, min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    v = (v << 6) | (b(k) & 0x3f);
  }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  *cp = v;
  return n;
}

void escape_byte(std::string* out, unsigned char c) {
  static const char kHex[] = "0123456789abcdef";
  *out += "\\x";
  *out += kHex[c >> 4];
  *out += kHex[c & 0xf];
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n') {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c == 0x1b) {
      if (size_t n = sgr_length(text, i)) {
        out.append(text.substr(i, n));
        i += n;
        continue;
      }
    } else if (c >= 0x80) {
      uint32_t cp = 0;
      if (size_t n = utf8_length(text, i, &cp); n > 0 && !(cp >= 0x80 && cp <= 0x9f)) {
        out.append(text.substr(i, n));
        i += n;
        continue;
      }
    }
    escape_byte(&out, c);
    ++i;
  }
  return out;
}

std::string terminal_line(std::string_view text) {
  std::string controls;
  controls.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      escape_byte(&controls, c);
    } else {
      controls += ch;
    }
  }
  return terminal_safe(controls);
}

}  // namespace burst
