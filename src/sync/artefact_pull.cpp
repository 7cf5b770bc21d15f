#include "sync/artefact_pull.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "crypto/sha256.h"
#include "sync/pull_command.h"
#include "sync/pull_dest.h"
#include "sync/pull_sink.h"
#include "sync/tar_stream.h"
#include "util/shell.h"

namespace burst {

namespace {

constexpr uint64_t kProgressEvery = 4ull << 20;

// One file the pod listed. Its local home is `rel` under `dest`; nothing else names a local path.
struct Match {
  ListedFile f;     // the pod's record: name as the pod printed it, size, mtime, mode
  std::string rel;  // local_relative(pattern, f.name)
  PullDest* dest = nullptr;
  std::string local_sha, remote_sha;
  std::unique_ptr<Sha256> sink_hash;  // a streamed file's hash, from byte 0
  uint64_t kept = 0;                  // bytes reused from an earlier attempt's partial file
  bool current = false;
  bool fetched = false;    // its bytes arrived (verification still to come)
  bool skipped = false;    // not part of this attempt (or matched by an earlier pattern too)
  bool streamed = false;   // a "b" file (resumable), not in the tar batch
  bool part_made = false;  // this attempt opened its .burst-part for writing
};

Error pod_sent(const std::string& what, const std::string& entry) {
  return make_error(ErrorCode::kInvalid, "pod sent " + what + " \"" + escape_entry(entry) + "\"");
}

std::string quoted(const std::string& name) { return "\"" + escape_entry(name) + "\""; }

class Puller {
 public:
  Puller(RemoteSession& s, const std::vector<Artefact>& artefacts, const PullLimits& limits,
         const std::function<void(const PullResult&)>& progress)
      : s_(s),
        artefacts_(artefacts),
        limits_(limits),
        progress_(progress),
        dests_(artefacts.size()) {}

  PullResult r;
  int64_t modified_since = 0;  // pod clock, seconds; files older are an earlier run's

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
  // Every entry of the listing is checked before any byte is transferred.
  Status attempt(const std::vector<std::string>& patterns, const std::string& workdir,
                 const std::set<std::string>* only, std::vector<Match>& matches,
                 std::string* pod_err) {
    auto stream = s_.open_stream(pull_command(patterns, workdir));
    if (!stream.ok()) return with_context(stream.error(), "pull: resolve artefacts");
    r.round_trips++;
    RemoteStream& in = **stream;
    PullSource src(in);
    ListingParser listing(limits_, patterns.size());
    std::vector<char> buf(64 * 1024);
    while (!listing.done()) {
      auto n = src.read(buf.data(), buf.size());
      if (!n.ok()) return with_context(n.error(), "pull: resolve artefacts");
      if (*n == 0) {
        std::string err;
        auto rc = in.finish(&err);
        while (!err.empty() && err.back() == '\n') err.pop_back();
        return make_error(ErrorCode::kRemoteFailed,
                          "pull: resolving artefacts on the pod failed" +
                              (rc.ok() ? " (exit " + std::to_string(*rc) + ")" : "") +
                              (err.empty() ? "" : ": " + escape_entry(err, 2000)));
      }
      auto used = listing.feed(buf.data(), *n);
      if (!used.ok()) return used.error();
      if (*used < *n) src.unread(std::string(buf.data() + *used, *n - *used));
    }
    Status st = check_listing(patterns, listing.files(), only, matches);
    if (!st.ok()) return st;

    // The plan, one line per listed record in the listing's order.
    std::string plan;
    std::vector<Match*> big, small;
    std::map<std::string, Match*> sent;  // pod name -> match, for the files asked for
    for (Match& m : matches) {
      if (!m.skipped && only && !only->count(m.f.name)) m.skipped = true;
      if (m.skipped) {
        plan += "s\n";
        continue;
      }
      auto dest = dest_for(m.f.pattern);
      if (!dest.ok()) return dest.error();
      m.dest = *dest;
      if (only) {
        m.dest->remove_part(m.rel);  // the partial file came from an older version: start over
      } else {
        r.files_total++;
        r.bytes_total += static_cast<int64_t>(m.f.size);
        struct stat sb {};
        auto exists = m.dest->stat_final(m.rel, &sb);
        if (!exists.ok()) return with_context(exists.error(), "pull: artefact " + quoted(m.f.name));
        if (*exists && S_ISREG(sb.st_mode) && static_cast<uint64_t>(sb.st_size) == m.f.size &&
            sb.st_mtime == m.f.mtime) {
          m.current = true;  // installed (and verified) by an earlier attempt
          r.files_current++;
          plan += "s\n";
          continue;
        }
      }
      sent[m.f.name] = &m;
      if (m.f.size >= kBatchMax) {
        st = resume_point(m);
        if (!st.ok()) return st;
        m.streamed = true;
        plan += "b " + std::to_string(m.kept) + " " + std::to_string(m.f.size - m.kept) + "\n";
        big.push_back(&m);
      } else {
        plan += "t\n";
        small.push_back(&m);
      }
    }
    tick();
    st = in.write(plan.data(), plan.size());
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
    PullLimits hash_limits = limits_;
    hash_limits.max_hash_bytes =
        std::min(limits_.max_hash_bytes, 4 * listing.bytes() + (size_t{1} << 20));
    HashParser hashes(hash_limits);
    while (true) {
      auto n = src.read(buf.data(), buf.size());
      if (!n.ok()) return with_context(n.error(), "pull: hash on the pod");
      if (*n == 0) break;
      st = hashes.feed(buf.data(), *n);
      if (!st.ok()) return with_context(st.error(), "pull");
    }
    st = hashes.finish();
    if (!st.ok()) return with_context(st.error(), "pull");
    auto rc = in.finish(pod_err);
    if (!rc.ok()) return with_context(rc.error(), "pull");
    for (const auto& [name, sha] : hashes.hashes()) {
      auto m = sent.find(name);
      if (m == sent.end())
        return with_context(pod_sent("a hash for a file not asked for", name), "pull");
      m->second->remote_sha = sha;
    }
    return Status::Ok();
  }

