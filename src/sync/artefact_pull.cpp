#include "sync/artefact_pull.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "crypto/sha256.h"
#include "sync/tar_stream.h"
#include "util/shell.h"

namespace burst {
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kProgressEvery = 4ull << 20;

struct Match {
  std::string name;  // as the pod's shell printed it: relative to workdir, or absolute
  uint64_t size = 0;
  int64_t mtime = 0;
  uint32_t mode = 0;
  fs::path dest, tmp;
  std::string local_sha, remote_sha;
  std::unique_ptr<Sha256> sink_hash;  // a streamed file's hash, from byte 0
  uint64_t kept = 0;                  // bytes reused from an earlier attempt's partial file
  bool current = false;
  bool fetched = false;  // its bytes arrived (verification still to come)
  bool skipped = false;  // not part of this attempt
};

// "out/clips/*.wav" -> "out/clips": the part of the pattern before the first wildcard's dir.
std::string literal_dir(const std::string& pattern) {
  size_t wild = pattern.find_first_of("*?[");
  std::string head = wild == std::string::npos ? pattern : pattern.substr(0, wild);
  size_t slash = head.rfind('/');
  return slash == std::string::npos ? "" : head.substr(0, slash);
}

// The whole pull is one remote command, so it costs one command start on the pod (each start runs
// the login shell there). Part 1 resolves the patterns: a NUL-terminated record
// "<pattern index>\t<size>\t<mtime>\t<mode>\t<name>" per match, then "END\0". Part 2 reads one
// plan line per match from stdin ("s" skip, "t" in the tar batch, "b OFFSET COUNT" streamed from
// OFFSET) and answers with: each "b" file's COUNT bytes in order (dd; zero-padded or cut if the
// file changed size, so the framing holds), one `tar -c` stream of the "t" files, then
// "<sha256>  <name>\0" for every file sent. The pod hashes each file while it sends it (a second
// read, from its page cache), with openssl when it has it (about 3x faster than coreutils'
// sha256sum). A file that changes on the pod during the pull then fails verification.
std::string pull_command(const std::vector<std::string>& patterns, const std::string& workdir) {
  std::string cmd = "cd " + shell_quote(workdir) +
                    " || exit 3; D=$(mktemp -d) || exit 3; trap 'rm -rf \"$D\"' EXIT; "
                    "L=$D/l T=$D/t H=$D/h E=$D/e; : > \"$T\"; : > \"$H\"; export T H E; ";
  for (size_t i = 0; i < patterns.size(); ++i) {
    cmd += "set --; for f in " + shell_glob(patterns[i]) +
           "; do [ -f \"$f\" ] && set -- \"$@\" \"$f\"; done; if [ $# -gt 0 ]; then stat -L "
           "--printf='" +
           std::to_string(i) +
           "\\t%s\\t%Y\\t%a\\t%n\\0' -- \"$@\"; "
           "printf '%s\\0' \"$@\" >> \"$L\"; fi; ";
  }
  // Inside sh -c '...': no single quotes.
  const std::string pass =
      "if command -v openssl >/dev/null 2>&1; then h1() { openssl dgst -sha256 -r \"$1\"; }; "
      "else h1() { sha256sum -- \"$1\"; }; fi; "
      "for f; do read -r k o n || k=s; case $f in /*) g=$f;; *) g=./$f;; esac; case $k in "
      "t) printf \"%s\\0\" \"$f\" >> \"$T\";; "
      "b) ( h=$(h1 \"$g\" 2>/dev/null) && h=${h#\\\\} && printf \"%s  %s\\0\" \"${h%% *}\" \"$f\" "
      ">> \"$H\" ) & "
      "LC_ALL=C dd if=\"$g\" bs=1M iflag=skip_bytes,count_bytes skip=\"$o\" count=\"$n\" "
      "2>\"$E\"; got=0; while read -r a b; do got=$a; done < \"$E\"; "
      "case $got in \"\"|*[!0-9]*) got=0; cat \"$E\" >&2;; esac; "
      "if [ \"$got\" -lt \"$n\" ]; then head -c $((n - got)) /dev/zero; fi;; "
      "esac; done; wait";
  return cmd + "printf 'END\\0'; if [ -s \"$L\" ]; then xargs -0 -a \"$L\" sh -c '" + pass +
         "' sh; fi; if [ -s \"$T\" ]; then xargs -0 -a \"$T\" sha256sum -z -- >> \"$H\" & "
         "tar -chPf - --null -T \"$T\"; wait; fi; cat \"$H\"";
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
    return write_raw(d, n, p);
  }
  Status write_raw(const char* d, size_t n, const fs::path& p) {
    while (n > 0) {
      ssize_t w = ::write(fd, d, n);
      if (w < 0) return os_error("write", p);
      d += w;
      n -= static_cast<size_t>(w);
    }
    return Status::Ok();
  }
};

