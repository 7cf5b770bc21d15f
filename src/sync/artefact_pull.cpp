#include "sync/artefact_pull.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "crypto/sha256.h"
#include "sync/tar_stream.h"
#include "util/shell.h"

namespace burst {
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kProgressEvery = 4ull << 20;

struct Match {
  std::string name;    // as the pod's shell printed it: relative to workdir, or absolute
  std::string remote;  // absolute, for SFTP
  uint64_t size = 0;
  int64_t mtime = 0;
  uint32_t mode = 0;
  fs::path dest, tmp;
  std::string local_sha;
  uint64_t kept = 0;  // bytes reused from an earlier attempt's partial file
  bool current = false;
};

// "out/clips/*.wav" -> "out/clips": the part of the pattern before the first wildcard's dir.
std::string literal_dir(const std::string& pattern) {
  size_t wild = pattern.find_first_of("*?[");
  std::string head = wild == std::string::npos ? pattern : pattern.substr(0, wild);
  size_t slash = head.rfind('/');
  return slash == std::string::npos ? "" : head.substr(0, slash);
}

// One exec resolves the patterns and then hashes what matched: a NUL-terminated record
// "<pattern index>\t<size>\t<mtime>\t<mode>\t<name>" per match, "END\0", then `sha256sum -z`'s
// records. Hashing runs while the transfer goes on in other channels; each shell start costs a
// login shell's rc files on the pod, so fewer execs is faster (bench/README.md).
std::string resolve_command(const std::vector<std::string>& patterns, const std::string& workdir) {
  std::string cmd = "cd " + shell_quote(workdir) + " || exit 3; L=$(mktemp) || exit 3; ";
  for (size_t i = 0; i < patterns.size(); ++i) {
    cmd += "set --; for f in " + shell_glob(patterns[i]) +
           "; do [ -f \"$f\" ] && set -- \"$@\" \"$f\"; done; if [ $# -gt 0 ]; then stat -L "
           "--printf='" +
           std::to_string(i) +
           "\\t%s\\t%Y\\t%a\\t%n\\0' -- \"$@\"; "
           "printf '%s\\0' \"$@\" >> \"$L\"; fi; ";
  }
  return cmd + "printf 'END\\0'; xargs -0 -r sha256sum -z -- < \"$L\"; rm -f \"$L\"; true";
}

std::string tar_command(const std::string& workdir) {
  return "cd " + shell_quote(workdir) + " && tar -chPf - --null -T -";
}

Status os_error(const std::string& what, const fs::path& p) {
  return make_error(ErrorCode::kInternal, what + " " + p.string() + ": " + std::strerror(errno));
}

// Writes bytes to a local file descriptor, hashing them.
struct LocalSink {
  int fd = -1;
  Sha256 hash;
  Status write(const char* d, size_t n, const fs::path& p) {
    hash.update(d, n);
    while (n > 0) {
      ssize_t w = ::write(fd, d, n);
      if (w < 0) return os_error("write", p);
      d += w;
      n -= static_cast<size_t>(w);
    }
    return Status::Ok();
  }
};

class Puller {
 public:
  Puller(RemoteSession& s, const std::function<void(const PullResult&)>& progress)
      : s_(s), progress_(progress) {}

  PullResult r;

  void count(uint64_t n) {
    r.bytes += static_cast<int64_t>(n);
    since_ += n;
    if (since_ >= kProgressEvery) tick();
  }
  void tick() {
    since_ = 0;
    if (progress_) progress_(r);
  }

  // Over SFTP from the partial file's end; `fresh` discards any partial file first.
  Status fetch_sftp(Match& m, bool fresh) {
    std::error_code ec;
    uint64_t have = fresh ? 0 : fs::file_size(m.tmp, ec);
    if (ec || have > m.size) have = 0;
    LocalSink out;
    if (have > 0) {
      auto prefix = sha256_file(m.tmp.string(), static_cast<long long>(have));
      if (!prefix.ok()) have = 0;
      int fd = ::open(m.tmp.c_str(), O_RDONLY | O_CLOEXEC);
      std::vector<char> buf(256 * 1024);
      for (uint64_t left = have; fd >= 0 && left > 0;) {
        ssize_t n = ::read(fd, buf.data(), std::min<uint64_t>(left, buf.size()));
        if (n <= 0) break;
        out.hash.update(buf.data(), static_cast<size_t>(n));
        left -= static_cast<uint64_t>(n);
      }
      if (fd >= 0) ::close(fd);
    }
    out.fd = ::open(m.tmp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (have ? 0 : O_TRUNC), 0600);
    if (out.fd < 0) return os_error("open", m.tmp);
    if (have > 0 && (::ftruncate(out.fd, static_cast<off_t>(have)) != 0 ||
                     ::lseek(out.fd, static_cast<off_t>(have), SEEK_SET) < 0)) {
      ::close(out.fd);
      return os_error("seek", m.tmp);
    }
    m.kept = have;
    r.bytes_resumed += static_cast<int64_t>(have);
    Status st;
    Status rs = s_.read_file(m.remote, have, [&](const char* d, size_t n) {
      st = out.write(d, n, m.tmp);
      if (st.ok()) count(n);
      return st.ok();
    });
    ::close(out.fd);
    r.round_trips++;
    if (!st.ok()) return st;
    if (!rs.ok()) return with_context(rs.error(), "artefact " + m.name);
    m.local_sha = out.hash.hex_digest();
    return Status::Ok();
  }

