#include "sync/ignore_rules.h"

#include <fstream>

namespace burst {
namespace {

bool match_class(const std::string& p, size_t& i, char c) {
  // p[i] == '['; on return i points past ']'.
  size_t j = i + 1;
  bool negate = j < p.size() && (p[j] == '!' || p[j] == '^');
  if (negate) ++j;
  bool hit = false;
  size_t start = j;
  for (; j < p.size() && (p[j] != ']' || j == start); ++j) {
    if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
      hit = hit || (c >= p[j] && c <= p[j + 2]);
      j += 2;
    } else {
      hit = hit || c == p[j];
    }
  }
  i = j + 1;
  return hit != negate;
}

bool match_at(const std::string& p, size_t pi, const std::string& t, size_t ti) {
  while (pi < p.size()) {
    // "**" means "any depth" only as a whole component; elsewhere git treats it as "*".
    const bool component_start = pi == 0 || p[pi - 1] == '/';
    if (component_start && p.compare(pi, 3, "**/") == 0) {  // zero or more whole directories
      for (size_t k = ti; k <= t.size(); ++k)
        if ((k == ti || t[k - 1] == '/') && match_at(p, pi + 3, t, k)) return true;
      return false;
    }
    if (component_start && pi + 2 == p.size() && p.compare(pi, 2, "**") == 0)
      return true;  // trailing "**": everything below
    char c = p[pi];
    if (c == '*') {
      for (size_t k = ti; k <= t.size(); ++k) {
        if (match_at(p, pi + 1, t, k)) return true;
        if (k < t.size() && t[k] == '/') return false;
      }
      return false;
    }
    if (ti >= t.size()) return false;
    if (c == '?') {
      if (t[ti] == '/') return false;
      ++pi;
    } else if (c == '[') {
      if (t[ti] == '/' || !match_class(p, pi, t[ti])) return false;
    } else {
      if (c == '\\' && pi + 1 < p.size()) c = p[++pi];
      if (c != t[ti]) return false;
      ++pi;
    }
    ++ti;
  }
  return ti == t.size();
}

}  // namespace

bool glob_match(const std::string& pattern, const std::string& text) {
  return match_at(pattern, 0, text, 0);
}

void IgnoreRules::add(const std::string& raw, const std::string& base) {
  std::string p = raw;
  while (!p.empty() && (p.back() == ' ' || p.back() == '\r')) p.pop_back();
  if (p.empty() || p[0] == '#') return;
  Rule r;
  r.base = base;
  if (p[0] == '!') {
    r.negate = true;
    p.erase(0, 1);
  }
  if (!p.empty() && p.back() == '/') {
    r.dir_only = true;
    p.pop_back();
  }
  if (p.find('/') != std::string::npos) {
    r.anchored = true;
    if (p[0] == '/') p.erase(0, 1);
  }
  if (p.empty()) return;
  r.glob = p;
  rules_.push_back(r);
}

void IgnoreRules::add_file(const std::string& path, const std::string& base) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) add(line, base);
}

bool IgnoreRules::ignored(const std::string& rel, bool is_dir) const {
  bool result = false;
  for (const Rule& r : rules_) {
    if (r.dir_only && !is_dir) continue;
    std::string sub = rel;
    if (!r.base.empty()) {
      if (rel.compare(0, r.base.size() + 1, r.base + "/") != 0) continue;
      sub = rel.substr(r.base.size() + 1);
    }
    std::string subject = sub;
    if (!r.anchored) {
      size_t slash = sub.rfind('/');
      subject = slash == std::string::npos ? sub : sub.substr(slash + 1);
    }
    if (glob_match(r.glob, subject)) result = !r.negate;
  }
  return result;
}

}  // namespace burst