  // After a failed attempt: the partial files it made go, except streamed ones when the link
  // died (the next attempt resumes from them, and verifies every byte).
  void discard(std::vector<Match>& matches, const Error& why) {
    for (Match& m : matches)
      if (m.part_made && !(m.streamed && why.code == ErrorCode::kConnection))
        m.dest->remove_part(m.rel);
  }

 private:
  // Maps each listed record to its local file, refusing what is not plainly inside its artefact
  // directory; a file matched by several patterns is pulled once, for the first.
  Status check_listing(const std::vector<std::string>& patterns, std::vector<ListedFile>& files,
                       const std::set<std::string>* only, std::vector<Match>& matches) {
    std::vector<bool> matched(patterns.size(), false);
    std::vector<bool> only_older(patterns.size(), false);
    std::set<std::string> names;
    std::map<std::string, const std::string*> homes;  // local dir + '\0' + rel -> pod name
    uint64_t total = 0;
    if (!only) r.files_older = 0;
    for (ListedFile& f : files) {
      const std::string& remote = artefacts_[f.pattern].remote;
      auto rel = local_relative(patterns[f.pattern], f.name);
      if (!rel.ok()) return with_context(rel.error(), "pull: artefact " + remote);
      // Not written by this job: never brought home as its own (skipped, so the plan keeps one
      // line per listed record).
      const bool older = f.mtime < modified_since;
      if (older && !only) ++r.files_older;
      (older ? only_older : matched)[f.pattern] = true;
      Match m;
      m.rel = std::move(*rel);
      m.f = std::move(f);
      if (older || !names.insert(m.f.name).second) {
        m.skipped = true;  // older than this job, or an earlier pattern matched it too
      } else {
        total += m.f.size;  // each at most 2^62: no overflow before the check
        if (total > limits_.max_total_bytes)
          return make_error(ErrorCode::kInvalid,
                            "pull: pod listed more than " +
                                std::to_string(limits_.max_total_bytes) +
                                " bytes of artefacts (the per-job cap, config.yaml "
                                "pull_max_gib); at " +
                                quoted(m.f.name));
      }
      matches.push_back(std::move(m));
    }
    for (const Match& m : matches) {
      if (m.skipped) continue;
      auto [it, fresh] = homes.emplace(artefacts_[m.f.pattern].local + '\0' + m.rel, &m.f.name);
      if (!fresh)
        return make_error(ErrorCode::kInvalid,
                          "pull: pod files " + quoted(*it->second) + " and " + quoted(m.f.name) +
                              " would both be written to " +
                              quoted(artefacts_[m.f.pattern].local + "/" + m.rel));
    }
    if (!only) {
      for (size_t i = 0; i < patterns.size(); ++i)
        if (!matched[i])
          r.unmatched.push_back(artefacts_[i].remote +
                                (only_older[i] ? " (only files older than this job's first step, "
                                                 "left by an earlier run?)"
                                               : ""));
    }
    return Status::Ok();
  }

