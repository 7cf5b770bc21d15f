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

// code.add's `add` into w.out under add.to: a directory walked as the code dir is (its own
// links kept only inside it, .gitignore and .burstignore honoured, code.exclude not applied), a
// file (or the file a link names: the spec named it) as one file. The parents of `to` are added
// as directories first.
Status scan_add(Walker& w, const CodeAdd& add) {
  auto err = [&](const std::string& why) {
    return make_error(ErrorCode::kInvalid, "code.add " + add.to + ": " + add.from + ": " + why);
  };
  for (const LocalFile& f : w.out.files)
    if (f.rel == add.to || f.rel.rfind(add.to + "/", 0) == 0) return err("code.dir has it too");
  std::error_code ec;
  const fs::path from = fs::canonical(add.from, ec);
  if (ec) return err(ec.message());
  struct stat sb {};
  if (::stat(from.c_str(), &sb) != 0) return err("cannot read it");
  std::string parent;
  for (const auto& part : fs::path(add.to).parent_path()) {
    parent = parent.empty() ? part.string() : parent + "/" + part.string();
    if (std::find(w.out.dirs.begin(), w.out.dirs.end(), parent) != w.out.dirs.end()) continue;
    w.out.dirs.push_back(parent);
    w.out.dir_modes.push_back(0755);
  }
  if (S_ISDIR(sb.st_mode)) {
    Walker sub{w.code, from, {}, {}};
    w.out.dirs.push_back(add.to);
    w.out.dir_modes.push_back(static_cast<uint32_t>(sb.st_mode & 07777));
    Status st = sub.walk(from, add.to);
    if (!st.ok()) return st;
    for (auto& f : sub.out.files) w.out.files.push_back(std::move(f));
    w.out.dirs.insert(w.out.dirs.end(), sub.out.dirs.begin(), sub.out.dirs.end());
    w.out.dir_modes.insert(w.out.dir_modes.end(), sub.out.dir_modes.begin(),
                           sub.out.dir_modes.end());
    w.out.warnings.insert(w.out.warnings.end(), sub.out.warnings.begin(), sub.out.warnings.end());
    w.out.bytes += sub.out.bytes;
    return Status::Ok();
  }
  if (!S_ISREG(sb.st_mode)) return err("not a file or a directory");
  w.out.files.push_back({add.to, from.string(), static_cast<uint64_t>(sb.st_size),
                         static_cast<uint32_t>(sb.st_mode & 07777),
                         static_cast<int64_t>(sb.st_mtime), "", "",
                         static_cast<uint64_t>(sb.st_dev), static_cast<uint64_t>(sb.st_ino)});
  w.out.bytes += static_cast<uint64_t>(sb.st_size);
  return Status::Ok();
}

}  // namespace

Result<ScanResult> scan_code_dir(const CodeSpec& code) {
  std::error_code ec;
  Walker w{code, code.dir.empty() ? fs::path() : fs::canonical(code.dir, ec), {}, {}};
  if (ec) return make_error(ErrorCode::kInvalid, "code.dir: " + code.dir + ": " + ec.message());
  for (const auto& p : code.exclude) w.rules.add(p, "");
  Status st = code.dir.empty() ? Status::Ok() : w.walk(w.root, "");  // code.add alone
  if (!st.ok()) return st.error();
  for (const CodeAdd& add : code.add) {
    st = scan_add(w, add);
    if (!st.ok()) return st.error();
  }
  return std::move(w.out);
}

}  // namespace burst
