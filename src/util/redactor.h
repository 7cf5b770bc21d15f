// Replaces secret values with a marker before text reaches a terminal, a log, a report, the store
// or an error message.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace burst {

class Redactor {
 public:
  // Values shorter than 4 characters are not redacted: they would mangle ordinary text and are
  // no secret worth the name. The CLI warns about them.
  void add(const std::string& name, const std::string& value);
  std::string operator()(std::string text) const;
  bool empty() const { return secrets_.empty(); }

 private:
  std::vector<std::pair<std::string, std::string>> secrets_;  // value, marker
};

}  // namespace burst
