// Recognising a PostgreSQL store URL and hiding its password (burst/store.h). Pure text work, no
// libpq: config reads `store:` with it, and every message that names a store goes through it.
#include <string>
#include <string_view>

#include "burst/store.h"

namespace burst {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Replaces the value after each "password=" (key/value form, or a URL's query parameter) up to
// the next separator with "***".
std::string redact_password_params(std::string s) {
  const std::string key = "password=";
  for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + 1)) {
    if (at > 0 && s[at - 1] != ' ' && s[at - 1] != '?' && s[at - 1] != '&') continue;
    const size_t from = at + key.size();
    size_t to = from;
    if (to < s.size() && s[to] == '\'') {  // key/value form: 'quoted \' value'
      for (++to; to < s.size() && s[to] != '\''; ++to)
        if (s[to] == '\\') ++to;
      to = to < s.size() ? to + 1 : s.size();
    } else {
      to = s.find_first_of(" &", from);
      if (to == std::string::npos) to = s.size();
    }
    s.replace(from, to - from, "***");
  }
  return s;
}

}  // namespace

bool is_postgres_url(const std::string& store) {
  return starts_with(store, "postgres://") || starts_with(store, "postgresql://");
}

std::string redact_store_url(const std::string& store) {
  std::string s = store;
  const size_t scheme = s.find("://");
  if (scheme != std::string::npos) {
    // userinfo is what precedes the last '@' before the path: user:password@host
    const size_t start = scheme + 3;
    const size_t path = s.find_first_of("/?", start);
    const size_t at = s.rfind('@', path == std::string::npos ? std::string::npos : path);
    if (at != std::string::npos && at >= start) {
      const size_t colon = s.find(':', start);
      if (colon != std::string::npos && colon < at) s.replace(colon + 1, at - colon - 1, "***");
    }
  }
  return redact_password_params(std::move(s));
}

}  // namespace burst
