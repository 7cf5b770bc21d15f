// Quoting for the POSIX shell on the pod.
#pragma once

#include <string>

namespace burst {

// 'text' with embedded single quotes escaped: safe as one shell word.
std::string shell_quote(const std::string& text);

// A glob pattern as one shell word: every character quoted except * ? [ ] (and ! or ^ right after
// [, for negated classes), so it expands but cannot run anything.
std::string shell_glob(const std::string& pattern);

}  // namespace burst
