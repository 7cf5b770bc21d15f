#include "sync/pull_dest.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "sync/pull_listing.h"

namespace burst {
namespace {

constexpr size_t kCacheMax = 64;  // open parent directories kept (a listing may name many)
constexpr const char* kPart = ".burst-part";

Error os_error(const std::string& what, const std::string& shown, int err) {
  return make_error(ErrorCode::kInternal,
                    what + " " + escape_entry(shown, 300) + ": " + std::strerror(err));
}

}  // namespace

Result<std::unique_ptr<PullDest>> PullDest::open(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorCode::kInternal, "create " + dir + ": " + ec.message());
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return os_error("open", dir, errno);
  return std::unique_ptr<PullDest>(new PullDest(dir, fd));
}

PullDest::~PullDest() {
  close_cache();
  ::close(root_);
}

void PullDest::close_cache() {
  for (auto& [dir, fd] : cache_) ::close(fd);
  cache_.clear();
}

Result<int> PullDest::parent(const std::string& rel, std::string* leaf) {
  const size_t slash = rel.rfind('/');
  *leaf = slash == std::string::npos ? rel : rel.substr(slash + 1);
  if (slash == std::string::npos) return root_;
  const std::string dir = rel.substr(0, slash);
  if (auto it = cache_.find(dir); it != cache_.end()) return it->second;
  if (cache_.size() >= kCacheMax) close_cache();
  int fd = root_;
  for (size_t at = 0; at <= dir.size();) {
    size_t end = dir.find('/', at);
    if (end == std::string::npos) end = dir.size();
    const std::string comp = dir.substr(at, end - at);
    if (::mkdirat(fd, comp.c_str(), 0755) != 0 && errno != EEXIST) {
      const int err = errno;
      if (fd != root_) ::close(fd);
      return os_error("create directory", shown(dir.substr(0, end)), err);
    }
    const int next = ::openat(fd, comp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int err = errno;
    if (fd != root_) ::close(fd);
    if (next < 0) {
      if (err == ELOOP || err == ENOTDIR)
        return make_error(ErrorCode::kInvalid,
                          "local " + escape_entry(shown(dir.substr(0, end)), 300) +
                              " is a symlink or not a directory; refused (a pulled file is "
                              "never written through a link)");
      return os_error("open directory", shown(dir.substr(0, end)), err);
    }
    fd = next;
    at = end + 1;
  }
  cache_[dir] = fd;
  return fd;
}

Result<bool> PullDest::stat_final(const std::string& rel, struct stat* sb) {
  std::string leaf;
  auto dir = parent(rel, &leaf);
  if (!dir.ok()) return dir.error();
  if (::fstatat(*dir, leaf.c_str(), sb, AT_SYMLINK_NOFOLLOW) == 0) return true;
  if (errno == ENOENT) return false;
  return os_error("stat", shown(rel), errno);
}

Result<int64_t> PullDest::part_size(const std::string& rel) {
  std::string leaf;
  auto dir = parent(rel, &leaf);
  if (!dir.ok()) return dir.error();
  struct stat sb {};
  if (::fstatat(*dir, (leaf + kPart).c_str(), &sb, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? int64_t{-1} : Result<int64_t>(os_error("stat", shown(rel), errno));
  if (!S_ISREG(sb.st_mode)) return int64_t{-1};
  return static_cast<int64_t>(sb.st_size);
}

Result<int> PullDest::open_part(const std::string& rel, bool write, bool keep) {
  std::string leaf;
  auto dir = parent(rel, &leaf);
  if (!dir.ok()) return dir.error();
  const int flags = write ? O_WRONLY | O_CREAT | (keep ? 0 : O_TRUNC) : O_RDONLY;
  const int fd = ::openat(*dir, (leaf + kPart).c_str(), flags | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return os_error("open", shown(rel) + kPart, errno);
  return fd;
}

void PullDest::remove_part(const std::string& rel) {
  std::string leaf;
  auto dir = parent(rel, &leaf);
  if (dir.ok()) ::unlinkat(*dir, (leaf + kPart).c_str(), 0);
}

Status PullDest::install(const std::string& rel, uint32_t mode, int64_t mtime) {
  std::string leaf;
  auto dir = parent(rel, &leaf);
  if (!dir.ok()) return dir.error();
  const std::string part = leaf + kPart;
  const int fd = ::openat(*dir, part.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return os_error("open", shown(rel) + kPart, errno);
  const struct timespec times[2] = {{static_cast<time_t>(mtime), 0},
                                    {static_cast<time_t>(mtime), 0}};
  const bool ok = ::fchmod(fd, install_mode(mode)) == 0 && ::futimens(fd, times) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) return os_error("set mode and mtime of", shown(rel) + kPart, err);
  if (::renameat(*dir, part.c_str(), *dir, leaf.c_str()) != 0)
    return os_error("rename to", shown(rel), errno);
  return Status::Ok();
}

}  // namespace burst
