#include "schedule/tz.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "util/suggest.h"

namespace burst::schedule {
namespace {

Error bad_tzif(const std::string& name, const std::string& why) {
  return make_error(ErrorCode::kInvalid, "time zone " + name + ": not a TZif file: " + why);
}

// Big-endian reads over the file's bytes; `ok` turns false on the first read past the end.
struct Reader {
  std::string_view bytes;
  size_t at = 0;
  bool ok = true;

  bool has(size_t n) {
    ok = ok && at + n <= bytes.size();
    return ok;
  }
  int64_t be(size_t n) {
    if (!has(n)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
    at += n;
    // Sign-extend 4- and 8-byte two's complement values.
    if (n == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
    return static_cast<int64_t>(v);
  }
  int u8() { return static_cast<int>(be(1)); }
  void skip(size_t n) {
    if (has(n)) at += n;
  }
};

struct Header {
  char version = 0;
  int64_t isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0;
};

bool read_header(Reader& r, Header& h) {
  if (!r.has(20) || r.bytes.substr(r.at, 4) != "TZif") return false;
  h.version = r.bytes[r.at + 4];
  r.skip(20);
  for (int64_t* count : {&h.isutcnt, &h.isstdcnt, &h.leapcnt, &h.timecnt, &h.typecnt, &h.charcnt}) {
    *count = r.be(4);
    if (*count < 0) return false;
  }
  return r.ok && h.typecnt > 0;
}

// A data block's size in bytes, for skipping the version 1 block of a v2+ file.
size_t block_size(const Header& h, size_t time_size) {
  return h.timecnt * time_size + h.timecnt + h.typecnt * 6 + h.charcnt +
         h.leapcnt * (time_size + 4) + h.isstdcnt + h.isutcnt;
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 255 || name.front() == '/') return false;
  std::string_view rest = name;
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    if (part.empty() || part == "." || part == "..") return false;
    for (char c : part) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '+') {
        return false;
      }
    }
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  }
  return name.back() != '/';
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The entry of `dir` closest to `want` (any case, at most 2 edits), or "".
std::string closest_entry(const std::filesystem::path& dir, std::string_view want, bool want_dir) {
  std::error_code ec;
  std::string best;
  size_t best_distance = 3;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec) != want_dir) continue;
    std::string name = entry.path().filename().string();
    size_t d = edit_distance(lower(name), lower(want));
    if (d < best_distance && d < want.size()) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

// A zone name close to `name` ("Europe/Londn", "europe/london" -> "Europe/London"), or "".
std::string suggest_zone(const std::string& dir, const std::string& name) {
  size_t slash = name.rfind('/');
  std::string parent;
  if (slash != std::string::npos) {
    parent = closest_entry(dir, name.substr(0, slash), true);
    if (parent.empty() || name.find('/') != slash) return "";
  }
  std::string leaf = closest_entry(std::filesystem::path(dir) / parent,
                                   name.substr(slash == std::string::npos ? 0 : slash + 1), false);
  if (leaf.empty()) return "";
  std::string out = parent.empty() ? leaf : parent + "/" + leaf;
  return out == name ? "" : out;
}

}  // namespace

TimeZone TimeZone::utc() {
  TimeZone zone;
  zone.name_ = "UTC";
  return zone;
}

std::optional<TimeZone> TimeZone::from_posix(std::string name, std::string_view tz_string) {
  std::optional<PosixTz> footer = PosixTz::parse(tz_string);
  if (!footer) return std::nullopt;
  TimeZone zone;
  zone.name_ = std::move(name);
  zone.initial_offset_ = footer->offset_at(0);
  zone.footer_ = footer;
  return zone;
}

