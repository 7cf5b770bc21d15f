#include "spec/skypilot_accelerators.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>

#include "util/decimal.h"

namespace burst::spec {
namespace {

// The catalog names of config/gpus.yaml.
constexpr std::string_view kCatalog[] = {"RTX_3060",
                                         "RTX_3080",
                                         "RTX_3090",
                                         "RTX_4080",
                                         "RTX_4080_SUPER",
                                         "RTX_4090",
                                         "RTX_5090",
                                         "RTX_2080_TI",
                                         "RTX_3070",
                                         "RTX_3080_TI",
                                         "RTX_3090_TI",
                                         "RTX_4060_TI",
                                         "RTX_4070",
                                         "RTX_4070_SUPER",
                                         "RTX_4070_TI",
                                         "RTX_5060_TI",
                                         "RTX_5070",
                                         "RTX_5070_TI",
                                         "RTX_5080",
                                         "RX_7900_XTX",
                                         "QUADRO_RTX_6000",
                                         "RTX_A4000",
                                         "RTX_A4500",
                                         "RTX_A5000",
                                         "RTX_A6000",
                                         "RTX_4000_ADA",
                                         "RTX_6000_ADA",
                                         "RTX_PRO_6000",
                                         "RTX_PRO_6000_SERVER",
                                         "RTX_PRO_6000_MAXQ",
                                         "RTX_5000_ADA",
                                         "RTX_2000_ADA",
                                         "QUADRO_RTX_8000",
                                         "T4",
                                         "V100",
                                         "A10",
                                         "A10G",
                                         "A40",
                                         "L4",
                                         "L40",
                                         "L40S",
                                         "A100_40GB",
                                         "A100_80GB_PCIE",
                                         "A100_80GB",
                                         "H100_PCIE",
                                         "H100_NVL",
                                         "H100_SXM",
                                         "H800_SXM",
                                         "A800_80GB",
                                         "A800_80GB_PCIE",
                                         "RTX_4060",
                                         "RTX_4060_TI_8GB",
                                         "RTX_3060_TI",
                                         "GH200",
                                         "H200",
                                         "A30",
                                         "A100_40GB_PCIE",
                                         "V100_PCIE",
                                         "V100_32GB",
                                         "H200_NVL",
                                         "H20",
                                         "L20",
                                         "B200",
                                         "MI210",
                                         "MI250X",
                                         "MI300X",
                                         "MI325X",
                                         "MI355X"};

// SkyPilot's names (normalised: upper case, no '-', '_' or ' ') that are not a catalog name
// written another way.
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"A100", "A100_40GB"},          {"A10040GB", "A100_40GB"},
    {"A100SXM4", "A100_40GB"},      {"A10080GB", "A100_80GB"},
    {"A10080GBSXM", "A100_80GB"},   {"A10080GBPCIE", "A100_80GB_PCIE"},
    {"H100", "H100_SXM"},           {"H10080GB", "H100_SXM"},
    {"H100MEGA", "H100_SXM"},       {"H100SXM5", "H100_SXM"},
    {"H100PCIE", "H100_PCIE"},      {"H100NVL", "H100_NVL"},
    {"V10016GB", "V100"},           {"A6000", "RTX_A6000"},
    {"A5000", "RTX_A5000"},         {"A4500", "RTX_A4500"},
    {"A4000", "RTX_A4000"},         {"RTX6000", "QUADRO_RTX_6000"},
    {"RTX6000ADA", "RTX_6000_ADA"}, {"RTX4000ADA", "RTX_4000_ADA"},
    {"H200141GB", "H200"},          {"B20080GB", "B200"},
};

std::string normalise(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == ' ') continue;
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

// util/decimal.h: libc++ 14 (the Mac's) has no floating-point std::from_chars.
std::optional<double> parse_number(std::string_view text) {
  std::optional<double> value = parse_decimal(text);
  if (!value || !std::isfinite(*value)) return std::nullopt;
  return value;
}

