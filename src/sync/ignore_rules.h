// .gitignore-style patterns: `#` comments, `!` negation, trailing `/` for directories only, a
// slash elsewhere anchors the pattern to the directory of its file, `*`, `?`, `[...]` and `**`.
// The last matching pattern wins, as in git.
#pragma once

#include <string>
#include <vector>

namespace burst {

class IgnoreRules {
 public:
  // `base` is the directory (relative to the sync root, "" for the root) the pattern belongs to.
  void add(const std::string& pattern, const std::string& base);
  // Reads a .gitignore-format file; a missing file adds nothing.
  void add_file(const std::string& path, const std::string& base);
  // `rel` is relative to the sync root, '/'-separated.
  bool ignored(const std::string& rel, bool is_dir) const;

 private:
  struct Rule {
    std::string glob;
    std::string base;
    bool negate = false;
    bool dir_only = false;
    bool anchored = false;
  };
  std::vector<Rule> rules_;
};

// Glob match with gitignore's `**`; `*` and `?` never match '/'.
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace burst