Result<TimeZone> TimeZone::from_tzif(std::string name, std::string_view bytes) {
  Reader r{bytes};
  Header h;
  if (!read_header(r, h)) return bad_tzif(name, "bad header");
  size_t time_size = 4;
  if (h.version >= '2') {  // skip the 32-bit block; the 64-bit one follows with its own header
    r.skip(block_size(h, 4));
    if (!read_header(r, h)) return bad_tzif(name, "bad version 2 header");
    time_size = 8;
  }
  // Check the counts against the bytes before reserving anything for them.
  if (!r.has(block_size(h, time_size))) return bad_tzif(name, "truncated");
  TimeZone zone;
  zone.name_ = std::move(name);
  std::vector<int64_t> times;
  for (int64_t i = 0; i < h.timecnt; ++i) times.push_back(r.be(time_size));
  std::vector<int> type_of;
  for (int64_t i = 0; i < h.timecnt; ++i) type_of.push_back(r.u8());
  std::vector<int> utoffs;
  for (int64_t i = 0; i < h.typecnt; ++i) {
    utoffs.push_back(static_cast<int>(r.be(4)));
    r.skip(2);  // isdst, abbreviation index: not needed to map times
  }
  // Abbreviations, leap seconds ("right/" zones are read as if they had none), std/ut flags.
  r.skip(h.charcnt + h.leapcnt * (time_size + 4) + h.isstdcnt + h.isutcnt);
  if (!r.ok) return bad_tzif(zone.name_, "truncated");
  for (size_t i = 0; i < times.size(); ++i) {
    if (type_of[i] >= h.typecnt || (i > 0 && times[i] <= times[i - 1])) {
      return bad_tzif(zone.name_, "bad transition table");
    }
    zone.times_.push_back(times[i]);
    zone.offsets_.push_back(utoffs[type_of[i]]);
  }
  zone.initial_offset_ = utoffs[0];
  if (time_size == 8 && r.at < bytes.size() && bytes[r.at] == '\n') {
    size_t end = bytes.find('\n', r.at + 1);
    if (end == std::string_view::npos) return bad_tzif(zone.name_, "unterminated footer");
    std::string_view footer = bytes.substr(r.at + 1, end - r.at - 1);
    if (!footer.empty()) {
      zone.footer_ = PosixTz::parse(footer);
      if (!zone.footer_)
        return bad_tzif(zone.name_, "bad TZ string \"" + std::string(footer) + "\"");
    }
  }
  return zone;
}

int TimeZone::offset_at(int64_t utc) const {
  if (times_.empty() || utc < times_.front()) {
    return times_.empty() && footer_ ? footer_->offset_at(utc) : initial_offset_;
  }
  if (footer_ && utc >= times_.back()) return footer_->offset_at(utc);
  size_t i = std::upper_bound(times_.begin(), times_.end(), utc) - times_.begin() - 1;
  return offsets_[i];
}

std::optional<int64_t> TimeZone::next_transition(int64_t utc) const {
  auto it = std::upper_bound(times_.begin(), times_.end(), utc);
  for (; it != times_.end(); ++it) {
    if (offset_at(*it) != offset_at(*it - 1)) return *it;
  }
  if (!footer_) return std::nullopt;
  std::optional<int64_t> next = footer_->next_transition(utc);
  // The footer takes over at the last transition; its own change exactly there is not a new one.
  if (!times_.empty() && next && *next <= times_.back()) {
    next = footer_->next_transition(times_.back());
  }
  return next;
}

LocalMapping TimeZone::to_utc(int64_t local) const {
  // Walk the constant-offset intervals around `local` (no offset exceeds a day) and keep every
  // instant u in an interval whose offset o gives u + o == local.
  int64_t start = local - 2 * 86400;
  std::vector<int64_t> found;
  int64_t gap_at = 0;
  while (start <= local + 2 * 86400) {
    int offset = offset_at(start);
    std::optional<int64_t> end = next_transition(start);
    int64_t u = local - offset;
    if (u >= start && (!end || u < *end)) found.push_back(u);
    if (!end) break;
    // `local` falls between this interval's last wall-clock time and the next one's first.
    if (local >= *end + offset && local < *end + offset_at(*end)) gap_at = *end;
    start = *end;
  }
  if (found.empty()) return LocalMapping{LocalMapping::Kind::kGap, gap_at, gap_at};
  if (found.size() == 1) return LocalMapping{LocalMapping::Kind::kUnique, found[0], found[0]};
  return LocalMapping{LocalMapping::Kind::kOverlap, found.front(), found.back()};
}

Result<TimeZone> load_time_zone(const std::string& name, const std::string& zoneinfo_dir) {
  if (name == "UTC") return TimeZone::utc();
  if (!valid_name(name)) {
    return make_error(ErrorCode::kInvalid, "not a time zone name: \"" + name + "\"");
  }
  std::string path = zoneinfo_dir + "/" + name;
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec)) {
    std::string close = suggest_zone(zoneinfo_dir, name);
    std::string hint = !std::filesystem::exists(zoneinfo_dir, ec)
                           ? " (no time zone database at " + zoneinfo_dir + "; install tzdata)"
                       : close.empty() ? " (expected an IANA name such as Europe/London)"
                                       : " (did you mean " + close + "?)";
    return make_error(ErrorCode::kNotFound, "unknown time zone \"" + name + "\"" + hint);
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  Result<TimeZone> zone = TimeZone::from_tzif(name, bytes.str());
  if (!zone.ok()) {
    return make_error(ErrorCode::kNotFound,
                      "unknown time zone \"" + name + "\" (" + zone.error().message + ")");
  }
  return zone;
}

}  // namespace burst::schedule
