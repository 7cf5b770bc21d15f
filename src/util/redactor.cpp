#include "util/redactor.h"

#include <algorithm>

namespace burst {
namespace {

std::string trimmed(const std::string& s) {
  const char* ws = " \t\r\f\v";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

}  // namespace

void Redactor::add_one(const std::string& value, const std::string& marker) {
  for (const auto& [v, m] : secrets_)
    if (v == value) return;
  secrets_.emplace_back(value, marker);
  first_bytes_.set(static_cast<unsigned char>(value[0]));
}

void Redactor::add(const std::string& name, const std::string& value) {
  if (value.size() < 4) return;
  const std::string marker = "[secret " + name + "]";
  add_one(value, marker);
  if (value.find_first_of("\r\n") != std::string::npos) {
    size_t start = 0;
    while (start <= value.size()) {
      size_t nl = value.find('\n', start);
      if (nl == std::string::npos) nl = value.size();
      const std::string line = trimmed(value.substr(start, nl - start));
      if (line.size() >= kMinSecretLine) add_one(line, marker);
      start = nl + 1;
    }
    // The value as it would appear with the other line ending.
    std::string crlf, lf;
    for (char c : value) {
      if (c == '\n') crlf += '\r';
      if (c != '\r') lf += c;
      crlf += c;
    }
    if (lf != value && lf.size() >= 4) add_one(lf, marker);
    if (value.find('\r') == std::string::npos) add_one(crlf, marker);
  }
  // Longest first, so a secret containing another is replaced whole.
  std::stable_sort(secrets_.begin(), secrets_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string Redactor::operator()(std::string text) const {
  if (secrets_.empty()) return text;
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    bool replaced = false;
    if (first_bytes_.test(static_cast<unsigned char>(text[i]))) {
      for (const auto& [value, marker] : secrets_) {  // longest first
        if (text.compare(i, value.size(), value) == 0) {
          out += marker;
          i += value.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

}  // namespace burst
