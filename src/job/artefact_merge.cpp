#include "job/artefact_merge.h"

#include <filesystem>
#include <map>
#include <set>
#include <system_error>

namespace burst {
namespace fs = std::filesystem;

std::string merge_staging_dir(const std::string& local, int index) {
  return local + "/.burst-merge-w" + std::to_string(index);
}

void clear_merge_staging(const std::vector<std::string>& locals, int workers) {
  for (const std::string& local : std::set<std::string>(locals.begin(), locals.end()))
    for (int i = 0; i < workers; ++i) {
      std::error_code ec;
      fs::remove_all(merge_staging_dir(local, i), ec);
    }
}

Status merge_flat(const std::vector<std::string>& locals, int workers) {
  const std::set<std::string> dirs(locals.begin(), locals.end());
  // First every file of every worker, so a collision moves nothing.
  std::map<std::string, std::map<std::string, int>> from;  // local -> relative path -> worker
  for (const std::string& local : dirs)
    for (int i = 0; i < workers; ++i) {
      const fs::path staging = merge_staging_dir(local, i);
      std::error_code ec;
      if (!fs::is_directory(staging, ec)) continue;
      for (fs::recursive_directory_iterator it(staging, ec), end; !ec && it != end;
           it.increment(ec)) {
        if (it->is_directory(ec)) continue;
        const std::string rel = it->path().lexically_relative(staging).string();
        auto [at, fresh] = from[local].emplace(rel, i);
        if (!fresh)
          return make_error(ErrorCode::kInvalid,
                            "merge: flat: " + local + "/" + rel + " came from both worker " +
                                std::to_string(at->second) + " and worker " + std::to_string(i) +
                                "; nothing was merged (each worker's files are in " + local +
                                "/.burst-merge-w<i>/); name the files by $BURST_WORKER_INDEX, "
                                "or leave resources.merge unset for per-worker subdirectories");
      }
      if (ec)
        return make_error(ErrorCode::kInternal,
                          "merge: flat: cannot list " + staging.string() + ": " + ec.message());
    }
  for (const auto& [local, files] : from)
    for (const auto& [rel, i] : files) {
      const fs::path src = fs::path(merge_staging_dir(local, i)) / rel;
      const fs::path dst = fs::path(local) / rel;
      std::error_code ec;
      fs::create_directories(dst.parent_path(), ec);
      fs::rename(src, dst, ec);
      if (ec)
        return make_error(ErrorCode::kInternal, "merge: flat: cannot move " + src.string() +
                                                    " to " + dst.string() + ": " + ec.message());
    }
  clear_merge_staging(std::vector<std::string>(dirs.begin(), dirs.end()), workers);
  return Status::Ok();
}

}  // namespace burst
