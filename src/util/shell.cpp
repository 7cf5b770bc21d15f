#include "util/shell.h"

#include <cctype>

namespace burst {

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string shell_glob(const std::string& pattern) {
  std::string out;
  for (char c : pattern) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || std::isalnum(static_cast<unsigned char>(c)) ||
        c == '/' || c == '.' || c == '_' || c == '-') {
      out += c;
    } else {
      out += '\\';
      out += c;
    }
  }
  return out;
}

}  // namespace burst