// "40GB+" or "40GB": the minimum memory in GB.
std::optional<double> memory_form(std::string_view text) {
  std::string upper = normalise(text);
  if (upper.ends_with('+')) upper.pop_back();
  if (!upper.ends_with("GB")) return std::nullopt;
  upper.resize(upper.size() - 2);
  std::optional<double> gb = parse_number(upper);
  if (!gb || *gb <= 0) return std::nullopt;
  return gb;
}

// A count as SkyPilot writes it (1, 8, 0.5); fractions are rounded up, with a note.
std::optional<int> read_count(std::string_view text, SourcePos pos, const std::string& path,
                              Problems& problems) {
  std::optional<double> n = parse_number(trim(text));
  if (!n || *n <= 0 || *n > 1024) {
    problems.add(pos, path, "expected a GPU count above 0, got \"" + std::string(text) + "\"");
    return std::nullopt;
  }
  int count = static_cast<int>(std::ceil(*n));
  if (count != *n)
    problems.note(
        pos, path,
        "burst rents whole GPUs: " + std::string(trim(text)) + " read as " + std::to_string(count));
  return count;
}

struct OneChoice {
  std::optional<std::string> gpu;  // nullopt: a memory form
  std::optional<double> min_vram_gb;
  int count = 1;
  bool unknown = false;  // a name burst does not know (reported by the caller)
  std::string name;
};

// "NAME" or "NAME:COUNT" (count from `count_text` when given separately).
std::optional<OneChoice> read_choice(std::string_view text, std::optional<std::string> count_text,
                                     SourcePos pos, const std::string& path, Problems& problems) {
  std::string name = trim(text);
  if (!count_text) {
    size_t colon = name.rfind(':');
    if (colon != std::string::npos) {
      count_text = name.substr(colon + 1);
      name = trim(name.substr(0, colon));
    }
  }
  OneChoice out;
  out.name = name;
  if (count_text) {
    std::optional<int> count = read_count(*count_text, pos, path, problems);
    if (!count) return std::nullopt;
    out.count = *count;
  }
  if (normalise(name).starts_with("TPU")) {
    problems.add(
        pos, path,
        "not supported: TPUs (\"" + name + "\"); burst rents GPUs: use a GPU name such as H100");
    return std::nullopt;
  }
  if (std::optional<double> gb = memory_form(name)) {
    out.min_vram_gb = gb;
    if (!name.ends_with('+'))
      problems.note(
          pos, path,
          "\"" + name + "\" read as at least " + trim(name.substr(0, name.size() - 2)) + " GB");
    return out;
  }
  out.gpu = catalog_gpu_name(name);
  out.unknown = !out.gpu;
  return out;
}

std::string unknown_message(const std::string& name) {
  return "unknown GPU \"" + name + "\": not in burst's GPU catalog (`burst gpus` lists it)";
}

}  // namespace

std::optional<std::string> catalog_gpu_name(std::string_view skypilot_name) {
  std::string key = normalise(skypilot_name);
  if (key.empty()) return std::nullopt;
  for (const auto& [alias, target] : kAliases)
    if (alias == key) return std::string(target);
  for (std::string_view name : kCatalog)
    if (normalise(name) == key) return std::string(name);
  return std::nullopt;
}

std::vector<std::string> known_catalog_gpu_names() {
  std::vector<std::string> out(std::begin(kCatalog), std::end(kCatalog));
  for (const auto& alias : kAliases) out.emplace_back(alias.second);
  return out;
}

