#include "util/api_error_count.h"

#include <mutex>

namespace burst {
namespace {

std::mutex& api_error_mu() {
  static std::mutex mu;
  return mu;
}
std::map<std::pair<std::string, std::string>, int64_t>& api_error_table() {
  static auto* table = new std::map<std::pair<std::string, std::string>, int64_t>();
  return *table;
}

}  // namespace

void note_api_error(const std::string& provider, ErrorCode code) {
  std::lock_guard<std::mutex> lock(api_error_mu());
  ++api_error_table()[{provider, to_string(code)}];
}

std::map<std::pair<std::string, std::string>, int64_t> api_error_counts() {
  std::lock_guard<std::mutex> lock(api_error_mu());
  return api_error_table();
}

}  // namespace burst
