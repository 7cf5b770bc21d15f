#include "app/items_file.h"

#include <filesystem>
#include <fstream>

namespace burst {

Result<std::vector<std::string>> read_items_file(const PipelineSpec& spec) {
  const Workload& w = spec.workload;
  if (w.items_file.empty()) return std::vector<std::string>{};
  const std::string where = spec.path + ":" + std::to_string(w.items_file_pos.line) + ":" +
                            std::to_string(w.items_file_pos.column) + ": workload.items_file: ";
  if (spec.code.dir.empty())
    return make_error(ErrorCode::kInvalid, where + "needs code.dir (the path is relative to it)");
  const std::string path = (std::filesystem::path(spec.code.dir) / w.items_file).string();
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec)
    return make_error(ErrorCode::kInvalid, where + "cannot read " + path + ": " + ec.message());
  if (size > kMaxItemsFileBytes)
    return make_error(ErrorCode::kInvalid, where + path + " is larger than 64 MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::kInvalid, where + "cannot open " + path);
  std::vector<std::string> items;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) items.push_back(line);
  }
  if (items.empty()) return make_error(ErrorCode::kInvalid, where + path + " holds no item");
  return items;
}

}  // namespace burst
