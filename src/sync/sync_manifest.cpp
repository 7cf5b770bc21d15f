#include "sync/sync_manifest.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <unordered_map>

namespace burst {
namespace {

char local_type(const LocalFile& f) { return f.link_target.empty() ? 'f' : 'l'; }

// Whether the pod still holds exactly what the manifest says burst wrote there.
bool still_there(const ManifestEntry& m, const std::map<std::string, RemoteStat>& remote) {
  auto r = remote.find(m.path);
  if (r == remote.end() || r->second.type != m.type) return false;
  if (m.type == 'd') return true;
  if (r->second.size != m.size) return false;
  return m.type == 'l' || (r->second.mtime == m.mtime && r->second.mode == m.mode);
}

// Every ancestor of `path` is a real directory on the pod (not a symlink a job put there), so
// removing `path` cannot reach outside the sync root.
bool ancestors_are_dirs(const std::string& path, const std::map<std::string, RemoteStat>& remote) {
  for (size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    auto r = remote.find(path.substr(0, slash));
    if (r == remote.end() || r->second.type != 'd') return false;
  }
  return true;
}

}  // namespace

// The manifest of an unchanged tree is formatted and parsed on every sync (5,000 files: about
// 0.6 MB), so both avoid iostreams: plain appends and std::from_chars.
std::string format_manifest(const std::vector<ManifestEntry>& entries) {
  std::vector<const ManifestEntry*> sorted;
  sorted.reserve(entries.size());
  size_t bytes = 32;
  for (const auto& e : entries) {
    sorted.push_back(&e);
    bytes += e.path.size() + e.sha256.size() + 48;
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const ManifestEntry* a, const ManifestEntry* b) { return a->path < b->path; });
  std::string o;
  o.reserve(bytes);
  o += "burst-manifest 1\n";
  char num[24];
  auto number = [&](auto v, int base) {
    o.append(num, std::to_chars(num, num + sizeof num, v, base).ptr);
    o += '\t';
  };
  for (const auto* e : sorted) {
    o += e->type;
    o += '\t';
    number(e->mode, 8);
    number(e->size, 10);
    number(e->mtime, 10);
    o += e->sha256.empty() ? "-" : e->sha256;
    o += '\t';
    o += e->path;
    o += '\n';
  }
  return o;
}

namespace {

template <typename T>
bool parse_number(std::string_view s, T* out, int base = 10) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

}  // namespace

Manifest parse_manifest(std::string_view text) {
  Manifest out;
  const std::string_view all(text);
  size_t pos = all.find('\n');
  if (all.substr(0, pos) != "burst-manifest 1") return out;
  while (pos != std::string_view::npos && pos + 1 < all.size()) {
    const size_t start = pos + 1;
    pos = all.find('\n', start);
    std::string_view line = all.substr(start, pos == std::string_view::npos ? pos : pos - start);
    std::string_view parts[5];
    for (auto& part : parts) {
      size_t tab = line.find('\t');
      if (tab == std::string_view::npos) return {};
      part = line.substr(0, tab);
      line.remove_prefix(tab + 1);
    }
    ManifestEntry e;
    if (parts[0].size() != 1 || line.empty() || !parse_number(parts[1], &e.mode, 8) ||
        !parse_number(parts[2], &e.size) || !parse_number(parts[3], &e.mtime))
      return {};
    e.type = parts[0][0];
    e.sha256 = parts[4];
    e.path = line;
    std::string key = e.path;
    out.emplace_hint(out.end(), std::move(key), std::move(e));  // written sorted by path
  }
  return out;
}

std::map<std::string, RemoteStat> parse_remote_stats(std::string_view records) {
  std::map<std::string, RemoteStat> out;
  size_t pos = 0;
  while (pos < records.size()) {
    size_t end = records.find('\0', pos);
    if (end == std::string_view::npos) break;
    std::string_view rec = records.substr(pos, end - pos);
    pos = end + 1;
    std::string_view parts[3];
    bool whole = true;
    for (auto& part : parts) {
      const size_t tab = rec.find('\t');
      if (tab == std::string_view::npos) {
        whole = false;
        break;
      }
      part = rec.substr(0, tab);
      rec.remove_prefix(tab + 1);
    }
    uint32_t raw = 0;
    RemoteStat s;
    if (!whole || !parse_number(parts[0], &raw, 16) || !parse_number(parts[1], &s.size) ||
        !parse_number(parts[2], &s.mtime))
      continue;
    const uint32_t kind = raw & 0170000;
    s.type = kind == 0100000 ? 'f' : kind == 0040000 ? 'd' : kind == 0120000 ? 'l' : '?';
    s.mode = raw & 07777;
    out[std::string(rec)] = s;
  }
  return out;
}

