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
  for (const auto& [value, marker] : secrets_) {
    size_t pos = 0;
    while ((pos = text.find(value, pos)) != std::string::npos) {
      text.replace(pos, value.size(), marker);
      pos += marker.size();
    }
  }
  return text;
}

}  // namespace burst