// Hashes and writes a streamed file on a second thread, so that the SHA-256 and the disk writes
// run beside the reads from the SSH channel instead of between them. Bytes go over in 1 MiB
// blocks; at most kBlocks are in memory. They are written 128 KiB at a time: 4x fewer write()
// calls than one per SSH packet, while 1 MiB writes cost several times the kernel time on the
// build VM's ext4 (docs/sync.md: dd of 2 GiB, 0.3-0.45 s of system time against 1.7-3.0 s).
class BackgroundSink {
 public:
  static constexpr size_t kBlock = 1 << 20;
  static constexpr size_t kBlocks = 3;
  static constexpr size_t kWrite = 128 << 10;

  BackgroundSink(int fd, Sha256& hash, const fs::path& path) : fd_(fd), hash_(hash), path_(path) {
    for (size_t i = 0; i < kBlocks; ++i) free_.push_back(std::vector<char>(kBlock));
    worker_ = std::thread([this] { run(); });
  }
  ~BackgroundSink() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  // An empty block to fill; waits while every block is in the worker's hands.
  std::vector<char> take() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !free_.empty(); });
    std::vector<char> b = std::move(free_.front());
    free_.pop_front();
    return b;
  }
  // Hands over the first n bytes of a block from take(); the first write error so far, if any.
  Status give(std::vector<char> block, size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    full_.push_back({std::move(block), n});
    cv_.notify_all();
    return error_;
  }
  // Waits until every block given is hashed and written.
  Status finish() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return full_.empty() && !busy_; });
    return error_;
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return stop_ || !full_.empty(); });
      if (full_.empty()) return;
      auto [block, n] = std::move(full_.front());
      full_.pop_front();
      busy_ = true;
      const bool ok = error_.ok();
      lock.unlock();
      Status st;
      if (ok) {
        hash_.update(block.data(), n);
        LocalSink out;
        out.fd = fd_;
        for (size_t at = 0; at < n && st.ok(); at += kWrite)
          st = out.write_raw(block.data() + at, std::min(kWrite, n - at), path_);
      }
      lock.lock();
      if (!st.ok() && error_.ok()) error_ = st;
      free_.push_back(std::move(block));
      busy_ = false;
      cv_.notify_all();
    }
  }

  const int fd_;
  Sha256& hash_;
  const fs::path path_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<char>> free_;
  std::deque<std::pair<std::vector<char>, size_t>> full_;
  bool busy_ = false;
  bool stop_ = false;
  Status error_;
  std::thread worker_;
};