Result<bool> ProbeReplyReader::feed(const char* data, size_t len) {
  if (done_) return true;
  if (len > max_reply_ - std::min(max_reply_, text_.size()))
    return make_error(ErrorCode::kRemoteFailed, "the pod's manifest answer is longer than " +
                                                    std::to_string(max_reply_) + " bytes");
  text_.append(data, len);
  for (size_t nul; (nul = text_.find('\0', searched_)) != std::string::npos;) {
    searched_ = nul + 1;
    if (record_ == std::string::npos) {  // the manifest's end
      record_ = searched_;
      continue;
    }
    if (nul - record_ > kMaxRecord) break;
    if (text_.compare(record_, nul - record_, "END") == 0) {
      text_.resize(record_);
      done_ = true;
      return true;
    }
    record_ = searched_;
  }
  searched_ = text_.size();
  if (record_ != std::string::npos && text_.size() - record_ > kMaxRecord)
    return make_error(ErrorCode::kRemoteFailed,
                      "the pod's manifest answer has a stat record longer "
                      "than " +
                          std::to_string(kMaxRecord) + " bytes");
  return false;
}

ProbeReply ProbeReplyReader::reply() const {
  ProbeReply r;
  const std::string_view all(text_);
  r.has_tar = all.substr(0, 3) == "T1\n";
  const size_t nl = all.find('\n');
  const size_t body = nl == std::string_view::npos ? all.size() : nl + 1;
  const size_t nul = all.find('\0', body);
  if (nul == std::string_view::npos) return r;
  r.manifest = parse_manifest(all.substr(body, nul - body));
  r.remote = parse_remote_stats(all.substr(nul + 1));
  return r;
}

Result<ProbeReply> parse_probe_reply(std::string_view text) {
  ProbeReplyReader reader;
  auto done = reader.feed(text.data(), text.size());
  if (!done.ok()) return done.error();
  if (!*done) return make_error(ErrorCode::kRemoteFailed, "the pod's answer ended early");
  return reader.reply();
}

Result<SyncPlan> plan_sync(const ScanResult& scan, const Manifest& manifest,
                           const std::map<std::string, RemoteStat>& remote,
                           const std::function<Result<std::string>(const LocalFile&)>& hash) {
  SyncPlan plan;
  plan.known_hash.resize(scan.files.size());
  // Entries that the new manifest will list exactly as the old one does.
  size_t same_entries = 0;
  std::unordered_map<std::string_view, char> local_types;
  local_types.reserve(scan.dirs.size() + scan.files.size());
  for (size_t i = 0; i < scan.dirs.size(); ++i) {
    local_types[scan.dirs[i]] = 'd';
    auto m = manifest.find(scan.dirs[i]);
    if (m == manifest.end() || m->second.type != 'd' || !still_there(m->second, remote)) {
      plan.send_dirs.push_back(i);
      continue;
    }
    const uint32_t mode = scan.dir_modes.size() > i ? scan.dir_modes[i] : 0755u;
    if (m->second.mode == mode && m->second.size == 0 && m->second.mtime == 0 &&
        m->second.sha256 == "-")
      ++same_entries;
  }
  for (size_t i = 0; i < scan.files.size(); ++i) {
    const LocalFile& f = scan.files[i];
    const char type = local_type(f);
    local_types[f.rel] = type;
    auto m = manifest.find(f.rel);
    const bool valid =
        m != manifest.end() && m->second.type == type && still_there(m->second, remote);
    if (valid && type == 'l') {
      if (m->second.sha256 == f.link_hash) {
        plan.known_hash[i] = f.link_hash;
        if (m->second.mode == 0777 && m->second.size == f.size && m->second.mtime == 0)
          ++same_entries;
        continue;
      }
    } else if (valid && m->second.size == f.size) {
      if (m->second.mtime == f.mtime && m->second.mode == f.mode) {
        plan.known_hash[i] = m->second.sha256;
        ++same_entries;
        continue;
      }
      auto h = hash(f);
      if (!h.ok()) return h.error();
      if (*h == m->second.sha256) {
        plan.known_hash[i] = *h;
        plan.touch.push_back(i);
        continue;
      }
    }
    plan.send.push_back(i);
    plan.send_bytes += type == 'f' ? f.size : 0;
  }
  // Every local entry matched its own manifest entry, and there are no others.
  plan.manifest_current =
      same_entries == scan.dirs.size() + scan.files.size() && manifest.size() == same_entries;
  // Remove what burst wrote before and the scan no longer has (or has as another type). Paths
  // the job created are not in the manifest and are left alone.
  std::vector<std::string> dirs;
  for (const auto& [path, m] : manifest) {
    auto local = local_types.find(path);
    if (local != local_types.end() && local->second == m.type) continue;
    auto r = remote.find(path);
    if (r == remote.end() || !ancestors_are_dirs(path, remote)) continue;
    if (r->second.type == 'd')
      dirs.push_back(path);
    else
      plan.remove.push_back(path);
  }
  std::sort(dirs.begin(), dirs.end(), std::greater<>());  // children sort after their parents
  plan.remove.insert(plan.remove.end(), dirs.begin(), dirs.end());
  return plan;
}

}  // namespace burst
