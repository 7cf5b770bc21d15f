#include "sync/code_sync.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "sync/ignore_rules.h"

namespace burst {
namespace fs = std::filesystem;

namespace {

bool inside(const fs::path& root, const fs::path& p) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q)
    if (q == p.end() || *r != *q) return false;
  return true;
}

struct Walker {
  const CodeSpec& code;
  fs::path root;
  IgnoreRules rules;
  ScanResult out;

  void load_ignore_files(const fs::path& dir, const std::string& rel) {
    if (code.gitignore) rules.add_file((dir / ".gitignore").string(), rel);
    rules.add_file((dir / ".burstignore").string(), rel);
  }

  Status walk(const fs::path& dir, const std::string& rel_dir) {
    load_ignore_files(dir, rel_dir);
    std::error_code ec;
    std::vector<fs::directory_entry> entries;
    for (const auto& e : fs::directory_iterator(dir, ec)) entries.push_back(e);
    if (ec)
      return make_error(ErrorCode::kInvalid,
                        "code.dir: cannot read " + dir.string() + ": " + ec.message());
    std::sort(entries.begin(), entries.end());
    for (const auto& e : entries) {
      std::string name = e.path().filename().string();
      std::string rel = rel_dir.empty() ? name : rel_dir + "/" + name;
      const bool is_link = e.is_symlink(ec);
      const bool is_dir = !is_link && e.is_directory(ec);
      if ((is_dir && name == ".git") || rules.ignored(rel, is_dir)) continue;
      fs::path target = e.path();
      if (is_link) {
        fs::path resolved = fs::weakly_canonical(e.path(), ec);
        if (ec || !inside(root, resolved) || !fs::is_regular_file(resolved, ec)) {
          out.warnings.push_back("skipped symlink " + rel +
                                 ": it points outside the code dir or not to a file");
          continue;
        }
        target = resolved;
      }
      if (is_dir) {
        out.dirs.push_back(rel);
        Status st = walk(e.path(), rel);
        if (!st.ok()) return st;
        continue;
      }
      struct stat sb {};
      if (::stat(target.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
      out.files.push_back({rel, target.string(), static_cast<uint64_t>(sb.st_size),
                           static_cast<uint32_t>(sb.st_mode & 07777),
                           static_cast<int64_t>(sb.st_mtime)});
      out.bytes += sb.st_size;
    }
    return Status::Ok();
  }
};

}  // namespace

Result<ScanResult> scan_code_dir(const CodeSpec& code) {
  std::error_code ec;
  Walker w{code, fs::canonical(code.dir, ec), {}, {}};
  if (ec) return make_error(ErrorCode::kInvalid, "code.dir: " + code.dir + ": " + ec.message());
  for (const auto& p : code.exclude) w.rules.add(p, "");
  Status st = w.walk(w.root, "");
  if (!st.ok()) return st.error();
  return std::move(w.out);
}

Result<SyncStats> sync_code(RemoteSession& session, const ScanResult& scan,
                            const std::string& remote_dir,
                            const std::function<void(const SyncStats&)>& progress) {
  SyncStats stats;
  stats.files_total = static_cast<int64_t>(scan.files.size());
  Status st = session.mkdirs(remote_dir, 0755);
  if (!st.ok()) return st.error();
  for (const auto& d : scan.dirs) {
    st = session.mkdirs(remote_dir + "/" + d, 0755);
    if (!st.ok()) return st.error();
  }
  for (const auto& f : scan.files) {
    std::string remote = remote_dir + "/" + f.rel;
    auto existing = session.stat(remote);
    if (existing.ok() && existing->size == f.size && existing->mtime == f.mtime) continue;
    st = session.upload(f.abs, remote, f.mode, f.mtime);
    if (!st.ok()) return st.error();
    stats.files_sent++;
    stats.bytes_sent += static_cast<int64_t>(f.size);
    if (progress) progress(stats);
  }
  return stats;
}

}  // namespace burst