  // Every small file in one `tar -c` stream.
  Status fetch_tar(std::vector<Match*>& batch, const std::string& workdir,
                   Result<std::unique_ptr<RemoteStream>> stream) {
    if (batch.empty()) {
      if (stream.ok()) {
        (void)(*stream)->close_stdin();
        std::string ignored;
        (void)(*stream)->finish(&ignored);
      }
      return Status::Ok();
    }
    std::map<std::string, Match*> by_name;
    std::string list;
    for (Match* m : batch) {
      by_name[m->name] = m;
      list += m->name + '\0';
    }
    if (!stream.ok()) stream = s_.open_stream(tar_command(workdir));
    if (!stream.ok()) return with_context(stream.error(), "pull");
    r.round_trips++;
    RemoteStream& in = **stream;
    Status st = in.write(list.data(), list.size());
    if (st.ok()) st = in.close_stdin();
    TarReader tar([&](char* d, size_t n) { return in.read(d, n); });
    std::vector<char> buf(256 * 1024);
    while (st.ok()) {
      auto e = tar.next();
      if (!e.ok()) {
        st = e.error();
        break;
      }
      if (!*e) break;
      auto it = by_name.find((*e)->name);
      if (it == by_name.end() || (*e)->type != '0') continue;
      Match& m = *it->second;
      LocalSink out;
      out.fd = ::open(m.tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (out.fd < 0) {
        st = os_error("open", m.tmp);
        break;
      }
      while (st.ok()) {
        auto n = tar.read(buf.data(), buf.size());
        if (!n.ok()) st = n.error();
        if (!n.ok() || *n == 0) break;
        st = out.write(buf.data(), *n, m.tmp);
        count(*n);
      }
      ::close(out.fd);
      m.local_sha = out.hash.hex_digest();
    }
    std::string err;
    auto rc = in.finish(&err);
    if (!st.ok()) return with_context(st.error(), "pull");
    if (!rc.ok()) return with_context(rc.error(), "pull");
    if (*rc != 0) {
      while (!err.empty() && err.back() == '\n') err.pop_back();
      return make_error(ErrorCode::kRemoteFailed,
                        "pull: tar on the pod exited " + std::to_string(*rc) + ": " + err);
    }
    return Status::Ok();
  }

 private:
  RemoteSession& s_;
  const std::function<void(const PullResult&)>& progress_;
  uint64_t since_ = 0;
};

Status install(const Match& m) {
  int fd = ::open(m.tmp.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return os_error("open", m.tmp);
  ::fchmod(fd, m.mode & 07777);
  struct timeval times[2] = {{static_cast<time_t>(m.mtime), 0}, {static_cast<time_t>(m.mtime), 0}};
  ::futimes(fd, times);
  ::close(fd);
  if (::rename(m.tmp.c_str(), m.dest.c_str()) != 0) return os_error("rename to", m.dest);
  return Status::Ok();
}

}  // namespace

Result<PullResult> pull_artefacts(RemoteSession& session, const std::vector<Artefact>& artefacts,
                                  const std::string& workdir, const std::string& volume,
                                  const std::function<void(const PullResult&)>& progress) {
  Puller p(session, progress);
  PullResult& r = p.r;
  std::vector<std::string> patterns;
  for (const Artefact& a : artefacts) {
    std::string pattern = a.remote;
    const std::string vol_prefix = "$BURST_VOLUME/";
    if (pattern.rfind(vol_prefix, 0) == 0)
      pattern = volume + "/" + pattern.substr(vol_prefix.size());
    patterns.push_back(pattern);
  }
  if (patterns.empty()) return r;
  auto resolver = session.open_stream(resolve_command(patterns, workdir));
  if (!resolver.ok()) return with_context(resolver.error(), "pull: resolve artefacts");
  r.round_trips++;
  RemoteStream& hasher = **resolver;
  (void)hasher.close_stdin();
  // Start the tar channel and the SFTP subsystem now, so that their shells start on the pod
  // while the patterns resolve (each start runs the login shell's rc files there).
  auto early_tar = session.open_stream(tar_command(workdir));
  (void)session.stat(workdir);
  // Read up to the END record; what follows (the hashes) is read after the transfer.
  std::string listing, rest;
  {
    std::vector<char> buf(64 * 1024);
    const std::string end_mark = std::string("END") + '\0';
    while (true) {
      auto n = hasher.read(buf.data(), buf.size());
      if (!n.ok()) return with_context(n.error(), "pull: resolve artefacts");
      if (*n == 0) break;
      listing.append(buf.data(), *n);
      size_t at = listing.find(end_mark);
      while (at != std::string::npos && at > 0 && listing[at - 1] != '\0')
        at = listing.find(end_mark, at + 1);
      if (at != std::string::npos) {
        rest = listing.substr(at + end_mark.size());
        listing.resize(at);
        break;
      }
    }
  }
  const std::string* listing_ptr = &listing;
  std::vector<Match> matches;
  std::vector<bool> matched(patterns.size(), false);
  for (size_t pos = 0; pos < listing_ptr->size();) {
    size_t end = listing_ptr->find('\0', pos);
    if (end == std::string::npos) break;
    std::string rec = listing_ptr->substr(pos, end - pos);
    pos = end + 1;
    size_t t[4];
    t[0] = rec.find('\t');
    for (int k = 1; k < 4; ++k)
      t[k] = t[k - 1] == std::string::npos ? t[k - 1] : rec.find('\t', t[k - 1] + 1);
    if (t[3] == std::string::npos) continue;
    const size_t idx = std::stoul(rec.substr(0, t[0]));
    if (idx >= patterns.size()) continue;
    Match m;
    m.size = std::stoull(rec.substr(t[0] + 1, t[1] - t[0] - 1));
    m.mtime = std::stoll(rec.substr(t[1] + 1, t[2] - t[1] - 1));
    m.mode = static_cast<uint32_t>(std::stoul(rec.substr(t[2] + 1, t[3] - t[2] - 1), nullptr, 8));
    m.name = rec.substr(t[3] + 1);
    m.remote = m.name[0] == '/' ? m.name : workdir + "/" + m.name;
    const std::string base = literal_dir(patterns[idx]);
    std::string rel =
        base.empty() ? m.name : m.name.substr(std::min(m.name.size(), base.size() + 1));
    if (rel.empty() || rel.find("..") != std::string::npos)
      rel = fs::path(m.name).filename().string();
    m.dest = fs::path(artefacts[idx].local) / rel;
    m.tmp = m.dest;
    m.tmp += ".burst-part";
    matched[idx] = true;
    matches.push_back(std::move(m));
  }
  for (size_t i = 0; i < patterns.size(); ++i)
    if (!matched[i]) r.unmatched.push_back(artefacts[i].remote);

  // Hash on the pod while the bytes travel; read the answers at the end.
  std::vector<Match*> big, small;
  for (Match& m : matches) {
    r.files_total++;
    r.bytes_total += static_cast<int64_t>(m.size);
    std::error_code ec;
    fs::create_directories(m.dest.parent_path(), ec);
    struct stat sb {};
    if (::stat(m.dest.c_str(), &sb) == 0 && static_cast<uint64_t>(sb.st_size) == m.size &&
        sb.st_mtime == m.mtime) {
      m.current = true;  // installed (and verified) by an earlier attempt
      r.files_current++;
      continue;
    }
    (m.size >= kBatchMax ? big : small).push_back(&m);
  }
  p.tick();
  Status st = p.fetch_tar(small, workdir, std::move(early_tar));
  for (Match* m : big) {
    if (!st.ok()) break;
    st = p.fetch_sftp(*m, false);
  }
  if (!st.ok()) return st.error();

  std::map<std::string, std::string> remote_sha;
  if (big.empty() && small.empty()) {
    p.tick();  // all home already: no need to wait for the pod's hashes
    for (Match& m : matches) {
      r.files++;
      r.local_paths.push_back(m.dest.string());
    }
    return r;
  }
  std::string out = rest;
  std::vector<char> buf(64 * 1024);
  while (true) {
    auto n = hasher.read(buf.data(), buf.size());
    if (!n.ok()) return with_context(n.error(), "pull: hash on the pod");
    if (*n == 0) break;
    out.append(buf.data(), *n);
  }
  std::string err;
  auto rc = hasher.finish(&err);
  if (!rc.ok()) return with_context(rc.error(), "pull: hash on the pod");
  for (size_t pos = 0; pos < out.size();) {
    size_t end = out.find('\0', pos);
    if (end == std::string::npos) break;
    if (end - pos > 66) remote_sha[out.substr(pos + 66, end - pos - 66)] = out.substr(pos, 64);
    pos = end + 1;
  }

  for (Match& m : matches) {
    if (!m.current) {
      auto want = remote_sha.find(m.name);
      std::error_code ec;
      auto verified = [&] {
        return want != remote_sha.end() && fs::file_size(m.tmp, ec) == m.size && !ec &&
               m.local_sha == want->second;
      };
      if (!verified() && m.kept > 0) {
        // The partial file came from an older version of the artefact: start it over once.
        st = p.fetch_sftp(m, true);
        if (!st.ok()) return st.error();
      }
      if (!verified()) {
        fs::remove(m.tmp, ec);
        r.failed.push_back(
            "artefact " + m.name + ": " +
            (want == remote_sha.end()
                 ? std::string("the pod could not hash it (was it removed during the pull?)")
                 : "sha256 mismatch (pod " + want->second.substr(0, 12) + ", received " +
                       m.local_sha.substr(0, 12) +
                       "): it changed on the pod during the pull; not installed"));
        continue;
      }
      st = install(m);
      if (!st.ok()) return st.error();
    }
    r.files++;
    r.local_paths.push_back(m.dest.string());
  }
  p.tick();
  return r;
}

}  // namespace burst
