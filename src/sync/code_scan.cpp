// scan_code_dir (code_sync.h): the local half of a sync.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "crypto/sha256.h"
#include "sync/code_sync.h"
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

std::string printable(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out;
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

  // An in-root link keeps its target (made relative when absolute); "" means skip it.
  std::string link_target(const fs::path& link, const std::string& rel) {
    std::error_code ec;
    fs::path target = fs::read_symlink(link, ec);
    if (ec) return "";
    fs::path lexical =
        (target.is_absolute() ? target : link.parent_path() / target).lexically_normal();
    fs::path resolved = fs::weakly_canonical(link, ec);
    if (ec || !inside(root, lexical) || !inside(root, resolved)) {
      out.warnings.push_back("skipped symlink " + rel + ": it points outside the code dir (" +
                             target.string() + ")");
      return "";
    }
    if (target.is_absolute()) target = lexical.lexically_relative(link.parent_path());
    return target.empty() ? "." : target.string();
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
      struct stat sb {};
      if (::lstat(e.path().c_str(), &sb) != 0) continue;  // vanished while we looked
      const bool is_link = S_ISLNK(sb.st_mode);
      const bool is_dir = S_ISDIR(sb.st_mode);
      if ((is_dir && name == ".git") || rules.ignored(rel, is_dir)) continue;
      if (rel.find('\n') != std::string::npos)
        return make_error(ErrorCode::kInvalid,
                          "code.dir: file name contains a newline, which burst cannot sync: \"" +
                              printable(rel) + "\" (rename it or add it to code.exclude)");
      if (is_dir) {
        out.dirs.push_back(rel);
        out.dir_modes.push_back(static_cast<uint32_t>(sb.st_mode & 07777));
        Status st = walk(e.path(), rel);
        if (!st.ok()) return st;
        continue;
      }
      if (is_link) {
        std::string target = link_target(e.path(), rel);
        if (target.empty()) continue;
        if (target.find('\n') != std::string::npos)
          return make_error(ErrorCode::kInvalid, "code.dir: symlink target contains a newline: \"" +
                                                     printable(rel) + "\"");
        out.files.push_back(
            {rel, e.path().string(), target.size(), 0777, 0, target, sha256_hex(target)});
        continue;
      }
      if (!S_ISREG(sb.st_mode)) continue;  // sockets, fifos, devices
      out.files.push_back({rel, e.path().string(), static_cast<uint64_t>(sb.st_size),
                           static_cast<uint32_t>(sb.st_mode & 07777),
                           static_cast<int64_t>(sb.st_mtime), "", "",
                           static_cast<uint64_t>(sb.st_dev), static_cast<uint64_t>(sb.st_ino)});
      out.bytes += static_cast<uint64_t>(sb.st_size);
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

}  // namespace burst