// The command's stdout, with bytes handed back (what a reader took past its part) read first.
class Source {
 public:
  explicit Source(RemoteStream& in) : in_(in) {}
  void unread(std::string bytes) {
    pending_ = std::move(bytes) + pending_.substr(pos_);
    pos_ = 0;
  }
  Result<size_t> read(char* d, size_t n) {
    if (pos_ < pending_.size()) {
      size_t k = std::min(n, pending_.size() - pos_);
      std::memcpy(d, pending_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return in_.read(d, n);
  }

 private:
  RemoteStream& in_;
  std::string pending_;
  size_t pos_ = 0;
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

  // Resolves the patterns on the pod and fetches what is not home. `only` (the second attempt)
  // limits the transfer to those names, from zero; everything else is skipped and not counted.
  // Fills `matches`; each fetched one has local_sha and, when the pod could hash it, remote_sha.
  Status attempt(const std::vector<std::string>& patterns, const std::vector<Artefact>& artefacts,
                 const std::string& workdir, const std::set<std::string>* only,
                 std::vector<Match>& matches, std::string* pod_err) {
    auto stream = s_.open_stream(pull_command(patterns, workdir));
    if (!stream.ok()) return with_context(stream.error(), "pull: resolve artefacts");
    r.round_trips++;
    RemoteStream& in = **stream;
    Source src(in);
    std::string listing;
    {
      std::vector<char> buf(64 * 1024);
      const std::string end_mark = std::string("END") + '\0';
      size_t scan = 0;  // start of the next record
      while (true) {
        auto n = src.read(buf.data(), buf.size());
        if (!n.ok()) return with_context(n.error(), "pull: resolve artefacts");
        if (*n == 0) {
          std::string err;
          auto rc = in.finish(&err);
          while (!err.empty() && err.back() == '\n') err.pop_back();
          return make_error(ErrorCode::kRemoteFailed,
                            "pull: resolving artefacts on the pod failed" +
                                (rc.ok() ? " (exit " + std::to_string(*rc) + ")" : "") +
                                (err.empty() ? "" : ": " + err));
        }
        listing.append(buf.data(), *n);
        bool done = false;
        for (size_t end; (end = listing.find('\0', scan)) != std::string::npos; scan = end + 1) {
          if (listing.compare(scan, end - scan, "END") == 0) {
            src.unread(listing.substr(end + 1));
            listing.resize(scan);
            done = true;
            break;
          }
        }
        if (done) break;
      }
    }
    std::vector<bool> matched(patterns.size(), false);
    for (size_t pos = 0; pos < listing.size();) {
      size_t end = listing.find('\0', pos);
      if (end == std::string::npos) break;
      std::string rec = listing.substr(pos, end - pos);
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
    if (!only) {
      for (size_t i = 0; i < patterns.size(); ++i)
        if (!matched[i]) r.unmatched.push_back(artefacts[i].remote);
    }

    // The plan, one line per match in the listing's order.
    std::string plan;
    std::vector<Match*> big, small;
    for (Match& m : matches) {
      if (only) {
        if (!only->count(m.name)) {
          m.skipped = true;
          plan += "s\n";
          continue;
        }
        std::error_code ec;
        fs::remove(m.tmp, ec);  // the partial file came from an older version: start over
      } else {
        r.files_total++;
        r.bytes_total += static_cast<int64_t>(m.size);
      }
      std::error_code ec;
      fs::create_directories(m.dest.parent_path(), ec);
      struct stat sb {};
      if (!only && ::stat(m.dest.c_str(), &sb) == 0 &&
          static_cast<uint64_t>(sb.st_size) == m.size && sb.st_mtime == m.mtime) {
        m.current = true;  // installed (and verified) by an earlier attempt
        r.files_current++;
        plan += "s\n";
        continue;
      }
      if (m.size >= kBatchMax) {
        Status st = resume_point(m);
        if (!st.ok()) return st;
        plan += "b " + std::to_string(m.kept) + " " + std::to_string(m.size - m.kept) + "\n";
        big.push_back(&m);
      } else {
        plan += "t\n";
        small.push_back(&m);
      }
    }
    tick();
    Status st = in.write(plan.data(), plan.size());
    if (st.ok()) st = in.close_stdin();
    if (!st.ok()) return with_context(st.error(), "pull");
    if (big.empty() && small.empty()) {
      std::string ignored;
      (void)in.finish(&ignored);
      return Status::Ok();
    }
    for (Match* m : big) {
      st = fetch_exact(src, *m);
      if (!st.ok()) return st;
    }
    if (!small.empty()) {
      st = fetch_tar(src, small);
      if (!st.ok()) return st;
    }
    // The pod's hashes: "<sha256>  <name>\0" each, after any zero padding that ends the archive.
    std::string out;
    std::vector<char> buf(64 * 1024);
    while (true) {
      auto n = src.read(buf.data(), buf.size());
      if (!n.ok()) return with_context(n.error(), "pull: hash on the pod");
      if (*n == 0) break;
      out.append(buf.data(), *n);
    }
    auto rc = in.finish(pod_err);
    if (!rc.ok()) return with_context(rc.error(), "pull");
    std::map<std::string, std::string> remote_sha;
    size_t pos = out.find_first_not_of('\0');
    while (pos != std::string::npos && pos < out.size()) {
      size_t end = out.find('\0', pos);
      if (end == std::string::npos) break;
      if (end - pos > 66) remote_sha[out.substr(pos + 66, end - pos - 66)] = out.substr(pos, 64);
      pos = end + 1;
    }
    for (Match& m : matches) {
      auto h = remote_sha.find(m.name);
      if (h != remote_sha.end()) m.remote_sha = h->second;
    }
    return Status::Ok();
  }

 private:
  // Where a partial file left by an earlier attempt lets this one start; hashes that prefix.
  Status resume_point(Match& m) {
    std::error_code ec;
    uint64_t have = fs::file_size(m.tmp, ec);
    if (ec || have > m.size) have = 0;
    m.sink_hash = std::make_unique<Sha256>();
    if (have > 0) {
      int fd = ::open(m.tmp.c_str(), O_RDONLY | O_CLOEXEC);
      std::vector<char> buf(256 * 1024);
      uint64_t left = have;
      while (fd >= 0 && left > 0) {
        ssize_t n = ::read(fd, buf.data(), std::min<uint64_t>(left, buf.size()));
        if (n <= 0) break;
        m.sink_hash->update(buf.data(), static_cast<size_t>(n));
        left -= static_cast<uint64_t>(n);
      }
      if (fd >= 0) ::close(fd);
      if (fd < 0 || left > 0) {
        have = 0;
        m.sink_hash = std::make_unique<Sha256>();
      }
    }
    m.kept = have;
    return Status::Ok();
  }

  // COUNT bytes of a "b" file into its partial file, from where the last attempt stopped.
  Status fetch_exact(Source& src, Match& m) {
    int fd = ::open(m.tmp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (m.kept ? 0 : O_TRUNC), 0600);
    if (fd < 0) return os_error("open", m.tmp);
    if (m.kept > 0 && (::ftruncate(fd, static_cast<off_t>(m.kept)) != 0 ||
                       ::lseek(fd, static_cast<off_t>(m.kept), SEEK_SET) < 0)) {
      ::close(fd);
      return os_error("seek", m.tmp);
    }
    r.bytes_resumed += static_cast<int64_t>(m.kept);
    uint64_t left = m.size - m.kept;
    Status st;
    {
      BackgroundSink sink(fd, *m.sink_hash, m.tmp);
      while (left > 0 && st.ok()) {
        std::vector<char> block = sink.take();
        size_t filled = 0;
        const size_t want = static_cast<size_t>(std::min<uint64_t>(left, block.size()));
        while (filled < want) {
          auto n = src.read(block.data() + filled, want - filled);
          if (!n.ok()) {
            st = with_context(n.error(), "artefact " + m.name);
            break;
          }
          if (*n == 0) {
            st = make_error(ErrorCode::kConnection,
                            "pull: artefact " + m.name + ": the stream ended " +
                                std::to_string(left - filled) + " bytes early");
            break;
          }
          filled += *n;
          count(*n);
        }
        // Bytes that arrived before a failure still go to the partial file: a resume starts
        // after them.
        Status written = sink.give(std::move(block), filled);
        if (st.ok()) st = written;
        left -= filled;
      }
      Status written = sink.finish();
      if (st.ok()) st = written;
    }
    ::close(fd);
    if (!st.ok()) return st;
    m.local_sha = m.sink_hash->hex_digest();
    m.fetched = true;
    return Status::Ok();
  }

  // Every small file, from one `tar -c` stream.
  Status fetch_tar(Source& src, std::vector<Match*>& batch) {
    std::map<std::string, Match*> by_name;
    for (Match* m : batch) by_name[m->name] = m;
    TarReader tar([&](char* d, size_t n) { return src.read(d, n); });
    std::vector<char> buf(256 * 1024);
    Status st;
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
      m.fetched = true;
    }
    src.unread(tar.take_buffered());
    return st.ok() ? Status::Ok() : with_context(st.error(), "pull");
  }

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

  // A second attempt refetches from zero what failed after resuming from an older partial file.
  std::set<std::string> retry;
  for (int round = 0; round < 2; ++round) {
    if (round == 1 && retry.empty()) break;
    std::vector<Match> matches;
    std::string pod_err;
    Status st =
        p.attempt(patterns, artefacts, workdir, round ? &retry : nullptr, matches, &pod_err);
    if (!st.ok()) return st.error();
    while (!pod_err.empty() && pod_err.back() == '\n') pod_err.pop_back();
    std::set<std::string> again;
    for (Match& m : matches) {
      if (m.skipped) continue;
      if (!m.current) {
        std::error_code ec;
        const bool verified = !m.remote_sha.empty() && m.fetched &&
                              fs::file_size(m.tmp, ec) == m.size && !ec &&
                              m.local_sha == m.remote_sha;
        if (!verified && m.kept > 0 && round == 0) {
          again.insert(m.name);  // the partial file came from an older version of the artefact
          r.bytes_resumed -= static_cast<int64_t>(m.kept);
          continue;
        }
        if (!verified) {
          fs::remove(m.tmp, ec);
          std::string why;
          if (!m.fetched)
            why = "not received from the pod" + (pod_err.empty() ? "" : " (" + pod_err + ")");
          else if (m.remote_sha.empty())
            why = "the pod could not hash it (was it removed during the pull?)";
          else
            why = "sha256 mismatch (pod " + m.remote_sha.substr(0, 12) + ", received " +
                  m.local_sha.substr(0, 12) +
                  "): it changed on the pod during the pull; not installed";
          r.failed.push_back("artefact " + m.name + ": " + why);
          continue;
        }
        st = install(m);
        if (!st.ok()) return st.error();
      }
      r.files++;
      r.local_paths.push_back(m.dest.string());
    }
    retry = std::move(again);
  }
  p.tick();
  return r;
}

}  // namespace burst
