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

// A storage mapping's keys (SkyPilot's storage spec).
constexpr sv kStorageFields[] = {"name",       "source", "store",         "mode",
                                 "persistent", "config", "_force_delete", "_bucket_sub_path"};
constexpr sv kModes[] = {"COPY", "MOUNT", "MOUNT_CACHED"};

constexpr char kOtherStores[] =
    "; burst reads s3://, gs://, r2:// and https:// sources: fetch it in setup, or put the files "
    "under workdir";

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

BucketMode mode_of(const std::string& mode) {
  if (mode == "MOUNT") return BucketMode::kMount;
  if (mode == "MOUNT_CACHED") return BucketMode::kMountCached;
  return BucketMode::kCopy;
}

// A bucket source; false (reported) when its scheme is not one burst reads.
bool add_bucket(const std::string& remote, const std::string& url, BucketMode mode, SourcePos pos,
                const std::string& path, SkyTask& task, Problems& problems) {
  const auto control = [](const std::string& t) {
    return std::any_of(t.begin(), t.end(),
                       [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  };
  if (control(url) || control(remote)) {
    problems.add(pos, path, "must not contain control characters");
    return false;
  }
  if (bucket_scheme(url).empty()) {
    problems.add(pos, path, "not supported: bucket source \"" + url + "\"" + kOtherStores);
    return false;
  }
  task.buckets.push_back({remote, url, mode, pos});
  return true;
}

void read_mount(const std::string& remote, const yaml::Node& value, const std::string& path,
                SourcePos pos, SkyTask& task, Problems& problems) {
  if (value.is_scalar()) {
    const std::string& source = value.scalar();
    if (is_url(source)) {
      add_bucket(remote, source, BucketMode::kCopy, pos_of(value), path, task, problems);
      return;
    }
    task.mounts.push_back({remote, source, pos});
    return;
  }
  if (!value.is_map()) {
    problems.add(pos_of(value), path, "expected a path or a mapping, got " + kind_of(value));
    return;
  }
  Fields f(value, path, kStorageFields, problems);
  if (!f.ok()) return;
  BucketMode mode = BucketMode::kMount;  // SkyPilot's default for a storage mapping
  if (std::optional<std::string> m = f.one_of("mode", kModes)) mode = mode_of(*m);
  for (sv key : {sv("persistent"), sv("config"), sv("_force_delete"), sv("_bucket_sub_path")})
    if (std::optional<yaml::Node> n = f.get(key))
      problems.note(pos_of(*n), f.path_of(key), "not used: burst leaves the bucket as it is");
  std::optional<yaml::Node> source = f.get("source");
  std::optional<std::string> name = f.string("name");
  std::optional<std::string> store = f.string("store");
  if (source && source->is_scalar() && is_url(source->scalar())) {
    add_bucket(remote, source->scalar(), mode, pos_of(*source), path, task, problems);
    return;
  }
  if (source && !source->is_scalar()) {
    problems.add(pos_of(*source), path + ".source",
                 "not supported: a list of sources; give one directory or bucket");
    return;
  }
  if (!name) {
    if (source) {  // a local directory, copied as a plain file_mounts entry
      task.mounts.push_back({remote, source->scalar(), pos});
      return;
    }
    problems.add(pos_of(value), path, "a storage mapping needs a source or a bucket name");
    return;
  }
  // A named bucket, created when missing; a local source is what SkyPilot uploads to it.
  std::string scheme = store ? store_scheme(*store) : "s3";
  if (scheme.empty()) {
    problems.add(pos_of(*f.get("store")), path + ".store",
                 "not supported: store " + *store + kOtherStores);
    return;
  }
  if (!store)
    problems.note(pos_of(value), path,
                  "no store: the bucket is taken to be on S3 (store: s3); give store: gcs or r2 "
                  "for another");
  if (source) {
    problems.note(pos_of(*source), path + ".source",
                  "copied from the synced workdir to " + remote +
                      " (SkyPilot would upload it to bucket " + *name + " first)");
    task.mounts.push_back({remote, source->scalar(), pos});
    return;
  }
  add_bucket(remote, scheme + "://" + *name, mode, pos_of(value), path, task, problems);
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

// Commands that serve until stopped; the first found names the reason.
constexpr std::string_view kForeverCommands[] = {
    "ray start --head",         "vllm serve",   "vllm.entrypoints",  "sglang.launch_server",
    "text-generation-launcher", "ollama serve", "llama-server",      "jupyter lab",
    "jupyter notebook",         "tensorboard ", "uvicorn ",          "http.server",
    "sleep infinity",           "sleep inf\n",  "tail -f /dev/null", "gradio"};

}  // namespace

std::string runs_until_stopped(const SkyTask& t) {
  if (t.service) return "a service (service:)";
  const std::string run = t.run.value_or("") + "\n";
  for (std::string_view c : kForeverCommands)
    if (run.find(c) != std::string::npos) {
      std::string word(c);
      while (!word.empty() && (word.back() == ' ' || word.back() == '\n')) word.pop_back();
      return "run starts `" + word + "`, which serves until stopped";
    }
  if (t.resources.ports) return "it opens ports (resources.ports), so it serves until stopped";
  return "";
}

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
  if (std::optional<yaml::Node> n = f.get("service")) {
    task.service = true;
    problems.note(pos_of(*n), "service",
                  "not served: burst runs the task as one job, with no replicas, load balancer "
                  "or endpoint; it runs until budget.max_runtime");
  }
  if (std::optional<yaml::Node> n = f.get("config"))
    problems.note(pos_of(*n), "config", "ignored: SkyPilot's own settings");
  for (sv key : {sv("inputs"), sv("outputs"), sv("event_callback"), sv("experimental"), sv("pool")})
    if (std::optional<yaml::Node> n = f.get(key))
      problems.note(pos_of(*n), key, "ignored by burst");
  return task;
}

}  // namespace burst::spec