std::optional<AcceleratorChoice> read_accelerators(const yaml::Node& node, const std::string& path,
                                                   Problems& problems) {
  std::vector<std::pair<OneChoice, SourcePos>> choices;
  bool bad = false;
  auto add = [&](std::optional<OneChoice> c, SourcePos pos) {
    if (c)
      choices.emplace_back(std::move(*c), pos);
    else
      bad = true;
  };
  if (node.is_scalar()) {
    add(read_choice(node.scalar(), std::nullopt, pos_of(node), path, problems), pos_of(node));
  } else if (node.is_sequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      std::string item_path = path + "[" + std::to_string(i) + "]";
      if (!node[i].is_scalar()) {
        problems.add(pos_of(node[i]), item_path, "expected a string, got " + kind_of(node[i]));
        bad = true;
        continue;
      }
      add(read_choice(node[i].scalar(), std::nullopt, pos_of(node[i]), item_path, problems),
          pos_of(node[i]));
    }
  } else if (node.is_map()) {
    // {A100: 1, V100: 2}, or the set {L4, T4, A10G}: keys with no value (count 1).
    for (auto it = node.begin(); it != node.end(); ++it) {
      std::string name = key_name(it->first);
      std::string item_path = path + "." + name;
      std::optional<std::string> count;
      if (!it->second.is_null()) {
        if (!it->second.is_scalar()) {
          problems.add(pos_of(it->second), item_path,
                       "expected a GPU count, got " + kind_of(it->second));
          bad = true;
          continue;
        }
        count = it->second.scalar();
      }
      add(read_choice(name, count, pos_of(it->first), item_path, problems), pos_of(it->first));
    }
  } else {
    problems.add(pos_of(node), path,
                 "expected a string, a list or a mapping of GPUs, got " + kind_of(node));
    return std::nullopt;
  }
  if (bad) return std::nullopt;
  if (choices.empty()) {
    problems.add(pos_of(node), path, "names no GPU");
    return std::nullopt;
  }
  // Names burst does not know: an error when nothing else is left, else dropped with a note.
  size_t known =
      std::count_if(choices.begin(), choices.end(), [](const auto& c) { return !c.first.unknown; });
  AcceleratorChoice out;
  out.pos = pos_of(node);
  out.count = choices.front().first.count;
  for (const auto& [c, pos] : choices) {
    if (c.unknown) {
      if (known == 0)
        problems.add(pos, path, unknown_message(c.name));
      else
        problems.note(pos, path, unknown_message(c.name) + "; left out of the choices");
      continue;
    }
    if (c.count != out.count && (c.min_vram_gb || out.min_vram_gb)) {
      problems.add(pos, path,
                   "not supported: a memory form (40GB+) among choices of different counts (" +
                       std::to_string(out.count) + " and " + std::to_string(c.count) +
                       "); name the GPUs, or use the same count");
      return std::nullopt;
    }
    if (c.gpu) {  // each GPU at its own count; the smallest where one is named twice
      auto [it, fresh] = out.counts.emplace(*c.gpu, c.count);
      if (!fresh) it->second = std::min(it->second, c.count);
    }
    if (c.min_vram_gb) {
      out.min_vram_gb =
          out.min_vram_gb ? std::min(*out.min_vram_gb, *c.min_vram_gb) : *c.min_vram_gb;
    } else if (c.gpu && std::find(out.gpus.begin(), out.gpus.end(), *c.gpu) == out.gpus.end()) {
      out.gpus.push_back(*c.gpu);
    }
  }
  if (known == 0) return std::nullopt;
  if (!out.counts.empty()) {  // gpu_count is the smallest; counts only where they differ
    bool same = true;
    out.count = out.counts.begin()->second;
    for (const auto& [gpu, count] : out.counts) {
      same = same && count == out.count;
      out.count = std::min(out.count, count);
    }
    if (same) out.counts.clear();
  }
  // "40GB+" together with names: any GPU of that size or one of the names. burst filters by
  // both at once, so the memory form alone wins.
  if (out.min_vram_gb && !out.gpus.empty()) {
    problems.note(out.pos, path, "a memory form with GPU names: burst keeps the memory form only");
    out.gpus.clear();
    out.counts.clear();
  }
  return out;
}

}  // namespace burst::spec
