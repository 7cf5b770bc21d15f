#include "sync/code_sync.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "crypto/sha256.h"
#include "sync/sync_manifest.h"
#include "sync/tar_stream.h"
#include "util/shell.h"

namespace burst {
namespace {

// More touched files than this are sent again instead: each touch is a word on the command line.
constexpr size_t kMaxTouchCommands = 200;

std::string dirname_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

// Round trip 1: "T1\n" if the pod has tar, the manifest, a NUL, then stat records of every path
// the manifest names (missing paths print nothing).
std::string probe_command(const SyncTarget& t) {
  const std::string m = shell_quote(t.manifest_path), r = shell_quote(t.remote_dir);
  return "if command -v tar >/dev/null 2>&1; then echo T1; else echo T0; fi; "
         "if [ -f " +
         m + " ] && cd " + r + " 2>/dev/null; then cat " + m +
         "; printf '\\0'; "
         "tail -n +2 " +
         m +
         " | cut -f6- | tr '\\n' '\\0' | "
         "xargs -0 -r stat --printf='%f\\t%s\\t%Y\\t%n\\0' -- 2>/dev/null; true; "
         "else printf '\\0'; fi";
}

// Round trip 2: removals (a NUL-separated list of `remove_bytes` bytes on stdin), then the tar
// stream (which ends with the new manifest under `manifest_tmp`), then the touches.
std::string apply_command(const SyncTarget& t, size_t remove_bytes, const std::string& touches,
                          const std::string& manifest_tmp) {
  const std::string tmp = shell_quote(manifest_tmp);
  std::string cmd = "set -e; mkdir -p " + shell_quote(t.remote_dir) + " " +
                    shell_quote(dirname_of(t.manifest_path)) + "; cd " + shell_quote(t.remote_dir) +
                    "; trap 'rm -f -- " + manifest_tmp + "' EXIT; ";
  if (remove_bytes > 0) {
    cmd += "head -c " + std::to_string(remove_bytes) +
           " | xargs -0 sh -c 'for p; do if [ -d \"$p\" ] && [ ! -L \"$p\" ]; then "
           "rmdir -- \"$p\" 2>/dev/null || true; else rm -f -- \"$p\"; fi; done' sh; ";
  }
  cmd += "tar --no-same-owner -xpf -; " + touches + "mv -f -- " + tmp + " " +
         shell_quote(t.manifest_path);
  return cmd;
}

std::string octal(uint32_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%o", mode);
  return buf;
}

// Sends one local file's bytes into the tar stream, hashing what it sends.
Result<std::string> stream_file(TarWriter& tar, const LocalFile& f,
                                const std::function<void(uint64_t)>& sent, bool* short_read) {
  int fd = ::open(f.abs.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(ErrorCode::kInvalid, f.abs + ": " + std::strerror(errno));
  Sha256 h;
  std::vector<char> buf(256 * 1024);
  uint64_t left = f.size;
  Status st;
  while (left > 0) {
    ssize_t n = ::read(fd, buf.data(), static_cast<size_t>(std::min<uint64_t>(left, buf.size())));
    if (n < 0) {
      st = make_error(ErrorCode::kInvalid, f.abs + ": " + std::strerror(errno));
      break;
    }
    if (n == 0) break;
    h.update(buf.data(), static_cast<size_t>(n));
    st = tar.data(buf.data(), static_cast<size_t>(n));
    if (!st.ok()) break;
    left -= static_cast<uint64_t>(n);
    sent(static_cast<uint64_t>(n));
  }
  ::close(fd);
  if (!st.ok()) return st.error();
  *short_read = left > 0;
  return h.hex_digest();
}

ManifestEntry entry_of(const LocalFile& f, const std::string& sha) {
  if (!f.link_target.empty()) return {'l', 0777, f.size, 0, sha, f.rel};
  return {'f', f.mode, f.size, f.mtime, sha, f.rel};
}

}  // namespace

std::string manifest_path_for(const std::string& volume, const std::string& remote_dir) {
  return volume + "/.burst/sync/" + sha256_hex(remote_dir).substr(0, 16) + ".manifest";
}

Result<SyncStats> sync_code(RemoteSession& session, const ScanResult& scan,
                            const SyncTarget& target,
                            const std::function<void(const SyncStats&)>& progress) {
  SyncStats stats;
  stats.files_total = static_cast<int64_t>(scan.files.size());
  stats.method = "none";
  auto probe = session.run_capture(probe_command(target));
  stats.round_trips++;
  if (!probe.ok()) return with_context(probe.error(), "sync: read the manifest");
  const bool has_tar = probe->rfind("T1\n", 0) == 0;
  const size_t body = probe->find('\n') + 1;
  const size_t nul = probe->find('\0', body);
  const std::string old_text = nul == std::string::npos ? "" : probe->substr(body, nul - body);
  const Manifest manifest = parse_manifest(old_text);
  const auto remote = parse_remote_stats(nul == std::string::npos ? "" : probe->substr(nul + 1));

  auto plan = plan_sync(scan, manifest, remote, [](const LocalFile& f) {
    return sha256_file(f.abs, static_cast<long long>(f.size));
  });
  if (!plan.ok()) return plan.error();
  if (plan->touch.size() > kMaxTouchCommands) {
    for (size_t i : plan->touch) {
      plan->send.push_back(i);
      plan->send_bytes += scan.files[i].size;
      plan->known_hash.erase(scan.files[i].rel);
    }
    plan->touch.clear();
  }
  stats.files_to_send = static_cast<int64_t>(plan->send.size());
  stats.bytes_to_send = static_cast<int64_t>(plan->send_bytes);

  // The new manifest: every local entry with the hash burst knows it has on the pod.
  std::vector<ManifestEntry> next;
  for (size_t i = 0; i < scan.dirs.size(); ++i)
    next.push_back(
        {'d', scan.dir_modes.size() > i ? scan.dir_modes[i] : 0755u, 0, 0, "-", scan.dirs[i]});
  for (const auto& f : scan.files) {
    auto h = plan->known_hash.find(f.rel);
    if (h != plan->known_hash.end()) next.push_back(entry_of(f, h->second));
  }
  if (plan->send.empty() && plan->remove.empty() && plan->touch.empty() &&
      plan->send_dirs.empty() && format_manifest(next) == old_text) {
    if (progress) progress(stats);
    return stats;  // nothing changed: one round trip
  }

  std::string touches;
  for (size_t i : plan->touch) {
    const LocalFile& f = scan.files[i];
    touches += "chmod " + octal(f.mode) + " -- " + shell_quote(f.rel) + "; touch -c -m -d @" +
               std::to_string(f.mtime) + " -- " + shell_quote(f.rel) + "; ";
  }
  std::string removals;
  for (const auto& p : plan->remove) removals += p + '\0';
  stats.files_deleted = static_cast<int64_t>(plan->remove.size());
  stats.files_touched = static_cast<int64_t>(plan->touch.size());

  if (!has_tar)
    return make_error(ErrorCode::kRemoteFailed,
                      "sync: the pod has no `tar`; install it in the image (burst streams the "
                      "code dir as a tar archive)");
  stats.method = "tar";
  const std::string manifest_tmp =
      ".burst-manifest-" + std::to_string(std::random_device{}() % 1000000) + ".part";
  auto stream = session.open_stream(apply_command(target, removals.size(), touches, manifest_tmp));
  if (!stream.ok()) return with_context(stream.error(), "sync");
  stats.round_trips++;
  RemoteStream& out = **stream;
  Status st = out.write(removals.data(), removals.size());
  TarWriter tar([&](const char* d, size_t n) { return out.write(d, n); });
  for (size_t i : plan->send_dirs) {
    if (!st.ok()) break;
    st = tar.begin({scan.dirs[i], '5', scan.dir_modes[i], 0, 0, ""});
  }
  std::vector<std::string> warnings;
  for (size_t i : plan->send) {
    if (!st.ok()) break;
    const LocalFile& f = scan.files[i];
    if (!f.link_target.empty()) {
      st = tar.begin({f.rel, '2', 0777, 0, 0, f.link_target});
      next.push_back(entry_of(f, f.link_hash));
    } else {
      st = tar.begin({f.rel, '0', f.mode, f.mtime, f.size, ""});
      bool short_read = false;
      auto sha = st.ok()
                     ? stream_file(
                           tar, f, [&](uint64_t n) { stats.bytes_sent += static_cast<int64_t>(n); },
                           &short_read)
                     : Result<std::string>(st.error());
      if (!sha.ok()) {
        st = sha.error();
        break;
      }
      st = tar.end_entry();
      ManifestEntry e = entry_of(f, *sha);
      if (short_read) e.mtime = -1;  // changed while sent: the next sync sends it again
      next.push_back(e);
    }
    stats.files_sent++;
    if (progress) progress(stats);
  }
  const std::string text = format_manifest(next);
  if (st.ok()) st = tar.begin({manifest_tmp, '0', 0644, 0, text.size(), ""});
  if (st.ok()) st = tar.data(text.data(), text.size());
  if (st.ok()) st = tar.end_entry();
  if (st.ok()) st = tar.finish();
  if (st.ok()) st = out.close_stdin();
  std::string err;
  auto rc = out.finish(&err);
  if (!st.ok()) return with_context(st.error(), "sync");
  if (!rc.ok()) return with_context(rc.error(), "sync");
  if (*rc != 0) {
    while (!err.empty() && err.back() == '\n') err.pop_back();
    return make_error(ErrorCode::kRemoteFailed,
                      "sync: unpacking on the pod exited " + std::to_string(*rc) + ": " + err);
  }
  if (progress) progress(stats);
  return stats;
}

}  // namespace burst
