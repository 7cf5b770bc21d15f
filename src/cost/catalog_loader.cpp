// The catalog's files and lookups: the config dir's override of a built-in file. The YAML reader
// is src/config/catalog_reader.cpp; a GPU by name is src/util/gpu_lookup.cpp.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "burst/gpu_catalog.h"
#include "cost/catalog_sources.h"

namespace burst {

// `<config_dir>/<file>` when it exists, else nullopt. Sets *error when it exists but is unreadable.
std::optional<std::string> read_catalog_override(const std::string& config_dir,
                                                 const std::string& file, std::string* path,
                                                 std::optional<Error>* error) {
  if (config_dir.empty()) return std::nullopt;
  *path = (std::filesystem::path(config_dir) / file).string();
  std::error_code ec;
  if (!std::filesystem::exists(*path, ec)) return std::nullopt;
  // A directory opens fine as an ifstream and then reads nothing: say so rather than "empty".
  if (std::filesystem::is_directory(*path, ec)) {
    *error = make_error(ErrorCode::kInvalid, *path + ": cannot read file: Is a directory");
    return std::nullopt;
  }
  std::ifstream in(*path, std::ios::binary);
  std::stringstream text;
  if (in.is_open()) text << in.rdbuf();
  if (!in.is_open() || in.bad()) {
    *error = make_error(ErrorCode::kInvalid, *path + ": cannot read file: " + std::strerror(errno));
    return std::nullopt;
  }
  return text.str();
}

}  // namespace burst

namespace burst {

bool supports_precision(const GpuSpec& gpu, const std::string& precision) {
  if (gpu.precisions.empty() || precision.empty()) return true;
  return std::find(gpu.precisions.begin(), gpu.precisions.end(), precision) != gpu.precisions.end();
}

double driver_vram_gib(const GpuSpec& gpu) {
  return gpu.vram_mib ? *gpu.vram_mib / 1024.0 : gpu.vram_gb;
}

}  // namespace burst
