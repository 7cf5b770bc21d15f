// How a user's model name meets the shape tables (src/cost/model_shapes.cpp, diffusion_shapes.cpp):
// the table's short names, or the Hugging Face ids their sources cite, as users paste them into
// specs, including a quantized repository's name, whose tail says its weights' precision.
#include <algorithm>
#include <cctype>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// The tails quantized repositories add to a model's name, and the weights' precision each means,
// where it means one: FP8 checkpoints (Qwen's "-FP8", RedHatAI's "-FP8-dynamic"), AWQ (4-bit
// weights only: AutoAWQ's README), GPTQ with its bits named (Qwen's "-GPTQ-Int4"), RedHatAI's
// compressed-tensors schemes ("quantized.w8a8": int8 weights), bitsandbytes and MLX 4- and 8-bit
// uploads, and GGUF files named by their quantization type. A bare "-GPTQ" (2 to 8 bits) and
// "-GGUF" (a repository of many types) say none: the shape is found, the precision is the user's.
struct QuantTail {
  std::string_view tail;
  const char* precision;  // "": quantized, to a precision the tail does not name
};
constexpr QuantTail kQuantTails[] = {
    {"-fp8-dynamic", "fp8"},
    {"-fp8", "fp8"},
    {"-awq-int4", "int4"},
    {"-awq", "int4"},
    {"-gptq-int4", "int4"},
    {"-gptq-int8", "int8"},
    {"-int4", "int4"},
    {"-int8", "int8"},
    {"-quantized.w4a16", "int4"},
    {"-quantized.w8a8", "int8"},
    {"-quantized.w8a16", "int8"},
    {"-w4a16", "int4"},
    {"-w8a8", "int8"},
    {"-w8a16", "int8"},
    {"-bnb-4bit", "int4"},
    {"-4bit", "int4"},
    {"-8bit", "int8"},
    {"-q4-k-m", "q4_k_m"},
    {"-q4-0", "q4_0"},
    {"-q8-0", "q8_0"},
    // ComfyUI's single-file checkpoints: "flux1-dev-fp8_e4m3fn", "..._fp8_scaled".
    {"-fp8-e4m3fn", "fp8"},
    {"-fp8-scaled", "fp8"},
    // ...and their 16-bit files: "wan2.1_t2v_1.3B_fp16", "mochi_preview_bf16".
    {"-fp16", "fp16"},
    {"-bf16", "bf16"},
    {".gguf", ""},
    {"-gguf", ""},
    {"-gptq", ""},
};

// "Qwen/Qwen3-8B" -> "qwen3-8b": the name without its organisation, lower case, with an
// underscore read as a hyphen ("Sana_1600M_1024px_diffusers", "sd_xl_base_1.0": file and
// repository names spell the same separator both ways).
std::string name_part(std::string_view name) {
  const size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name = name.substr(slash + 1);
  std::string k(name);
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) {
    return c == '_' ? '-' : static_cast<char>(std::tolower(c));
  });
  return k;
}

// "Qwen/Qwen3-30B-A3B-Instruct-2507" -> "qwen3-30b-a3b"; "neuralmagic/Meta-Llama-3.1-8B-Instruct-
// FP8" -> "llama-3.1-8b" with `precision` (when given) set to "fp8", the outermost quantization
// tail's that names one ("" when none does).
std::string key_of(std::string_view name, const char** precision = nullptr) {
  std::string k = name_part(name);
  bool quantized = false;
  for (bool again = true; again;) {
    again = strip_release(k);
    for (std::string_view tail : {"-instruct", "-it", "-chat", "-hf", "-base", "-pt", "-diffusers",
                                  ".safetensors", ".ckpt"}) {
      if (ends_with(k, tail)) {
        k.erase(k.size() - tail.size());
        again = true;
      }
    }
    for (const QuantTail& q : kQuantTails) {
      if (!ends_with(k, q.tail)) continue;
      k.erase(k.size() - q.tail.size());
      // The outermost tail that names a precision: "-Q4_K_M.gguf" is q4_k_m.
      if (precision && (!quantized || (**precision == '\0' && *q.precision != '\0')))
        *precision = q.precision;
      quantized = again = true;
      break;
    }
  }
  // Meta renamed its Llama 3.1 repositories from "Meta-Llama-3.1-8B" to "Llama-3.1-8B", the old
  // id redirecting (oumi-ai/oumi PR #1357); both are in use, and Llama 3's keep the prefix. The
  // key drops it.
  constexpr std::string_view kMeta = "meta-llama-";
  if (k.compare(0, kMeta.size(), kMeta) == 0) k.erase(0, 5);
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

const char* named_precision(const std::string& asked) {
  const char* precision = nullptr;
  key_of(asked, &precision);
  return precision;
}

bool is_row_id(const std::string& asked, const char* source) {
  const std::string_view id = hugging_face_id(source);
  return !id.empty() && name_part(asked) == name_part(id);
}

bool same_model(const std::string& asked, const char* other) {
  const std::string key = key_of(asked);
  return !key.empty() && key == key_of(other);
}

bool names_shape(const std::string& asked, const char* name, const char* source) {
  if (asked == name) return true;
  const std::string key = key_of(asked);
  if (key.empty()) return false;
  if (key == key_of(name)) return true;
  const std::string_view id = hugging_face_id(source);
  return !id.empty() && key == key_of(id);
}

namespace {

// Levenshtein distance, two rows: a dozen lines for short names did not warrant a dependency.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  std::iota(prev.begin(), prev.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] =
          std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::vector<std::string> nearest_names(const std::string& asked,
                                       const std::vector<std::string>& names, size_t n) {
  const std::string key = key_of(asked);
  // No model's name is this long; a spec's field can be, and the distance costs its length.
  if (key.size() > 128) return {};
  std::vector<std::pair<size_t, size_t>> by_distance;  // (distance, index), stable on ties
  for (size_t i = 0; i < names.size(); ++i)
    by_distance.emplace_back(edit_distance(key, key_of(names[i])), i);
  std::stable_sort(by_distance.begin(), by_distance.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [distance, i] : by_distance) {
    if (out.size() == n) break;
    if (std::find(out.begin(), out.end(), names[i]) == out.end()) out.push_back(names[i]);
  }
  return out;
}

}  // namespace burst::cost
