#include "sync/sync_manifest.h"

#include <algorithm>
#include <set>
#include <sstream>

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

std::string format_manifest(const std::vector<ManifestEntry>& entries) {
  std::vector<const ManifestEntry*> sorted;
  for (const auto& e : entries) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(),
            [](const ManifestEntry* a, const ManifestEntry* b) { return a->path < b->path; });
  std::ostringstream o;
  o << "burst-manifest 1\n";
  for (const auto* e : sorted) {
    o << e->type << '\t' << std::oct << e->mode << std::dec << '\t' << e->size << '\t' << e->mtime
      << '\t' << (e->sha256.empty() ? "-" : e->sha256) << '\t' << e->path << '\n';
  }
  return o.str();
}

Manifest parse_manifest(const std::string& text) {
  Manifest out;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != "burst-manifest 1") return out;
  while (std::getline(in, line)) {
    ManifestEntry e;
    std::vector<std::string> parts;
    size_t start = 0;
    for (int i = 0; i < 5; ++i) {
      size_t tab = line.find('\t', start);
      if (tab == std::string::npos) return {};
      parts.push_back(line.substr(start, tab - start));
      start = tab + 1;
    }
    e.path = line.substr(start);
    if (parts[0].size() != 1 || e.path.empty()) return {};
    try {
      e.type = parts[0][0];
      e.mode = static_cast<uint32_t>(std::stoul(parts[1], nullptr, 8));
      e.size = std::stoull(parts[2]);
      e.mtime = std::stoll(parts[3]);
    } catch (...) {
      return {};
    }
    e.sha256 = parts[4];
    out[e.path] = e;
  }
  return out;
}

std::map<std::string, RemoteStat> parse_remote_stats(const std::string& records) {
  std::map<std::string, RemoteStat> out;
  size_t pos = 0;
  while (pos < records.size()) {
    size_t end = records.find('\0', pos);
    if (end == std::string::npos) break;
    std::string rec = records.substr(pos, end - pos);
    pos = end + 1;
    size_t t1 = rec.find('\t'), t2 = rec.find('\t', t1 + 1), t3 = rec.find('\t', t2 + 1);
    if (t1 == std::string::npos || t2 == std::string::npos || t3 == std::string::npos) continue;
    RemoteStat s;
    try {
      unsigned long raw = std::stoul(rec.substr(0, t1), nullptr, 16);
      unsigned long kind = raw & 0170000;
      s.type = kind == 0100000 ? 'f' : kind == 0040000 ? 'd' : kind == 0120000 ? 'l' : '?';
      s.mode = static_cast<uint32_t>(raw & 07777);
      s.size = std::stoull(rec.substr(t1 + 1, t2 - t1 - 1));
      s.mtime = std::stoll(rec.substr(t2 + 1, t3 - t2 - 1));
    } catch (...) {
      continue;
    }
    out[rec.substr(t3 + 1)] = s;
  }
  return out;
}

Result<SyncPlan> plan_sync(const ScanResult& scan, const Manifest& manifest,
                           const std::map<std::string, RemoteStat>& remote,
                           const std::function<Result<std::string>(const LocalFile&)>& hash) {
  SyncPlan plan;
  std::set<std::string> local_dirs(scan.dirs.begin(), scan.dirs.end());
  std::map<std::string, char> local_types;
  for (size_t i = 0; i < scan.dirs.size(); ++i) {
    local_types[scan.dirs[i]] = 'd';
    auto m = manifest.find(scan.dirs[i]);
    if (m == manifest.end() || m->second.type != 'd' || !still_there(m->second, remote))
      plan.send_dirs.push_back(i);
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
        plan.known_hash[f.rel] = f.link_hash;
        continue;
      }
    } else if (valid && m->second.size == f.size) {
      if (m->second.mtime == f.mtime && m->second.mode == f.mode) {
        plan.known_hash[f.rel] = m->second.sha256;
        continue;
      }
      auto h = hash(f);
      if (!h.ok()) return h.error();
      if (*h == m->second.sha256) {
        plan.known_hash[f.rel] = *h;
        plan.touch.push_back(i);
        continue;
      }
    }
    plan.send.push_back(i);
    plan.send_bytes += type == 'f' ? f.size : 0;
  }
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
