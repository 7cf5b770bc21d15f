// How a user's model name meets the shape tables (src/cost/model_shapes.cpp, diffusion.cpp): the
// table's short names, or the Hugging Face ids their sources cite, as users paste them into specs.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "cost/cost_internal.h"

namespace burst::cost {
namespace {

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Strips a release's date ("-2507", "-0324") or a dotted version ("-v0.1"); false if none.
bool strip_release(std::string& k) {
  const size_t dash = k.rfind('-');
  if (dash == std::string::npos || dash == 0) return false;
  const std::string_view tail = std::string_view(k).substr(dash + 1);
  const bool date = tail.size() == 4 && std::all_of(tail.begin(), tail.end(), [](char c) {
                      return std::isdigit(static_cast<unsigned char>(c)) != 0;
                    });
  // Only dotted versions: DeepSeek's "-v3" is part of the model's name.
  const bool version = tail.size() > 3 && tail[0] == 'v' && tail.find('.') != std::string::npos &&
                       std::all_of(tail.begin() + 1, tail.end(), [](char c) {
                         return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.';
                       });
  if (!date && !version) return false;
  k.erase(dash);
  return true;
}

// "Qwen/Qwen3-30B-A3B-Instruct-2507" -> "qwen3-30b-a3b".
std::string key_of(std::string_view name) {
  const size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name = name.substr(slash + 1);
  std::string k(name);
  std::transform(k.begin(), k.end(), k.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (bool again = true; again;) {
    again = strip_release(k);
    for (std::string_view tail : {"-instruct", "-it", "-chat", "-hf", "-base", "-pt"}) {
      if (ends_with(k, tail)) {
        k.erase(k.size() - tail.size());
        again = true;
      }
    }
  }
  return k;
}

// "https://huggingface.co/ORG/NAME/blob/..." -> "ORG/NAME"; "" for another source.
std::string_view hugging_face_id(std::string_view source) {
  constexpr std::string_view kSite = "https://huggingface.co/";
  if (source.substr(0, kSite.size()) != kSite) return {};
  source.remove_prefix(kSite.size());
  const size_t org = source.find('/');
  if (org == std::string_view::npos) return {};
  const size_t end = source.find_first_of("/ ", org + 1);
  return source.substr(0, end);
}

}  // namespace

bool names_shape(const std::string& asked, const char* name, const char* source) {
  if (asked == name) return true;
  const std::string key = key_of(asked);
  if (key.empty()) return false;
  if (key == key_of(name)) return true;
  const std::string_view id = hugging_face_id(source);
  return !id.empty() && key == key_of(id);
}

}  // namespace burst::cost
