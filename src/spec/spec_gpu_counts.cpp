#include "spec/spec_gpu_counts.h"

#include <climits>

namespace burst::spec {

std::map<std::string, int> read_gpu_counts(const yaml::Node& node, const std::string& path,
                                           yaml::Problems& problems) {
  std::map<std::string, int> out;
  if (!node.is_map()) {
    problems.add(yaml::pos_of(node), path,
                 "expected a mapping of GPU type: count, got " + yaml::kind_of(node));
    return out;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string name = yaml::key_name(it->first);
    const std::string item = path + "." + name;
    if (name.empty()) {
      problems.add(yaml::pos_of(it->first), item, "expected a GPU type");
      continue;
    }
    if (out.contains(name)) {
      problems.add(yaml::pos_of(it->first), item, "duplicate field");
      continue;
    }
    if (std::optional<long> n = yaml::read_integer(it->second, item, 1, INT_MAX, problems))
      out[name] = static_cast<int>(*n);
  }
  return out;
}

}  // namespace burst::spec