  Result<PullDest*> dest_for(size_t i) {
    if (!dests_[i]) {
      auto d = PullDest::open(artefacts_[i].local);
      if (!d.ok()) return with_context(d.error(), "pull");
      dests_[i] = std::move(*d);
    }
    return dests_[i].get();
  }

  // Where a partial file left by an earlier attempt lets this one start; hashes that prefix.
  Status resume_point(Match& m) {
    auto part = m.dest->part_size(m.rel);
    if (!part.ok()) return with_context(part.error(), "pull");
    uint64_t have =
        *part < 0 || static_cast<uint64_t>(*part) > m.f.size ? 0 : static_cast<uint64_t>(*part);
    m.sink_hash = std::make_unique<Sha256>();
    if (have > 0) {
      auto fd = m.dest->open_part(m.rel, /*write=*/false, /*keep=*/true);
      std::vector<char> buf(256 * 1024);
      uint64_t left = have;
      while (fd.ok() && left > 0) {
        ssize_t n = ::read(*fd, buf.data(), std::min<uint64_t>(left, buf.size()));
        if (n <= 0) break;
        m.sink_hash->update(buf.data(), static_cast<size_t>(n));
        left -= static_cast<uint64_t>(n);
      }
      if (fd.ok()) ::close(*fd);
      if (!fd.ok() || left > 0) {
        have = 0;
        m.sink_hash = std::make_unique<Sha256>();
      }
    }
    m.kept = have;
    return Status::Ok();
  }

