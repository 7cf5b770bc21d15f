#include "spec/spec_checks.h"

#include <algorithm>
#include <vector>

namespace burst::spec {
namespace {

bool is_lower_or_digit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_letter_or_underscore(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > 63 || !is_lower_or_digit(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return is_lower_or_digit(c) || c == '-'; });
}

bool is_env_name(std::string_view name) {
  if (name.empty() || !is_letter_or_underscore(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return is_letter_or_underscore(c) || is_digit(c); });
}

bool is_reserved_env_name(std::string_view name) { return name.starts_with("BURST_"); }

bool is_valid_image_ref(std::string_view image) {
  return std::none_of(image.begin(), image.end(),
                      [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; });
}

std::string multi_gpu_refusal(const Workload& w, std::string_view mode) {
  if (mode != "replicas") return "";
  if (w.kind == "llm-training")
    return "replicas is not for training (its GPUs run one program, data parallel inside it); "
           "use program";
  if (!w.items || *w.items < 2)
    return "replicas splits workload.items across copies of the run step, and there are none; "
           "use program";
  return "";
}

bool is_valid_artefact_remote(std::string_view remote) {
  constexpr std::string_view kVolume = "$BURST_VOLUME/";
  if (remote.starts_with(kVolume)) {
    remote.remove_prefix(kVolume.size());
  } else if (remote.empty() || remote.starts_with('/')) {
    return false;
  }
  if (remote.empty()) return false;
  // No ".." component anywhere: artefacts never reach outside the code dir or the volume.
  size_t start = 0;
  while (start <= remote.size()) {
    size_t end = remote.find('/', start);
    if (end == std::string_view::npos) end = remote.size();
    if (remote.substr(start, end - start) == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace burst::spec
