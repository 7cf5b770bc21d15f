#include "sync/pull_listing.h"

#include <fnmatch.h>

#include <charconv>
#include <cstring>

namespace burst {
namespace {

Error pod_sent(const std::string& what, std::string_view entry) {
  return make_error(ErrorCode::kInvalid, "pod sent " + what + " \"" + escape_entry(entry) + "\"");
}

// The whole of `s` as a number in `base`; no sign, space or other byte.
template <typename T>
bool parse_number(std::string_view s, T* out, int base = 10) {
  if (s.empty() || s.front() == '-' || s.front() == '+') return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, *out, base);
  return ec == std::errc() && p == end;
}

bool parse_mtime(std::string_view s, int64_t* out) {
  if (!s.empty() && s.front() == '-') {
    uint64_t v = 0;
    if (!parse_number(s.substr(1), &v) || v > (1ull << 62)) return false;
    *out = -static_cast<int64_t>(v);
    return true;
  }
  return parse_number(s, out);
}

bool has_control(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return true;
  }
  return false;
}

// "out/clips/*.wav" -> "out/clips": the pattern's directory before its first wildcard.
std::string literal_dir(const std::string& pattern) {
  size_t wild = pattern.find_first_of("*?[");
  std::string head = wild == std::string::npos ? pattern : pattern.substr(0, wild);
  size_t slash = head.rfind('/');
  return slash == std::string::npos ? "" : head.substr(0, slash);
}

}  // namespace

