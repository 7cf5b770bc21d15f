// Replaces secret values with a marker before text reaches a terminal, a log, a report, the store
// or an error message.
//
// A multi-line value (a PEM key, a JSON credential) is replaced whole where it appears whole, and
// each of its lines is a secret of its own too: a step's output reaches burst one line at a time,
// so the value never appears whole there. A line counts once trimmed of surrounding whitespace
// (output may re-indent it) and only if at least kMinSecretLine characters long, so that "{",
// "}," or "-----" alone do not blank ordinary text. (The short last line of a PEM body, at most
// 7 base64 characters, is therefore not hidden on its own.)
#pragma once

#include <bitset>
#include <string>
#include <utility>
#include <vector>

namespace burst {

class Redactor {
 public:
  static constexpr size_t kMinSecretLine = 8;

  // Values shorter than 4 characters are not redacted: they would mangle ordinary text and are
  // no secret worth the name. The CLI warns about them.
  void add(const std::string& name, const std::string& value);
  std::string operator()(std::string text) const;
  bool empty() const { return secrets_.empty(); }

 private:
  void add_one(const std::string& value, const std::string& marker);

  std::vector<std::pair<std::string, std::string>> secrets_;  // value, marker; longest first
  std::bitset<256> first_bytes_;  // the first byte of some secret: where a match may start
};

}  // namespace burst
