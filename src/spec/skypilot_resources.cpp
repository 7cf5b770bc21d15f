#include "spec/skypilot_resources.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <map>
#include <string_view>

#include "spec/skypilot_accelerators.h"
#include "spec/spec_checks.h"

namespace burst::spec {
namespace {

using sv = std::string_view;

constexpr sv kResourceFields[] = {"infra",
                                  "cloud",
                                  "region",
                                  "zone",
                                  "accelerators",
                                  "accelerator_args",
                                  "instance_type",
                                  "cpus",
                                  "memory",
                                  "use_spot",
                                  "spot_recovery",
                                  "job_recovery",
                                  "disk_size",
                                  "disk_tier",
                                  "network_tier",
                                  "ports",
                                  "image_id",
                                  "labels",
                                  "autostop",
                                  "any_of",
                                  "ordered",
                                  "priority",
                                  "_docker_login_config"};
constexpr sv kDiskTiers[] = {"low", "medium", "high", "ultra", "best"};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void add_provider(Resources& r, const std::string& name) {
  if (std::find(r.providers.begin(), r.providers.end(), name) == r.providers.end())
    r.providers.push_back(name);
}

// "aws", "aws/us-east-1", "k8s/my-context", "runpod/US": the cloud decides; the rest is noted.
// `providers`: burst's provider names (the registry's, handed in); a SkyPilot cloud of the same
// name is that provider. Returns the cloud when burst does not use it, else "".
std::string read_cloud(const yaml::Node& node, const std::string& path, bool split, Resources& out,
                       const std::vector<std::string>& providers, Problems& problems) {
  std::optional<std::string> text = read_string(node, path, problems);
  if (!text) return "";
  std::string cloud = lower(split ? text->substr(0, text->find('/')) : *text);
  if (std::find(providers.begin(), providers.end(), cloud) != providers.end()) {
    add_provider(out, cloud);
    if (split && text->find('/') != std::string::npos)
      problems.note(pos_of(node), path, "region and zone are not used: burst picks the offer");
    return "";
  }
  if (cloud == "*" || cloud.empty()) return "";
  problems.note(pos_of(node), path,
                "\"" + cloud +
                    "\" is not a burst provider: ignored; burst chooses among its own providers "
                    "(local, ssh, runpod, lambda, vast; pick with --provider)");
  return cloud;
}

// cpus/memory: 8, "8", "8+", "32GB+"; burst rents GPU offers and does not filter by them.
void read_amount(const yaml::Node& node, const std::string& path, Problems& problems) {
  std::optional<std::string> text = read_string(node, path, problems);
  if (!text) return;
  std::string t = lower(*text);
  if (t.ends_with('+')) t.pop_back();
  if (t.ends_with("gb")) t.resize(t.size() - 2);
  bool number = !t.empty() && std::all_of(t.begin(), t.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
  });
  if (!number) {
    problems.add(pos_of(node), path,
                 "expected a number, optionally with '+', got \"" + *text + "\"");
    return;
  }
  problems.note(pos_of(node), path, "not used: burst chooses GPU offers, not CPU or memory sizes");
}

void read_image(const yaml::Node& node, const std::string& path, SkyResources& out,
                Problems& problems) {
  const bool docker = node.is_scalar() && node.scalar().starts_with("docker:");
  if (!docker && !out.other_cloud.empty()) {
    // A VM image (or a per-region mapping) for a cloud burst drops goes with that cloud.
    problems.note(pos_of(node), path,
                  "ignored with the cloud it is for (" + out.other_cloud +
                      "): burst runs containers; give image_id: docker:IMAGE to choose one");
    return;
  }
  if (!node.is_scalar()) {
    problems.add(pos_of(node), path,
                 "not supported: image_id per region; use image_id: docker:IMAGE");
    return;
  }
  const std::string& text = node.scalar();
  if (!text.starts_with("docker:") || text.size() == 7) {
    problems.add(pos_of(node), path,
                 "not supported: VM image \"" + text +
                     "\" (burst runs containers); use image_id: docker:IMAGE");
    return;
  }
  if (!is_valid_image_ref(text.substr(7))) {  // as `image` is checked, so the conversion reads back
    problems.add(pos_of(node), path, kBadImageRef);
    return;
  }
  out.image = text.substr(7);
}

// One resources mapping (the top level or an any_of/ordered item) onto `out`.
void read_fields(Fields& f, SkyResources& out, const std::vector<std::string>& providers,
                 Problems& problems) {
  Resources& r = out.resources;
  for (sv key : {sv("infra"), sv("cloud")})
    if (std::optional<yaml::Node> n = f.get(key)) {
      // The latest cloud named decides (an any_of item's over the top level's).
      out.other_cloud = read_cloud(*n, f.path_of(key), key == "infra", r, providers, problems);
    }
  for (sv key : {sv("region"), sv("zone")})
    if (std::optional<yaml::Node> n = f.get(key))
      problems.note(pos_of(*n), f.path_of(key), "not used: burst picks the offer");
  if (std::optional<yaml::Node> n = f.get("accelerators")) {
    if (std::optional<AcceleratorChoice> a =
            read_accelerators(*n, f.path_of("accelerators"), problems)) {
      r.gpus = a->gpus;
      r.min_vram_gb = a->min_vram_gb;
      r.gpu_count = a->count;
      r.gpu_counts = a->counts;
      out.has_accelerators = true;
    }
  }
  for (sv key : {sv("cpus"), sv("memory")})
    if (std::optional<yaml::Node> n = f.get(key)) read_amount(*n, f.path_of(key), problems);
  if (std::optional<bool> spot = f.boolean("use_spot")) r.spot = *spot;
  if (std::optional<yaml::Node> n = f.get("disk_size")) {
    // The limit of burst's resources.disk_gb (spec_resources.cpp), so `convert` reads back.
    if (std::optional<long> disk = read_integer(*n, f.path_of("disk_size"), 1, 65536, problems)) {
      out.disk_size_gb = static_cast<int>(*disk);
      problems.note(pos_of(*n), f.path_of("disk_size"),
                    "becomes resources.disk_gb: the pod's own disk, wiped with the pod (no "
                    "monthly cost; the kept volume is volume.size_gb)");
    }
  }
  if (std::optional<yaml::Node> n = f.get("disk_tier")) {
    if (read_one_of(*n, f.path_of("disk_tier"), kDiskTiers, problems))
      problems.note(pos_of(*n), f.path_of("disk_tier"), "not used: providers set the disk");
  }
  if (std::optional<yaml::Node> n = f.get("image_id"))
    read_image(*n, f.path_of("image_id"), out, problems);
  if (std::optional<yaml::Node> n = f.get("ports")) {
    out.ports = true;
    problems.note(pos_of(*n), f.path_of("ports"),
                  "not opened: burst opens no ports (reach the server through SSH); the job runs "
                  "until its run step exits or budget.max_runtime");
  }
  if (std::optional<yaml::Node> n = f.get("autostop"))
    problems.note(pos_of(*n), f.path_of("autostop"),
                  "not needed: burst deletes the pod as soon as the job ends");
  for (sv key : {sv("job_recovery"), sv("spot_recovery")})
    if (std::optional<yaml::Node> n = f.get(key))
      problems.note(pos_of(*n), f.path_of(key), "not used: burst does not restart a lost pod");
  for (sv key : {sv("instance_type"), sv("accelerator_args"), sv("network_tier"), sv("labels"),
                 sv("priority"), sv("_docker_login_config")})
    if (std::optional<yaml::Node> n = f.get(key))
      problems.note(pos_of(*n), f.path_of(key), "not used by burst");
}

// any_of / ordered: each item over the top-level values; GPU names are pooled.
void read_choices(Fields& f, sv key, const SkyResources& base, SkyResources& out,
                  const std::vector<std::string>& providers, Problems& problems) {
  std::optional<yaml::Node> list = f.get(key);
  if (!list) return;
  std::string path = f.path_of(key);
  if (!list->is_sequence() || list->size() == 0) {
    problems.add(pos_of(*list), path, "expected a list of resources, got " + kind_of(*list));
    return;
  }
  if (key == "ordered")
    problems.note(pos_of(*list), path,
                  "burst picks the cheapest choice that fits, not the first listed");
  constexpr size_t kMaxChoices = 64;
  bool any_gpu = false;      // a choice with no accelerators: any GPU
  std::optional<int> count;  // the smallest
  bool all_named = true;     // every choice so far names its GPUs
  bool mixed = false;        // the counts differ
  std::map<std::string, int> counts;
  out.resources.gpus.clear();
  out.resources.min_vram_gb.reset();
  for (size_t i = 0; i < list->size() && i < kMaxChoices; ++i) {
    std::string item_path = path + "[" + std::to_string(i) + "]";
    SkyResources one = base;
    Fields item((*list)[i], item_path, kResourceFields, problems);
    if (!item.ok()) continue;
    if (item.get("any_of") || item.get("ordered")) {
      problems.add(item.pos(), item_path,
                   "not supported: any_of or ordered inside " + std::string(key));
      continue;
    }
    read_fields(item, one, providers, problems);
    const Resources& r = one.resources;
    // Each choice's GPUs at its own count; a choice of any GPU (or by memory) takes one count
    // for all, so its count must be every choice's.
    const bool by_name = !r.gpus.empty();
    if (count && *count != r.gpu_count && (!by_name || !all_named)) {
      problems.add(item.pos(), item_path,
                   "not supported: a choice of any GPU (or by memory) among choices of different "
                   "GPU counts (" +
                       std::to_string(*count) + " and " + std::to_string(r.gpu_count) +
                       "); name the GPUs of each choice, or use the same count");
      return;
    }
    all_named = all_named && by_name;
    for (const std::string& g : r.gpus) {
      auto [it, fresh] = counts.emplace(g, r.count_for(g));
      if (!fresh) it->second = std::min(it->second, r.count_for(g));
    }
    if (count && *count != r.gpu_count) mixed = true;
    for (const auto& [g, c] : r.gpu_counts) mixed = mixed || c != r.gpu_count;
    count = count ? std::min(*count, r.gpu_count) : r.gpu_count;
    out.has_accelerators = out.has_accelerators || one.has_accelerators;
    out.ports = out.ports || one.ports;
    if (r.gpus.empty() && !r.min_vram_gb) any_gpu = true;
    for (const std::string& g : r.gpus)
      if (std::find(out.resources.gpus.begin(), out.resources.gpus.end(), g) ==
          out.resources.gpus.end())
        out.resources.gpus.push_back(g);
    if (r.min_vram_gb)
      out.resources.min_vram_gb = out.resources.min_vram_gb
                                      ? std::min(*out.resources.min_vram_gb, *r.min_vram_gb)
                                      : *r.min_vram_gb;
    for (const std::string& p : r.providers) add_provider(out.resources, p);
    out.resources.spot = out.resources.spot || r.spot;
    if (one.image && !out.image) out.image = one.image;
    if (one.disk_size_gb)
      out.disk_size_gb = std::max(out.disk_size_gb.value_or(0), *one.disk_size_gb);
  }
  if (count) out.resources.gpu_count = *count;
  out.resources.gpu_counts.clear();
  if (mixed) out.resources.gpu_counts = counts;
  if (any_gpu) {
    out.resources.gpus.clear();
    out.resources.min_vram_gb.reset();
  } else if (out.resources.min_vram_gb && !out.resources.gpus.empty()) {
    problems.note(pos_of(*list), path,
                  "memory forms with GPU names: burst keeps the memory form only");
    out.resources.gpus.clear();
  }
}

}  // namespace

bool is_skypilot_resource_key(std::string_view key) {
  return std::find(std::begin(kResourceFields), std::end(kResourceFields), key) !=
         std::end(kResourceFields);
}

SkyResources read_sky_resources(const yaml::Node& node, const std::string& path,
                                const std::vector<std::string>& providers, Problems& problems) {
  SkyResources out;
  out.pos = pos_of(node);
  if (node.is_null()) return out;
  Fields f(node, path, kResourceFields, problems);
  if (!f.ok()) return out;
  read_fields(f, out, providers, problems);
  if (f.get("any_of") && f.get("ordered")) {
    problems.add(f.pos(), path, "any_of and ordered: give one of them");
    return out;
  }
  SkyResources base = out;
  read_choices(f, "any_of", base, out, providers, problems);
  read_choices(f, "ordered", base, out, providers, problems);
  return out;
}

}  // namespace burst::spec