std::string escape_entry(std::string_view s, size_t max) {
  std::string out;
  for (char c : s) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

Result<size_t> ListingParser::feed(const char* data, size_t n) {
  size_t used = 0;
  while (used < n && !done_) {
    const char* nul = static_cast<const char*>(std::memchr(data + used, '\0', n - used));
    const size_t take = nul ? static_cast<size_t>(nul - (data + used)) : n - used;
    if (rec_.size() + take > limits_.max_record_bytes)
      return pod_sent("a listing record longer than the limit of " +
                          std::to_string(limits_.max_record_bytes) + " bytes",
                      rec_ + std::string(data + used, std::min<size_t>(take, 256)));
    total_ += take + (nul ? 1 : 0);
    if (total_ > limits_.max_listing_bytes)
      return make_error(ErrorCode::kInvalid, "pod sent a listing longer than the limit of " +
                                                 std::to_string(limits_.max_listing_bytes) +
                                                 " bytes (" + std::to_string(files_.size()) +
                                                 " entries so far)");
    rec_.append(data + used, take);
    used += take;
    if (!nul) break;
    used++;  // the NUL
    Status st = record(rec_);
    rec_.clear();
    if (!st.ok()) return st.error();
  }
  return used;
}

Status ListingParser::record(std::string_view rec) {
  if (rec == "END") {
    done_ = true;
    return Status::Ok();
  }
  std::string_view f[4];
  std::string_view rest = rec;
  for (auto& field : f) {
    const size_t tab = rest.find('\t');
    if (tab == std::string_view::npos) return pod_sent("a malformed listing record", rec);
    field = rest.substr(0, tab);
    rest.remove_prefix(tab + 1);
  }
  ListedFile file;
  if (!parse_number(f[0], &file.pattern) || file.pattern >= patterns_)
    return pod_sent("a listing record for no requested pattern", rec);
  if (!parse_number(f[1], &file.size) || file.size > (1ull << 62))
    return pod_sent("a listing record with a bad size", rec);
  if (!parse_mtime(f[2], &file.mtime)) return pod_sent("a listing record with a bad mtime", rec);
  if (!parse_number(f[3], &file.mode, 8) || file.mode > 07777)
    return pod_sent("a listing record with a bad mode", rec);
  if (rest.empty()) return pod_sent("a listing record with an empty name", rec);
  if (files_.size() >= limits_.max_entries)
    return pod_sent("more than the limit of " + std::to_string(limits_.max_entries) + " files; at",
                    rest);
  file.name = std::string(rest);
  files_.push_back(std::move(file));
  return Status::Ok();
}

Status HashParser::feed(const char* data, size_t n) {
  total_ += n;
  if (total_ > limits_.max_hash_bytes)
    return make_error(ErrorCode::kInvalid, "pod sent more than the limit of " +
                                               std::to_string(limits_.max_hash_bytes) +
                                               " bytes of hash records");
  size_t used = 0;
  while (used < n) {
    const char* nul = static_cast<const char*>(std::memchr(data + used, '\0', n - used));
    const size_t take = nul ? static_cast<size_t>(nul - (data + used)) : n - used;
    if (rec_.size() + take > limits_.max_record_bytes)
      return pod_sent("a hash record longer than the limit of " +
                          std::to_string(limits_.max_record_bytes) + " bytes",
                      rec_ + std::string(data + used, std::min<size_t>(take, 256)));
    rec_.append(data + used, take);
    used += take;
    if (!nul) break;
    used++;
    if (!rec_.empty()) {  // NULs between records: the zero blocks after a tar archive
      Status st = record(rec_);
      if (!st.ok()) return st;
    }
    rec_.clear();
  }
  return Status::Ok();
}

Status HashParser::finish() const {
  if (!rec_.empty()) return pod_sent("an unterminated hash record", rec_);
  return Status::Ok();
}

Status HashParser::record(std::string_view rec) {
  if (rec.size() < 67 || rec.substr(64, 2) != "  ") return pod_sent("a malformed hash record", rec);
  for (char c : rec.substr(0, 64))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return pod_sent("a hash record with a bad sha256", rec);
  hashes_.emplace(std::string(rec.substr(66)), std::string(rec.substr(0, 64)));
  return Status::Ok();
}

Result<std::string> local_relative(const std::string& pattern, const std::string& name) {
  if (name.empty()) return pod_sent("an empty file name", name);
  if (has_control(name)) return pod_sent("a file name with control characters", name);
  const bool abs_pattern = !pattern.empty() && pattern.front() == '/';
  if ((name.front() == '/') != abs_pattern)
    return pod_sent(abs_pattern ? "a relative name for an absolute pattern"
                                : "an absolute name for a relative pattern",
                    name);
  // FNM_NOESCAPE: shell_glob sends a backslash quoted, as a literal byte.
  if (::fnmatch(pattern.c_str(), name.c_str(), FNM_PATHNAME | FNM_NOESCAPE) != 0)
    return pod_sent("a name that does not match the pattern " + escape_entry(pattern, 100) + ":",
                    name);
  const std::string base = literal_dir(pattern);
  std::string rel;
  if (base.empty() && !abs_pattern) {
    rel = name;
  } else {
    // An absolute pattern with no directory before its wildcard ("/*.bin"): base "" is "/".
    const std::string prefix = base + "/";
    if (name.compare(0, prefix.size(), prefix) != 0)
      return pod_sent("a name outside the pattern's directory", name);
    rel = name.substr(prefix.size());
  }
  if (rel.empty()) return pod_sent("a name with nothing after the pattern's directory", name);
  for (size_t at = 0; at <= rel.size();) {
    size_t slash = rel.find('/', at);
    if (slash == std::string::npos) slash = rel.size();
    const std::string_view comp = std::string_view(rel).substr(at, slash - at);
    if (comp.empty() || comp == "." || comp == "..")
      return pod_sent("a name with an empty, \".\" or \"..\" component", name);
    at = slash + 1;
  }
  constexpr std::string_view kPart = ".burst-part";
  if (rel.size() >= kPart.size() &&
      rel.compare(rel.size() - kPart.size(), kPart.size(), kPart) == 0)
    return pod_sent("a name ending in .burst-part (the pull's temp names)", name);
  return rel;
}

uint32_t install_mode(uint32_t pod_mode) {
  const bool exec = (pod_mode & 0111) != 0;
  return (pod_mode & (exec ? 0755u : 0644u)) | 0600u | (exec ? 0100u : 0u);
}

}  // namespace burst
