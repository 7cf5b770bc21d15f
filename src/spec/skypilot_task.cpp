#include "spec/skypilot_task.h"

#include <algorithm>
#include <climits>

#include "spec/spec_checks.h"

namespace burst::spec {
namespace {

using sv = std::string_view;

constexpr sv kTaskFields[] = {
    "name",        "workdir", "num_nodes",      "resources",    "envs",    "secrets",
    "file_mounts", "volumes", "setup",          "run",          "service", "config",
    "inputs",      "outputs", "event_callback", "experimental", "pool"};

constexpr char kBucketHelp[] =
    "; use setup to fetch it (aws s3 cp, gsutil cp, rclone) or put the files under workdir";

bool is_bucket(const std::string& source) { return source.find("://") != std::string::npos; }

// envs or secrets: a mapping NAME: value|null, or (secrets) a list of names.
std::vector<SkyValue> read_values(const yaml::Node& node, const std::string& path, bool allow_list,
                                  Problems& problems) {
  std::vector<SkyValue> out;
  if (allow_list && node.is_sequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      std::string item = path + "[" + std::to_string(i) + "]";
      std::optional<std::string> name = read_string(node[i], item, problems);
      if (!name) continue;
      if (!is_env_name(*name)) {
        problems.add(pos_of(node[i]), item, "not a valid environment variable name");
        continue;
      }
      if (is_reserved_env_name(*name)) {
        problems.add(pos_of(node[i]), item, "names starting with BURST_ are reserved for burst");
        continue;
      }
      bool dup = false;
      for (const SkyValue& v : out) dup = dup || v.name == *name;
      if (dup) {
        problems.add(pos_of(node[i]), item, *name + " is listed more than once");
        continue;
      }
      out.push_back({*name, std::nullopt, pos_of(node[i])});
    }
    return out;
  }
  if (!node.is_map()) {
    problems.add(pos_of(node), path,
                 std::string("expected a mapping") + (allow_list ? " or a list" : "") + ", got " +
                     kind_of(node));
    return out;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string name = key_name(it->first);
    std::string item = path + "." + name;
    SourcePos pos = pos_of(it->first);
    if (!is_env_name(name)) {
      problems.add(pos, item, "not a valid environment variable name");
      continue;
    }
    if (is_reserved_env_name(name)) {
      problems.add(pos, item, "names starting with BURST_ are reserved for burst");
      continue;
    }
    bool dup = false;
    for (const SkyValue& v : out) dup = dup || v.name == name;
    if (dup) {
      problems.add(pos, item, "duplicate field");
      continue;
    }
    SkyValue v{name, std::nullopt, pos};
    if (!it->second.is_null()) v.value = read_string(it->second, item, problems);
    if (!it->second.is_null() && !v.value) continue;
    out.push_back(std::move(v));
  }
  return out;
}

void read_mount(const std::string& remote, const yaml::Node& value, const std::string& path,
                SourcePos pos, SkyTask& task, Problems& problems) {
  if (value.is_scalar()) {
    const std::string& source = value.scalar();
    if (is_bucket(source)) {
      problems.add(pos_of(value), path,
                   "not supported: bucket source \"" + source + "\"" + kBucketHelp);
      return;
    }
    task.mounts.push_back({remote, source, pos});
    return;
  }
  if (!value.is_map()) {
    problems.add(pos_of(value), path, "expected a path or a mapping, got " + kind_of(value));
    return;
  }
  yaml::Node mode = value["mode"];
  if (mode && mode.is_scalar() && mode.scalar() != "COPY") {
    problems.add(
        pos_of(mode), path + ".mode",
        "not supported: mode " + mode.scalar() + " (a bucket mounted on the pod)" + kBucketHelp);
    return;
  }
  yaml::Node source = value["source"];
  if (!source || !source.is_scalar() || is_bucket(source.scalar()) || value["name"] ||
      value["store"]) {
    problems.add(pos_of(value), path, std::string("not supported: a storage bucket") + kBucketHelp);
    return;
  }
  task.mounts.push_back({remote, source.scalar(), pos});
}

void read_mounts(const yaml::Node& node, const std::string& path, SkyTask& task,
                 Problems& problems) {
  if (!node.is_map()) {
    problems.add(pos_of(node), path,
                 "expected a mapping of remote path: source, got " + kind_of(node));
    return;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string remote = key_name(it->first);
    read_mount(remote, it->second, path + "." + remote, pos_of(it->first), task, problems);
  }
}

void read_volumes(const yaml::Node& node, const std::string& path, SkyTask& task,
                  Problems& problems) {
  if (!node.is_map()) {
    problems.add(pos_of(node), path,
                 "expected a mapping of mount path: volume name, got " + kind_of(node));
    return;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string mount = key_name(it->first);
    std::string item = path + "." + mount;
    if (task.volume) {
      problems.add(pos_of(it->first), item,
                   "not supported: a second volume; burst attaches one volume per job");
      return;
    }
    std::optional<std::string> name = read_string(it->second, item, problems);
    if (!name) continue;
    if (!mount.starts_with('/')) {
      problems.add(pos_of(it->first), item, "must be an absolute path, got \"" + mount + "\"");
      continue;
    }
    if (std::any_of(mount.begin(), mount.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
      problems.add(pos_of(it->first), item, "must not contain control characters");
      continue;
    }
    if (!is_valid_name(*name)) {
      problems.add(
          pos_of(it->second), item,
          "volume names must be lower-case letters, digits and '-', got \"" + *name + "\"");
      continue;
    }
    task.volume = {mount, *name};
    task.volume_pos = pos_of(it->first);
  }
}

}  // namespace

std::span<const std::string_view> skypilot_task_fields() { return kTaskFields; }

std::optional<SkyTask> read_sky_task(const yaml::Node& doc,
                                     const std::vector<std::string>& providers,
                                     Problems& problems) {
  Fields f(doc, "", kTaskFields, problems);
  if (!f.ok()) return std::nullopt;
  SkyTask task;
  task.pos = pos_of(doc);
  task.only_name = doc.size() == 1 && doc["name"];
  if (std::optional<yaml::Node> n = f.get("name")) {
    task.name = read_string(*n, "name", problems).value_or("");
    task.name_pos = pos_of(*n);
  }
  if (std::optional<yaml::Node> n = f.get("workdir")) {
    if (n->is_map()) {
      problems.add(pos_of(*n), "workdir",
                   "not supported: a git workdir; clone it in setup, or give a local directory");
    } else {
      task.workdir = read_string(*n, "workdir", problems);
      task.workdir_pos = pos_of(*n);
    }
  }
  if (std::optional<yaml::Node> n = f.get("num_nodes")) {
    task.num_nodes = static_cast<int>(read_integer(*n, "num_nodes", 1, 1000, problems).value_or(1));
    task.num_nodes_pos = pos_of(*n);
  }
  if (std::optional<yaml::Node> n = f.get("resources"))
    task.resources = read_sky_resources(*n, "resources", providers, problems);
  if (std::optional<yaml::Node> n = f.get("envs"))
    task.envs = read_values(*n, "envs", false, problems);
  if (std::optional<yaml::Node> n = f.get("secrets"))
    task.secrets = read_values(*n, "secrets", true, problems);
  if (std::optional<yaml::Node> n = f.get("file_mounts"))
    read_mounts(*n, "file_mounts", task, problems);
  if (std::optional<yaml::Node> n = f.get("volumes")) read_volumes(*n, "volumes", task, problems);
  task.setup = f.script("setup").value_or("");
  task.run = f.script("run");
  if (std::optional<yaml::Node> n = f.get("service"))
    problems.note(pos_of(*n), "service",
                  "ignored: burst runs a job to completion and serves no endpoint");
  if (std::optional<yaml::Node> n = f.get("config"))
    problems.note(pos_of(*n), "config", "ignored: SkyPilot's own settings");
  for (sv key : {sv("inputs"), sv("outputs"), sv("event_callback"), sv("experimental"), sv("pool")})
    if (std::optional<yaml::Node> n = f.get(key))
      problems.note(pos_of(*n), key, "ignored by burst");
  return task;
}

}  // namespace burst::spec
