#include "plan/worker_shards.h"

#include <cctype>

namespace burst {

std::vector<std::string> shard_of(const std::vector<std::string>& items, int index, int count) {
  if (count < 1 || index < 0 || index >= count) return {};
  const size_t n = items.size();
  const size_t from = n * static_cast<size_t>(index) / static_cast<size_t>(count);
  const size_t to = n * static_cast<size_t>(index + 1) / static_cast<size_t>(count);
  return std::vector<std::string>(items.begin() + static_cast<long>(from),
                                  items.begin() + static_cast<long>(to));
}

std::string worker_pod_role(int index, int count, int attempt) {
  if (count <= 1 && attempt == 0) return "gpu";
  std::string role = "gpu" + std::to_string(index);
  if (attempt > 0) role += "r" + std::to_string(attempt);
  return role;
}

std::optional<int> worker_of_role(const std::string& role) {
  if (role.rfind("gpu", 0) != 0) return std::nullopt;
  size_t i = 3;
  int index = 0;
  while (i < role.size() && std::isdigit(static_cast<unsigned char>(role[i])) && i < 9)
    index = index * 10 + (role[i++] - '0');
  if (i == 3) return std::nullopt;
  if (i == role.size()) return index;
  if (role[i] != 'r' || i + 1 == role.size()) return std::nullopt;
  for (size_t j = i + 1; j < role.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(role[j]))) return std::nullopt;
  return index;
}

}  // namespace burst
