#include "util/shell.h"

#include <cctype>

namespace burst {

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string shell_glob(const std::string& pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' ||
                      c == '_' || c == '-' || c == '*' || c == '?' || c == '[' || c == ']';
    const bool bracket_negation = (c == '!' || c == '^') && i > 0 && pattern[i - 1] == '[';
    if (safe || bracket_negation) {
      out += c;
    } else if (c == '\'') {
      out += "\\'";
    } else {
      out += '\'';  // single quotes keep every other byte literal, a newline included
      out += c;
      out += '\'';
    }
  }
  return out;
}

}  // namespace burst
