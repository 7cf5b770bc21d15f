#include "sync/tar_stream.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace burst {
namespace {

constexpr size_t kBlock = 512;
constexpr size_t kFlushAt = 256 * 1024;
constexpr uint64_t kMaxOctal11 = 077777777777ULL;  // the largest size ustar's field holds
// What the reader accepts from a stream it does not trust (the pod's `tar -c`): one extended
// header (pax, GNU long name) of at most 1 MiB, at most 8 of them before an entry.
constexpr uint64_t kMaxMetaHeader = 1u << 20;
constexpr int kMaxMetaHeaders = 8;

void octal(char* field, size_t width, uint64_t v) {
  // width-1 zero-padded digits, NUL-terminated.
  field[width - 1] = '\0';
  for (size_t i = width - 1; i-- > 0; v >>= 3) field[i] = static_cast<char>('0' + (v & 7));
}

bool needs_pax(const std::string& s, size_t limit) {
  if (s.size() >= limit) return true;
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
}

// "<len> key=value\n" where len counts the whole record, itself included.
std::string pax_record(const std::string& key, const std::string& value) {
  size_t body = key.size() + value.size() + 3;  // ' ', '=', '\n'
  size_t len = body + std::to_string(body).size();
  if (std::to_string(len).size() + body != len) ++len;
  return std::to_string(len) + " " + key + "=" + value + "\n";
}

uint64_t parse_octal(const char* p, size_t n) {
  // GNU base-256 for large values: high bit of the first byte set.
  if (n > 0 && (static_cast<unsigned char>(p[0]) & 0x80)) {
    uint64_t v = static_cast<unsigned char>(p[0]) & 0x7f;
    for (size_t i = 1; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
    return v;
  }
  uint64_t v = 0;
  size_t i = 0;
  while (i < n && (p[i] == ' ' || p[i] == '\0')) ++i;
  for (; i < n && p[i] >= '0' && p[i] <= '7'; ++i) v = v * 8 + static_cast<uint64_t>(p[i] - '0');
  return v;
}

std::string field(const char* p, size_t n) { return std::string(p, strnlen(p, n)); }

// The records of a pax extended header: "<len> key=value\n" each, len counting the whole record.
// Only path, linkpath and size matter here; a malformed record is an error.
Status parse_pax(const std::string& body, std::string* path, std::string* link,
                 std::optional<uint64_t>* size) {
  const Error bad = make_error(ErrorCode::kInvalid, "tar: malformed pax header");
  size_t i = 0;
  while (i < body.size()) {
    if (body[i] == '\0') break;  // padding
    size_t len = 0;
    const char* start = body.data() + i;
    auto [p, ec] = std::from_chars(start, body.data() + body.size(), len);
    if (ec != std::errc() || p == start || p == body.data() + body.size() || *p != ' ') return bad;
    const size_t sp = static_cast<size_t>(p - body.data());
    if (len > body.size() - i || i + len <= sp + 1 || body[i + len - 1] != '\n') return bad;
    const std::string rec = body.substr(sp + 1, i + len - 1 - (sp + 1));
    const size_t eq = rec.find('=');
    if (eq == std::string::npos) return bad;
    const std::string k = rec.substr(0, eq), v = rec.substr(eq + 1);
    if (k == "path") *path = v;
    if (k == "linkpath") *link = v;
    if (k == "size") {
      uint64_t n = 0;
      auto [q, ec2] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec2 != std::errc() || q != v.data() + v.size() || v.empty()) return bad;
      *size = n;
    }
    i += len;
  }
  return Status::Ok();
}

}  // namespace

Status TarWriter::put(const char* p, size_t len) {
  buf_.insert(buf_.end(), p, p + len);
  total_ += len;
  return buf_.size() >= kFlushAt ? flush() : Status::Ok();
}

Status TarWriter::flush() {
  if (buf_.empty()) return Status::Ok();
  Status st = out_(buf_.data(), buf_.size());
  buf_.clear();
  return st;
}

Status TarWriter::header(const std::string& name, char type, uint32_t mode, int64_t mtime,
                         uint64_t size, const std::string& link) {
  char h[kBlock];
  std::memset(h, 0, sizeof h);
  std::memcpy(h, name.data(), std::min<size_t>(name.size(), 100));
  octal(h + 100, 8, mode & 07777);
  octal(h + 108, 8, 0);
  octal(h + 116, 8, 0);
  octal(h + 124, 12, std::min(size, kMaxOctal11));
  octal(h + 136, 12, static_cast<uint64_t>(std::max<int64_t>(mtime, 0)));
  h[156] = type;
  std::memcpy(h + 157, link.data(), std::min<size_t>(link.size(), 100));
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  octal(h + 148, 7, sum);  // six digits, NUL, then the space already there
  return put(h, sizeof h);
}

Status TarWriter::begin(const TarEntry& e) {
  std::string pax;
  if (needs_pax(e.name, 100)) pax += pax_record("path", e.name);
  if (needs_pax(e.link, 100)) pax += pax_record("linkpath", e.link);
  const uint64_t size = e.type == '0' ? e.size : 0;
  if (size > kMaxOctal11) pax += pax_record("size", std::to_string(size));
  if (!pax.empty()) {
    Status st = header("PaxHeaders/entry", 'x', 0644, e.mtime, pax.size(), "");
    if (st.ok()) st = put(pax.data(), pax.size());
    if (st.ok() && pax.size() % kBlock) {
      static const char zeros[kBlock] = {};
      st = put(zeros, kBlock - pax.size() % kBlock);
    }
    if (!st.ok()) return st;
  }
  // Names that do not fit are cut here; the pax record above carries the full one.
  std::string name = e.name.substr(0, 99);
  if (e.type == '5' && !name.empty() && name.back() != '/') name += '/';
  left_ = size;
  written_ = 0;
  return header(name, e.type, e.mode, e.mtime, size, e.link.substr(0, 99));
}

