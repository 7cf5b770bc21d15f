// make_private_dirs (burst/config.h): burst's state and config directories, and what burst keeps
// in them, readable by their owner only, on every start.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <vector>

#include "burst/config.h"

namespace burst {
namespace {

std::string octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

Error cannot(const std::string& path, const struct stat& st, const std::string& why) {
  return make_error(ErrorCode::kInvalid,
                    "cannot make " + path + " private (mode " + octal(st.st_mode) + ", owner uid " +
                        std::to_string(st.st_uid) + "): " + why +
                        "; burst keeps job logs, reports and keys there, readable by you only: "
                        "fix its owner or mode, or point burst elsewhere (BURST_STATE_DIR, "
                        "BURST_CONFIG_DIR)");
}

// One entry: refused unless owned by this user; group and other bits dropped (a directory also
// gets u+rwx). Symlinks are left alone (their own mode means nothing; the target is not ours to
// judge). `follow`: stat through a link (the top directories may be links to another disk).
Status make_private(const std::string& path, bool follow, bool* is_dir) {
  struct stat st {};
  if ((follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) {
    if (errno == ENOENT) return Status::Ok();  // made later, private (or fixed next start)
    return make_error(ErrorCode::kInvalid, path + ": " + std::strerror(errno));
  }
  if (is_dir) *is_dir = S_ISDIR(st.st_mode);
  if (S_ISLNK(st.st_mode)) return Status::Ok();
  if (st.st_uid != ::geteuid())
    return cannot(path, st,
                  "it belongs to another user (you are uid " + std::to_string(::geteuid()) + ")");
  mode_t want = st.st_mode & 07700;
  if (S_ISDIR(st.st_mode)) want |= 0700;
  want &= ~static_cast<mode_t>(S_ISUID | S_ISGID | S_ISVTX);
  if ((st.st_mode & 07777) == want) return Status::Ok();
  if (::chmod(path.c_str(), want) != 0) return cannot(path, st, std::strerror(errno));
  return Status::Ok();
}

// `dir` itself, then every entry directly inside it.
Status make_private_tree(const std::string& dir, std::vector<std::string>* subdirs) {
  bool is_dir = false;
  if (Status st = make_private(dir, /*follow=*/true, &is_dir); !st.ok()) return st;
  if (!is_dir) return Status::Ok();
  DIR* d = ::opendir(dir.c_str());
  if (!d) return Status::Ok();  // absent, or made private above and still unreadable: nothing
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  for (const auto& name : names) {
    bool sub = false;
    if (Status st = make_private(dir + "/" + name, /*follow=*/false, &sub); !st.ok()) return st;
    if (sub && subdirs) subdirs->push_back(dir + "/" + name);
  }
  return Status::Ok();
}

}  // namespace

Status make_private_dirs(const Config& c) {
  namespace fs = std::filesystem;
  std::set<std::string> done;
  auto once = [&done](const std::string& dir) {
    if (dir.empty()) return false;
    std::error_code ec;
    fs::path p = fs::weakly_canonical(dir, ec);
    return done.insert(ec ? dir : p.string()).second;
  };
  // The state and config dirs and their direct entries (the database, the SSH key, config.yaml,
  // burstd.yaml, the token); inside the state dir's subdirectories (logs, reports) their files.
  for (const std::string& top : {c.state_dir, c.config_dir}) {
    if (!once(top)) continue;
    std::vector<std::string> subdirs;
    if (Status st = make_private_tree(top, top == c.state_dir ? &subdirs : nullptr); !st.ok())
      return st;
    for (const auto& sub : subdirs) {
      // The local cloud's root (its pods' homes): their own modes.
      if (fs::path(sub).lexically_normal() == fs::path(c.local.root).lexically_normal()) continue;
      if (!once(sub)) continue;
      if (Status st = make_private_tree(sub, nullptr); !st.ok()) return st;
    }
  }
  // Moved elsewhere by config.yaml or burstd.yaml: the same rule there.
  for (const std::string& dir :
       {c.reports_dir, c.logs_dir, fs::path(c.db_path).parent_path().string()})
    if (once(dir))
      if (Status st = make_private_tree(dir, nullptr); !st.ok()) return st;
  return Status::Ok();
}

}  // namespace burst
