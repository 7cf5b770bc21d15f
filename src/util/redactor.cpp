#include "util/redactor.h"

#include <algorithm>

namespace burst {

void Redactor::add(const std::string& name, const std::string& value) {
  if (value.size() < 4) return;
  secrets_.emplace_back(value, "[secret " + name + "]");
  // Longest first, so a secret containing another is replaced whole.
  std::sort(secrets_.begin(), secrets_.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string Redactor::operator()(std::string text) const {
  if (secrets_.empty()) return text;
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    bool replaced = false;
    for (const auto& [value, marker] : secrets_) {  // longest first
      if (text.compare(i, value.size(), value) == 0) {
        out += marker;
        i += value.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

}  // namespace burst