  // COUNT bytes of a "b" file into its partial file, from where the last attempt stopped: never
  // more than the listed size.
  Status fetch_exact(PullSource& src, Match& m) {
    auto opened = m.dest->open_part(m.rel, /*write=*/true, /*keep=*/m.kept > 0);
    if (!opened.ok()) return with_context(opened.error(), "pull");
    const int fd = *opened;
    m.part_made = true;
    const std::string shown = m.dest->shown(m.rel) + ".burst-part";
    if (m.kept > 0 && (::ftruncate(fd, static_cast<off_t>(m.kept)) != 0 ||
                       ::lseek(fd, static_cast<off_t>(m.kept), SEEK_SET) < 0)) {
      ::close(fd);
      return make_error(ErrorCode::kInternal, "seek " + shown + ": " + std::strerror(errno));
    }
    r.bytes_resumed += static_cast<int64_t>(m.kept);
    uint64_t left = m.f.size - m.kept;
    Status st;
    {
      BackgroundSink sink(fd, *m.sink_hash, shown);
      while (left > 0 && st.ok()) {
        std::vector<char> block = sink.take();
        size_t filled = 0;
        const size_t want = static_cast<size_t>(std::min<uint64_t>(left, block.size()));
        while (filled < want) {
          auto n = src.read(block.data() + filled, want - filled);
          if (!n.ok()) {
            st = with_context(n.error(), "artefact " + quoted(m.f.name));
            break;
          }
          if (*n == 0) {
            st = make_error(ErrorCode::kConnection,
                            "pull: artefact " + quoted(m.f.name) + ": the stream ended " +
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

  // Every small file, from one `tar -c` stream. Each entry must be a planned file, once, as a
  // regular file of exactly its listed size; anything else fails the pull.
  Status fetch_tar(PullSource& src, std::vector<Match*>& batch) {
    std::map<std::string, Match*> by_name;
    for (Match* m : batch) by_name[m->f.name] = m;
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
      const TarEntry& te = **e;
      auto it = by_name.find(te.name);
      if (it == by_name.end()) {
        st = pod_sent("a tar entry it was not asked for:", te.name);
        break;
      }
      Match& m = *it->second;
      if (te.type != '0') {
        st = pod_sent(std::string("a tar entry of type '") + escape_entry(std::string(1, te.type)) +
                          "', not a file:",
                      te.name);
      } else if (m.fetched) {
        st = pod_sent("a second tar entry for", te.name);
      } else if (te.size != m.f.size) {
        st = pod_sent(std::to_string(te.size) + " bytes in the tar stream, listed as " +
                          std::to_string(m.f.size) + ", for",
                      te.name);
      }
      if (!st.ok()) break;
      auto fd = m.dest->open_part(m.rel, /*write=*/true, /*keep=*/false);
      if (!fd.ok()) {
        st = fd.error();
        break;
      }
      m.part_made = true;
      LocalSink out;
      out.fd = *fd;
      const std::string shown = m.dest->shown(m.rel) + ".burst-part";
      while (st.ok()) {  // TarReader::read stops at the entry's size, checked equal above
        auto n = tar.read(buf.data(), buf.size());
        if (!n.ok()) st = n.error();
        if (!n.ok() || *n == 0) break;
        st = out.write(buf.data(), *n, shown);
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
  const std::vector<Artefact>& artefacts_;
  const PullLimits limits_;
  const std::function<void(const PullResult&)>& progress_;
  std::vector<std::unique_ptr<PullDest>> dests_;  // per artefact, opened on first use
  uint64_t since_ = 0;
};

}  // namespace

Result<PullResult> pull_artefacts(RemoteSession& session, const std::vector<Artefact>& artefacts,
                                  const std::string& workdir, const std::string& volume,
                                  const std::function<void(const PullResult&)>& progress,
                                  const PullLimits& limits, int64_t modified_since) {
  Puller p(session, artefacts, limits, progress);
  p.modified_since = modified_since;
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
    Status st = p.attempt(patterns, workdir, round ? &retry : nullptr, matches, &pod_err);
    if (!st.ok()) {
      p.discard(matches, st.error());
      return st.error();
    }
    while (!pod_err.empty() && pod_err.back() == '\n') pod_err.pop_back();
    std::set<std::string> again;
    for (Match& m : matches) {
      if (m.skipped) continue;
      if (!m.current) {
        auto size = m.dest->part_size(m.rel);
        const bool verified = !m.remote_sha.empty() && m.fetched && size.ok() &&
                              *size == static_cast<int64_t>(m.f.size) &&
                              m.local_sha == m.remote_sha;
        if (!verified && m.kept > 0 && round == 0) {
          again.insert(m.f.name);  // the partial file came from an older version of the artefact
          r.bytes_resumed -= static_cast<int64_t>(m.kept);
          continue;
        }
        if (!verified) {
          m.dest->remove_part(m.rel);
          std::string why;
          if (!m.fetched)
            why = "not received from the pod" +
                  (pod_err.empty() ? "" : " (" + escape_entry(pod_err, 2000) + ")");
          else if (m.remote_sha.empty())
            why = "the pod could not hash it (was it removed during the pull?)";
          else
            why = "sha256 mismatch (pod " + m.remote_sha.substr(0, 12) + ", received " +
                  m.local_sha.substr(0, 12) +
                  "): it changed on the pod during the pull; not installed";
          r.failed.push_back("artefact " + quoted(m.f.name) + ": " + why);
          continue;
        }
        st = m.dest->install(m.rel, m.f.mode, m.f.mtime);
        if (!st.ok()) {
          p.discard(matches, st.error());
          return with_context(st.error(), "pull");
        }
      }
      r.files++;
      r.local_paths.push_back(m.dest->shown(m.rel));
    }
    retry = std::move(again);
  }
  p.tick();
  return r;
}

}  // namespace burst