Status TarWriter::data(const char* p, size_t len) {
  len = static_cast<size_t>(std::min<uint64_t>(len, left_));
  left_ -= len;
  written_ += len;
  return put(p, len);
}

Status TarWriter::end_entry() {
  static const char zeros[64 * 1024] = {};
  while (left_ > 0) {  // the file shrank while it was read: keep the archive well-formed
    Status st = data(zeros, static_cast<size_t>(std::min<uint64_t>(left_, sizeof zeros)));
    if (!st.ok()) return st;
  }
  size_t pad = written_ % kBlock ? kBlock - written_ % kBlock : 0;
  written_ = 0;
  return pad ? put(zeros, pad) : Status::Ok();
}

Status TarWriter::finish() {
  static const char zeros[2 * kBlock] = {};
  Status st = put(zeros, sizeof zeros);
  return st.ok() ? flush() : st;
}

Result<size_t> TarReader::take(char* p, size_t len) {
  size_t got = 0;
  while (got < len) {
    if (pos_ == end_) {
      auto n = in_(buf_.data(), buf_.size());
      if (!n.ok()) return n.error();
      if (*n == 0) break;
      pos_ = 0;
      end_ = *n;
    }
    size_t k = std::min(len - got, end_ - pos_);
    std::memcpy(p + got, buf_.data() + pos_, k);
    pos_ += k;
    got += k;
  }
  return got;
}

Status TarReader::skip(uint64_t n) {
  char tmp[8192];
  while (n > 0) {
    auto got = take(tmp, static_cast<size_t>(std::min<uint64_t>(n, sizeof tmp)));
    if (!got.ok()) return got.error();
    if (*got == 0) return make_error(ErrorCode::kConnection, "tar stream ended early");
    n -= *got;
  }
  return Status::Ok();
}

Result<std::optional<TarEntry>> TarReader::next() {
  Status st = skip(left_ + pad_);
  if (!st.ok()) return st.error();
  left_ = pad_ = 0;
  std::string long_name, long_link;
  std::optional<uint64_t> pax_size;
  int meta = 0;  // extended headers read for this entry
  while (true) {
    char h[kBlock];
    auto got = take(h, sizeof h);
    if (!got.ok()) return got.error();
    if (*got == 0) return std::optional<TarEntry>{};
    if (*got != kBlock) return make_error(ErrorCode::kConnection, "tar stream ended early");
    if (std::all_of(h, h + kBlock, [](char c) { return c == 0; })) return std::optional<TarEntry>{};
    TarEntry e;
    e.type = h[156] ? h[156] : '0';
    e.mode = static_cast<uint32_t>(parse_octal(h + 100, 8));
    e.size = parse_octal(h + 124, 12);
    e.mtime = static_cast<int64_t>(parse_octal(h + 136, 12));
    e.link = field(h + 157, 100);
    e.name = field(h, 100);
    if (std::memcmp(h + 257, "ustar", 5) == 0 && h[345])
      e.name = field(h + 345, 155) + "/" + e.name;
    if (e.type == 'x' || e.type == 'g' || e.type == 'L' || e.type == 'K') {
      if (e.size > kMaxMetaHeader)
        return make_error(ErrorCode::kInvalid,
                          "tar: oversized header (" + std::to_string(e.size) + " bytes)");
      if (++meta > kMaxMetaHeaders)
        return make_error(ErrorCode::kInvalid, "tar: too many extended headers in a row");
      const uint64_t padded = (e.size + kBlock - 1) / kBlock * kBlock;
      std::string body(padded, '\0');
      got = take(body.data(), body.size());
      if (!got.ok()) return got.error();
      if (*got != body.size()) return make_error(ErrorCode::kConnection, "tar stream ended early");
      body.resize(e.size);
      if (e.type == 'L') long_name = field(body.data(), body.size());
      if (e.type == 'K') long_link = field(body.data(), body.size());
      if (e.type == 'x') {
        Status pax = parse_pax(body, &long_name, &long_link, &pax_size);
        if (!pax.ok()) return pax.error();
      }
      continue;
    }
    if (!long_name.empty()) e.name = long_name;
    if (!long_link.empty()) e.link = long_link;
    if (pax_size) e.size = *pax_size;
    if (e.type == '5' && !e.name.empty() && e.name.back() == '/') e.name.pop_back();
    if (e.type == '7') e.type = '0';
    if (e.type == '1' || e.type == '2' || e.type == '5') e.size = 0;
    left_ = e.size;  // other types' content is skipped by the next call to next()
    pad_ = (kBlock - e.size % kBlock) % kBlock;
    return std::optional<TarEntry>(std::move(e));
  }
}

std::string TarReader::take_buffered() {
  std::string rest(buf_.data() + pos_, end_ - pos_);
  pos_ = end_;
  return rest;
}

Result<size_t> TarReader::read(char* p, size_t len) {
  if (left_ == 0) return size_t{0};
  auto got = take(p, static_cast<size_t>(std::min<uint64_t>(len, left_)));
  if (!got.ok()) return got.error();
  if (*got == 0) return make_error(ErrorCode::kConnection, "tar stream ended early");
  left_ -= *got;
  return *got;
}

}  // namespace burst
