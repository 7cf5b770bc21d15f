#include "dashboard/prom_text.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

namespace burst::testing {
namespace {

bool prom_name_ok(const std::string& s, bool colon) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool ok =
        std::isalpha(c) || c == '_' || (colon && c == ':') || (i > 0 && std::isdigit(c));
    if (!ok) return false;
  }
  return true;
}

bool prom_float(const std::string& s, double* out) {
  if (s == "+Inf" || s == "Inf") return *out = INFINITY, true;
  if (s == "-Inf") return *out = -INFINITY, true;
  if (s == "NaN") return *out = NAN, true;
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && !std::isinf(*out) && !std::isnan(*out);
}

// The family a sample name belongs to: histogram/summary suffixes map to their base when that
// base was declared with such a type.
std::string prom_family_of(const std::string& name, const std::map<std::string, PromFamily>& fams) {
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    const std::string sfx = suffix;
    if (name.size() > sfx.size() && name.compare(name.size() - sfx.size(), sfx.size(), sfx) == 0) {
      std::string base = name.substr(0, name.size() - sfx.size());
      auto it = fams.find(base);
      if (it != fams.end() && (it->second.type == "histogram" || it->second.type == "summary"))
        return base;
    }
  }
  return name;
}

std::string prom_check_histogram(const std::string& name, const PromFamily& f) {
  // Group by labels without le.
  std::map<std::map<std::string, std::string>, std::vector<std::pair<double, double>>> buckets;
  std::map<std::map<std::string, std::string>, double> counts, sums;
  for (const PromSample& s : f.samples) {
    auto labels = s.labels;
    if (s.name == name + "_bucket") {
      auto le = labels.find("le");
      if (le == labels.end()) return name + ": a bucket without le";
      double bound;
      if (!prom_float(le->second, &bound)) return name + ": bad le \"" + le->second + "\"";
      labels.erase(le);
      buckets[labels].emplace_back(bound, s.value);
    } else if (s.name == name + "_count") {
      counts[labels] = s.value;
    } else if (s.name == name + "_sum") {
      sums[labels] = s.value;
    } else {
      return name + ": unexpected sample " + s.name + " in a histogram";
    }
  }
  for (const auto& [labels, bs] : buckets) {
    double last_bound = -INFINITY, last_n = 0;
    for (const auto& [bound, n] : bs) {
      if (bound <= last_bound) return name + ": buckets not in increasing le order";
      if (n < last_n) return name + ": buckets not cumulative";
      last_bound = bound;
      last_n = n;
    }
    if (!std::isinf(last_bound)) return name + ": no le=\"+Inf\" bucket";
    if (!counts.count(labels) || !sums.count(labels)) return name + ": missing _count or _sum";
    if (counts.at(labels) != last_n) return name + ": +Inf bucket differs from _count";
  }
  if (counts.size() != buckets.size()) return name + ": a _count without buckets";
  return "";
}

}  // namespace

double PromParse::value(const std::string& name,
                        const std::map<std::string, std::string>& labels) const {
  for (const auto& [fname, f] : families)
    for (const PromSample& s : f.samples)
      if (s.name == name && s.labels == labels) return s.value;
  return -1;
}

double PromParse::sum(const std::string& name,
                      const std::map<std::string, std::string>& match) const {
  double total = 0;
  for (const auto& [fname, f] : families)
    for (const PromSample& s : f.samples) {
      if (s.name != name) continue;
      bool ok = true;
      for (const auto& [k, v] : match) ok = ok && s.labels.count(k) && s.labels.at(k) == v;
      if (ok) total += s.value;
    }
  return total;
}

PromParse parse_prom_text(const std::string& text) {
  PromParse out;
  if (!text.empty() && text.back() != '\n') return out.error = "no newline at the end", out;
  std::set<std::string> closed;  // families whose samples ended (another family came after)
  std::set<std::string> series;
  std::string current;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  auto fail = [&](const std::string& why) {
    out.error = "line " + std::to_string(n) + ": " + why + ": " + line;
    return out;
  };
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::istringstream ws(line.substr(1));
      std::string kw, name;
      ws >> kw >> name;
      if (kw != "HELP" && kw != "TYPE") continue;  // a plain comment
      if (!prom_name_ok(name, true)) return fail("bad metric name in " + kw);
      std::string rest;
      std::getline(ws, rest);
      if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
      PromFamily& f = out.families[name];
      if (kw == "TYPE") {
        static const std::set<std::string> kTypes = {"counter", "gauge", "histogram", "summary",
                                                     "untyped"};
        if (!kTypes.count(rest)) return fail("unknown type");
        if (!f.type.empty()) return fail("a second TYPE for " + name);
        if (!f.samples.empty()) return fail("TYPE after samples of " + name);
        f.type = rest;
      } else {
        if (!f.help.empty()) return fail("a second HELP for " + name);
        f.help = rest;
      }
      continue;
    }
    PromSample s;
    size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = line.substr(0, i);
    if (!prom_name_ok(s.name, true)) return fail("bad metric name");
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (true) {
        if (i < line.size() && line[i] == '}') {
          ++i;
          break;
        }
        size_t eq = line.find('=', i);
        if (eq == std::string::npos) return fail("label without =");
        std::string lname = line.substr(i, eq - i);
        if (!prom_name_ok(lname, false)) return fail("bad label name \"" + lname + "\"");
        i = eq + 1;
        if (i >= line.size() || line[i] != '"') return fail("label value not quoted");
        ++i;
        std::string v;
        for (;; ++i) {
          if (i >= line.size()) return fail("unterminated label value");
          if (line[i] == '"') break;
          if (line[i] == '\\') {
            if (++i >= line.size()) return fail("unterminated escape");
            if (line[i] == 'n')
              v += '\n';
            else if (line[i] == '\\' || line[i] == '"')
              v += line[i];
            else
              return fail("bad escape");
          } else {
            v += line[i];
          }
        }
        ++i;
        if (s.labels.count(lname)) return fail("label repeated");
        s.labels[lname] = v;
        if (i < line.size() && line[i] == ',')
          ++i;
        else if (i >= line.size() || line[i] != '}')
          return fail("expected , or }");
      }
    }
    if (i >= line.size() || line[i] != ' ') return fail("expected a space before the value");
    std::istringstream vs(line.substr(i + 1));
    std::string value, ts, extra;
    vs >> value >> ts >> extra;
    if (!extra.empty()) return fail("trailing text");
    if (!prom_float(value, &s.value)) return fail("bad value");
    if (!ts.empty()) {
      double t;
      if (!prom_float(ts, &t) || ts.find_first_not_of("-0123456789") != std::string::npos)
        return fail("bad timestamp");
    }
    const std::string fam = prom_family_of(s.name, out.families);
    PromFamily& f = out.families[fam];
    if (f.type.empty()) return fail("sample before its family's TYPE");
    if (fam != current) {
      if (closed.count(fam)) return fail("family " + fam + " split in two");
      if (!current.empty()) closed.insert(current);
      current = fam;
    }
    if (f.type == "counter" && !(s.value >= 0)) return fail("counter below zero");
    std::string key = s.name;
    for (const auto& [k, v] : s.labels) key += "\x01" + k + "=" + v;
    if (!series.insert(key).second) return fail("series repeated");
    f.samples.push_back(std::move(s));
  }
  for (const auto& [name, f] : out.families)
    if (f.type == "histogram")
      if (std::string why = prom_check_histogram(name, f); !why.empty())
        return out.error = why, out;
  return out;
}

}  // namespace burst::testing
