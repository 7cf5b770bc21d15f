#include "sync/artefact_pull.h"

#include <filesystem>
#include <sstream>

#include "util/shell.h"

namespace burst {
namespace fs = std::filesystem;

namespace {

// "out/clips/*.wav" -> "out/clips": the part of the pattern before the first wildcard's dir.
std::string literal_dir(const std::string& pattern) {
  size_t wild = pattern.find_first_of("*?[");
  std::string head = wild == std::string::npos ? pattern : pattern.substr(0, wild);
  size_t slash = head.rfind('/');
  return slash == std::string::npos ? "" : head.substr(0, slash);
}

Result<std::vector<std::string>> expand(RemoteSession& s, const std::string& pattern,
                                        const std::string& workdir) {
  std::string cmd = "cd " + shell_quote(workdir) + " && for f in " + shell_glob(pattern) +
                    "; do [ -f \"$f\" ] && printf '%s\\n' \"$f\"; done; true";
  auto out = s.run_capture(cmd);
  if (!out.ok()) return out.error();
  std::vector<std::string> files;
  std::istringstream lines(*out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) files.push_back(line);
  return files;
}

}  // namespace

Result<PullResult> pull_artefacts(RemoteSession& session, const std::vector<Artefact>& artefacts,
                                  const std::string& workdir, const std::string& volume,
                                  const std::function<void(const PullResult&)>& progress) {
  PullResult result;
  for (const Artefact& a : artefacts) {
    std::string pattern = a.remote;
    const std::string vol_prefix = "$BURST_VOLUME/";
    if (pattern.rfind(vol_prefix, 0) == 0)
      pattern = volume + "/" + pattern.substr(vol_prefix.size());
    auto files = expand(session, pattern, workdir);
    if (!files.ok()) return with_context(files.error(), "artefact " + a.remote);
    if (files->empty()) result.unmatched.push_back(a.remote);
    const std::string base = literal_dir(pattern);
    for (const std::string& f : *files) {
      std::string rel = base.empty() ? f : f.substr(std::min(f.size(), base.size() + 1));
      if (rel.empty() || rel.find("..") != std::string::npos) rel = fs::path(f).filename().string();
      fs::path dest = fs::path(a.local) / rel;
      std::error_code ec;
      fs::create_directories(dest.parent_path(), ec);
      std::string remote = f[0] == '/' ? f : workdir + "/" + f;
      auto info = session.stat(remote);
      if (!info.ok()) return with_context(info.error(), "artefact " + f);
      fs::path tmp = dest;
      tmp += ".burst-part";
      Status st = session.download(remote, tmp.string());
      if (st.ok() && fs::file_size(tmp, ec) != info->size)
        st =
            make_error(ErrorCode::kUnavailable, "artefact " + f + ": size mismatch after download");
      if (!st.ok()) {
        fs::remove(tmp, ec);
        return st.error();
      }
      fs::rename(tmp, dest, ec);
      if (ec)
        return make_error(ErrorCode::kInternal, "artefact " + dest.string() + ": " + ec.message());
      result.files++;
      result.bytes += static_cast<int64_t>(info->size);
      result.local_paths.push_back(dest.string());
      if (progress) progress(result);
    }
  }
  return result;
}

}  // namespace burst
